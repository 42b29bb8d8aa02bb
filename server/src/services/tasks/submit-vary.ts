/**
 * @module POST /variations with index strong|subtle (v1) and /pro/vary: Midjourney's Vary
 * (Strong) and Vary (Subtle) of an upscaled image (variation-strong, variation-subtle; a grid
 * of four). The parent rules are pan's (midjourney-parent.ts).
 */
import type { CellIndex } from '../../engines/engine.ts';
import type { VaryType } from '../../engines/jobs/picture-actions.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { createTask, type TaskDeps } from './create-task.ts';
import { upscaledTarget } from './midjourney-parent.ts';
import { loadParent } from './submit-from-parent.ts';
import { type WebhookInput, webhookOf } from './submit-inputs.ts';
import { varyTaskType } from './task-kinds.ts';

export interface VaryInput extends WebhookInput {
  parent_task_id: string;
  type: VaryType;
  index?: CellIndex;
}

export async function submitVary(deps: TaskDeps, account: Account, input: VaryInput): Promise<{ task_id: string }> {
  const parent = await loadParent(deps, account, input.parent_task_id);
  const index = upscaledTarget(parent, input.index, `Vary (${input.type === 'strong' ? 'Strong' : 'Subtle'})`, 'POST /upscale-1x');
  return createTask(deps, account, {
    type: varyTaskType(input.type),
    prompt: parent.prompt,
    parentPrompt: parent.prompt,
    parentId: parent.id,
    inputData: { vary_type: input.type, ...(index ? { index } : {}) },
    webhook: webhookOf(input),
  });
}
