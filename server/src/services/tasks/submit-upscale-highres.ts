/**
 * @module POST /upscale-highres (v1): a 2x or 4x enlargement (upscale-2x, upscale-4x) of an
 * upscaled Midjourney image, of one cell of a grid (`index`), or of any picture named by
 * `image_url` (checked as faceswap's are; an enlargement of an arbitrary picture runs on the
 * local engine, whose lanczos upscale is real, when this server has it: a Midjourney upstream
 * can only enlarge its own images).
 */
import type { CellIndex } from '../../engines/engine.ts';
import { ApiError } from '../../errors.ts';
import type { Account } from '../../repositories/user-repository.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { createTask, type TaskDeps } from './create-task.ts';
import { upscaledTarget } from './midjourney-parent.ts';
import { checkedImageUrl } from './submit-faceswap.ts';
import { loadParent } from './submit-from-parent.ts';
import { type WebhookInput, webhookOf } from './submit-inputs.ts';
import { upscaleTaskType } from './task-kinds.ts';

export interface UpscaleHighresInput extends WebhookInput {
  parent_task_id?: string;
  image_url?: string;
  type: '2x' | '4x';
  index?: CellIndex;
}

export async function submitUpscaleHighres(deps: TaskDeps & { media: MediaStore }, account: Account, input: UpscaleHighresInput): Promise<{ task_id: string }> {
  const webhook = webhookOf(input);
  const type = upscaleTaskType(input.type, 1);
  if ((input.parent_task_id === undefined) === (input.image_url === undefined)) {
    throw new ApiError('validation_failed', 'parent_task_id: Give either parent_task_id or image_url');
  }
  if (input.image_url !== undefined) {
    const url = await checkedImageUrl(deps, 'image_url', input.image_url);
    return createTask(deps, account, {
      type,
      prompt: null,
      preferredEngine: 'local',
      inputData: { image_url: url, index: 1, upscale_type: input.type },
      webhook,
    });
  }
  const parent = await loadParent(deps, account, input.parent_task_id as string);
  const index = upscaledTarget(parent, input.index, `Upscale ${input.type}`, 'POST /upscale-1x');
  return createTask(deps, account, {
    type,
    prompt: parent.prompt,
    parentPrompt: parent.prompt,
    parentId: parent.id,
    inputData: { index: index ?? 1, upscale_type: input.type },
    webhook,
  });
}
