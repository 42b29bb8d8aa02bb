/**
 * @module Tasks made from an earlier task (spec §4: an upscale or variation is a new task
 * pointing at its parent): variations, upscales, reroll, seed. The parent must be the
 * caller's own (live or archived) and have finished successfully.
 */
import type { CellIndex, UpscaleType } from '../../engines/engine.ts';
import { ApiError } from '../../errors.ts';
import { taskRepository, type TaskRow } from '../../repositories/task-repository.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { createTask, type TaskDeps } from './create-task.ts';
import { upscaleTaskType, variationTaskType } from './task-kinds.ts';

export const TASK_NOT_FOUND_MESSAGE = 'Task not found';

async function loadParent(deps: TaskDeps, account: Account, parentId: string): Promise<TaskRow> {
  const parent = await taskRepository(deps.db).findOwn(account.id, parentId);
  if (!parent) throw new ApiError('not_found', TASK_NOT_FOUND_MESSAGE);
  if (parent.status !== 'success' && parent.status !== 'finished') {
    throw new ApiError('conflict', 'The task has not finished successfully');
  }
  return parent;
}

function requireImage(parent: TaskRow, index: CellIndex): void {
  const count = parent.image_urls?.length ?? 0;
  if (count === 0 || !parent.image_url) throw new ApiError('conflict', 'The task has no images');
  if (index > count) throw new ApiError('bad_request', `index must be between 1 and ${count} for this task`);
}

export async function submitVariation(deps: TaskDeps, account: Account, input: { parent_task_id: string; index: CellIndex }) {
  const parent = await loadParent(deps, account, input.parent_task_id);
  requireImage(parent, input.index);
  return createTask(deps, account, {
    type: variationTaskType(input.index),
    prompt: parent.prompt,
    parentPrompt: parent.prompt,
    parentId: parent.id,
    inputData: { index: input.index },
  });
}

export async function submitUpscale(deps: TaskDeps, account: Account, input: { parent_task_id: string; index: CellIndex; type?: UpscaleType }) {
  const parent = await loadParent(deps, account, input.parent_task_id);
  requireImage(parent, input.index);
  const type = input.type ?? '1x';
  return createTask(deps, account, {
    type: upscaleTaskType(type, input.index),
    prompt: parent.prompt,
    parentPrompt: parent.prompt,
    parentId: parent.id,
    inputData: { index: input.index, upscale_type: type },
  });
}

export async function submitReroll(deps: TaskDeps, account: Account, input: { parent_task_id: string }) {
  const parent = await loadParent(deps, account, input.parent_task_id);
  if (!parent.prompt) throw new ApiError('conflict', 'The task has no prompt to reroll');
  return createTask(deps, account, { type: 'reroll', prompt: parent.prompt, parentPrompt: parent.prompt, parentId: parent.id });
}

/** POST /pro/seed: a seed task; POST /fetch with its id shows the seed once it finished. */
export async function submitSeed(deps: TaskDeps, account: Account, input: { task_id: string }) {
  const parent = await loadParent(deps, account, input.task_id);
  if (!parent.image_url) throw new ApiError('conflict', 'The task has no images');
  return createTask(deps, account, { type: 'seed', prompt: parent.prompt, parentPrompt: parent.prompt, parentId: parent.id });
}
