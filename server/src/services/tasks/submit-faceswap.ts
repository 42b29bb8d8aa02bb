/**
 * @module POST /faceswap (spec §7): the face of `swap_image_url` put onto the face in
 * `target_image_url`. What can be known at submit time is checked here (a 400 naming the
 * field): each URL is well formed and allowed (https and a public host outside embedded
 * mode), and one of our own media URLs names an image we hold. Another site's picture is
 * not downloaded here, which keeps the submit fast; the worker reads it through the guarded
 * image fetcher, and a picture it cannot read fails the task with a refund.
 */
import { ApiError } from '../../errors.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { checkImageUrl } from '../../storage/image-url.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { type WebhookInput, webhookOf } from './submit-inputs.ts';
import { createTask, type TaskDeps } from './create-task.ts';

export interface FaceswapInput extends WebhookInput {
  swap_image_url: string;
  target_image_url: string;
}

type FaceswapDeps = TaskDeps & { media: MediaStore };

/** The URL as stored (trimmed), or a 400 `field: problem`. Every submit that takes an image URL checks it here. */
export async function checkedImageUrl(deps: FaceswapDeps, field: string, input: string): Promise<string> {
  const url = input.trim();
  const refuse = (problem: string) => new ApiError('validation_failed', `${field}: ${problem}`);
  if (!url) throw refuse('Must not be empty');
  // our own media is read from the store whatever its scheme or host
  const key = deps.media.keyOf(url);
  if (key) {
    if (!(await deps.media.has(key))) throw refuse('No image of this server has this URL (upload it with POST /upload)');
    return url;
  }
  const checked = checkImageUrl(url, deps.config);
  if ('problem' in checked) throw refuse(checked.problem);
  return url;
}

export async function submitFaceswap(deps: FaceswapDeps, account: Account, input: FaceswapInput): Promise<{ task_id: string }> {
  const swap = await checkedImageUrl(deps, 'swap_image_url', input.swap_image_url);
  const target = await checkedImageUrl(deps, 'target_image_url', input.target_image_url);
  const webhook = webhookOf(input);
  return createTask(deps, account, {
    type: 'faceswap',
    prompt: null,
    inputData: { swap_image_url: swap, target_image_url: target },
    webhook,
  });
}
