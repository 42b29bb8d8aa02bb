/**
 * @module POST /blend: 2–5 pictures fused into a grid of four in the chosen shape
 * (`dimension` square 1:1, portrait 2:3, landscape 3:2; default square). Each URL is checked as
 * faceswap's are (a 400 naming `image_urls.<i>`); the worker reads them through the guarded
 * fetcher.
 */
import type { BlendDimension } from '../../engines/jobs/picture-actions.ts';
import type { Account } from '../../repositories/user-repository.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { createTask, type TaskDeps } from './create-task.ts';
import { checkedImageUrl } from './submit-faceswap.ts';
import { type WebhookInput, webhookOf } from './submit-inputs.ts';

export interface BlendInput extends WebhookInput {
  image_urls: string[];
  dimension?: BlendDimension;
}

export async function submitBlend(deps: TaskDeps & { media: MediaStore }, account: Account, input: BlendInput): Promise<{ task_id: string }> {
  const urls: string[] = [];
  for (const [i, url] of input.image_urls.entries()) urls.push(await checkedImageUrl(deps, `image_urls.${i}`, url));
  return createTask(deps, account, {
    type: 'blend',
    prompt: null,
    inputData: { image_urls: urls, dimension: input.dimension ?? 'square' },
    webhook: webhookOf(input),
  });
}
