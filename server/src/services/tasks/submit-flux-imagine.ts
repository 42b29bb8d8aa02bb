/**
 * @module POST /flux-imagine (v1): one picture from a prompt on a Flux model (task type
 * flux-imagine, 1 credit whatever the model). What the route validated is kept in
 * `input_data` as the v1 names, for the worker to build the job from: the model (default
 * flux-dev), width and height (both or neither; they win over aspect_ratio), and the model's
 * knobs. `image_prompt` is a picture URL, checked as faceswap's are.
 */
import type { AspectRatio, FluxModel } from '../../engines/engine.ts';
import { ApiError } from '../../errors.ts';
import type { Account } from '../../repositories/user-repository.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { createTask, type TaskDeps } from './create-task.ts';
import { checkedImageUrl } from './submit-faceswap.ts';
import { type WebhookInput, webhookOf } from './submit-inputs.ts';

export interface FluxImagineInput extends WebhookInput {
  prompt: string;
  model?: FluxModel;
  width?: number;
  height?: number;
  aspect_ratio?: AspectRatio;
  steps?: number;
  guidance?: number;
  seed?: number;
  safety_tolerance?: number;
  raw?: boolean;
  image_prompt?: string;
  image_prompt_strength?: number;
  prompt_upsampling?: boolean;
}

export const DEFAULT_FLUX_MODEL: FluxModel = 'flux-dev';

export async function submitFluxImagine(deps: TaskDeps & { media: MediaStore }, account: Account, input: FluxImagineInput): Promise<{ task_id: string }> {
  if ((input.width === undefined) !== (input.height === undefined)) {
    throw new ApiError('validation_failed', `${input.width === undefined ? 'width' : 'height'}: Give width and height together`);
  }
  const imagePrompt = input.image_prompt === undefined ? undefined : await checkedImageUrl(deps, 'image_prompt', input.image_prompt);
  const { prompt, webhook_url: _url, webhook_secret: _secret, webhook_events: _events, image_prompt: _image, ...knobs } = input;
  const inputData: Record<string, unknown> = { model: DEFAULT_FLUX_MODEL, ...knobs };
  if (imagePrompt) inputData.image_prompt = imagePrompt;
  return createTask(deps, account, { type: 'flux-imagine', prompt, inputData, webhook: webhookOf(input) });
}
