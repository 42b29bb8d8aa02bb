/**
 * @module POST /ideogram-remix (v1): a new picture from a picture and a prompt (task type
 * ideogram-remix); `image_weight` 1–100 (default 50) is how much of the picture to keep. The
 * URL is checked as faceswap's are.
 */
import type { Account } from '../../repositories/user-repository.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { createTask, type TaskDeps } from './create-task.ts';
import { type IdeogramInput, ideogramInputData } from './ideogram-inputs.ts';
import { checkedImageUrl } from './submit-faceswap.ts';
import { type WebhookInput, webhookOf } from './submit-inputs.ts';

export async function submitIdeogramRemix(
  deps: TaskDeps & { media: MediaStore },
  account: Account,
  input: { image_url: string; prompt: string; image_weight?: number } & IdeogramInput & WebhookInput,
): Promise<{ task_id: string }> {
  const url = await checkedImageUrl(deps, 'image_url', input.image_url);
  return createTask(deps, account, {
    type: 'ideogram-remix',
    prompt: input.prompt,
    inputData: { image_url: url, image_weight: input.image_weight ?? 50, ...ideogramInputData(input) },
    webhook: webhookOf(input),
  });
}
