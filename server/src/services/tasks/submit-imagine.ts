import type { AspectRatio } from '../../engines/engine.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { createTask, type TaskDeps } from './create-task.ts';
import { type WebhookInput, webhookOf } from './submit-inputs.ts';

export interface ImagineInput extends WebhookInput {
  prompt: string;
  mode?: 'fast' | 'turbo';
  /** v1 /imagine: the shape of the four pictures (Midjourney `--ar`). */
  aspect_ratio?: AspectRatio;
}

/** POST /pro/imagine, /imagine: a Midjourney grid of four from a prompt. */
export function submitImagine(deps: TaskDeps, account: Account, input: ImagineInput): Promise<{ task_id: string }> {
  return createTask(deps, account, {
    type: 'imagine',
    prompt: input.prompt,
    mode: input.mode ?? 'fast',
    inputData: input.aspect_ratio ? { aspect_ratio: input.aspect_ratio } : null,
    webhook: webhookOf(input),
  });
}

/** POST /flux/imagine and /ideogram/imagine: one picture (flux) or a grid (ideogram) from a prompt. */
export function submitModelImagine(
  deps: TaskDeps,
  account: Account,
  type: 'flux-imagine' | 'ideogram-imagine',
  input: { prompt: string; aspect_ratio?: AspectRatio },
): Promise<{ task_id: string }> {
  const aspectRatio = input.aspect_ratio ?? '1:1';
  return createTask(deps, account, { type, prompt: input.prompt, inputData: { aspect_ratio: aspectRatio } });
}
