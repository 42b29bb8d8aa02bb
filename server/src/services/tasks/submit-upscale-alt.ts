/**
 * @module POST /upscale-alt (v1): Upscale (Subtle) or Upscale (Creative) of an upscaled image
 * (the /upscale-1x result; task types upscale-subtle, upscale-creative). A grid needs its
 * image upscaled first; the rules are in midjourney-parent.ts.
 */
import type { Account } from '../../repositories/user-repository.ts';
import { createTask, type TaskDeps } from './create-task.ts';
import { upscaledTarget } from './midjourney-parent.ts';
import { loadParent } from './submit-from-parent.ts';
import { type WebhookInput, webhookOf } from './submit-inputs.ts';
import { upscaleTaskType } from './task-kinds.ts';

export async function submitUpscaleAlt(
  deps: TaskDeps,
  account: Account,
  input: { parent_task_id: string; type: 'subtle' | 'creative' } & WebhookInput,
): Promise<{ task_id: string }> {
  const parent = await loadParent(deps, account, input.parent_task_id);
  upscaledTarget(parent, undefined, `Upscale (${input.type === 'subtle' ? 'Subtle' : 'Creative'})`, 'POST /upscale-1x');
  return createTask(deps, account, {
    type: upscaleTaskType(input.type, 1),
    prompt: parent.prompt,
    parentPrompt: parent.prompt,
    parentId: parent.id,
    inputData: { index: 1, upscale_type: input.type },
    webhook: webhookOf(input),
  });
}
