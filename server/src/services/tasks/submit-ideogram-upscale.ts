/**
 * @module POST /ideogram-upscale (v1): a picture enlarged by Ideogram's upscaler (task type
 * ideogram-upscale); `resemblance` and `detail` 1–100 (default 50), an optional guiding
 * `prompt`, `seed`, `magic_prompt_option`. The URL is checked as faceswap's are.
 */
import type { MagicPromptOption } from '../../engines/jobs/picture-actions.ts';
import type { Account } from '../../repositories/user-repository.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { createTask, type TaskDeps } from './create-task.ts';
import { checkedImageUrl } from './submit-faceswap.ts';
import { type WebhookInput, webhookOf } from './submit-inputs.ts';

export interface IdeogramUpscaleInput extends WebhookInput {
  image_url: string;
  prompt?: string;
  resemblance?: number;
  detail?: number;
  seed?: number;
  magic_prompt_option?: MagicPromptOption;
}

export async function submitIdeogramUpscale(
  deps: TaskDeps & { media: MediaStore },
  account: Account,
  input: IdeogramUpscaleInput,
): Promise<{ task_id: string }> {
  const url = await checkedImageUrl(deps, 'image_url', input.image_url);
  const { image_url: _url, prompt, webhook_url: _hook, webhook_secret: _secret, webhook_events: _events, ...knobs } = input;
  return createTask(deps, account, { type: 'ideogram-upscale', prompt: prompt ?? null, inputData: { image_url: url, ...knobs }, webhook: webhookOf(input) });
}
