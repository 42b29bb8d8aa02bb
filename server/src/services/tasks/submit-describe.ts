/**
 * @module POST /describe (Midjourney: four prompts for a picture, task type describe) and
 * POST /ideogram-describe (Ideogram: one description, ideogram-describe). The URL is checked as
 * faceswap's are (a 400 naming `image_url`); the worker reads the picture through the guarded
 * fetcher.
 */
import type { Account } from '../../repositories/user-repository.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { createTask, type TaskDeps } from './create-task.ts';
import { checkedImageUrl } from './submit-faceswap.ts';
import { type WebhookInput, webhookOf } from './submit-inputs.ts';

export interface DescribeInput extends WebhookInput {
  image_url: string;
}

export async function submitDescribe(
  deps: TaskDeps & { media: MediaStore },
  account: Account,
  type: 'describe' | 'ideogram-describe',
  input: DescribeInput,
): Promise<{ task_id: string }> {
  const url = await checkedImageUrl(deps, 'image_url', input.image_url);
  return createTask(deps, account, { type, prompt: null, inputData: { image_url: url }, webhook: webhookOf(input) });
}
