/**
 * @module POST /pan (v1) and /pro/pan: an upscaled Midjourney image extended on one side
 * (task types pan-up, pan-down, pan-left, pan-right; a grid of four). The parent is an
 * upscaled image, or a grid with the cell named by `index` (midjourney-parent.ts).
 */
import type { CellIndex } from '../../engines/engine.ts';
import type { PanDirection } from '../../engines/jobs/picture-actions.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { createTask, type TaskDeps } from './create-task.ts';
import { upscaledTarget } from './midjourney-parent.ts';
import { loadParent } from './submit-from-parent.ts';
import { type WebhookInput, webhookOf } from './submit-inputs.ts';
import { panTaskType } from './task-kinds.ts';

export interface PanInput extends WebhookInput {
  parent_task_id: string;
  direction: PanDirection;
  index?: CellIndex;
}

export async function submitPan(deps: TaskDeps, account: Account, input: PanInput): Promise<{ task_id: string }> {
  const parent = await loadParent(deps, account, input.parent_task_id);
  const index = upscaledTarget(parent, input.index, 'Pan', 'POST /upscale-1x');
  return createTask(deps, account, {
    type: panTaskType(input.direction),
    prompt: parent.prompt,
    parentPrompt: parent.prompt,
    parentId: parent.id,
    inputData: { direction: input.direction, ...(index ? { index } : {}) },
    webhook: webhookOf(input),
  });
}
