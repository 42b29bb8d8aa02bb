/**
 * @module Tasks made from an earlier task (spec §4: an upscale or variation is a new task
 * pointing at its parent): variations, upscales, reroll, seed. The parent must be the
 * caller's own (live or archived) and have finished successfully (`finished`, or `success` as
 * older rows say). The Midjourney buttons follow midjourney-proxy's parent rules
 * (midjourney-parent.ts): U1–U4 (the plain upscale), V1–V4 and 🔄 take a grid of four; the
 * enlargements of /pro/upscale (subtle, creative, 2x, 4x) take any finished picture.
 */
import type { CellIndex, UpscaleType } from '../../engines/engine.ts';
import { ApiError } from '../../errors.ts';
import { taskRepository, type TaskRow } from '../../repositories/task-repository.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { createTask, type TaskDeps } from './create-task.ts';
import { requireGrid, requireImage } from './midjourney-parent.ts';
import { type WebhookInput, webhookOf } from './submit-inputs.ts';
import { upscaleTaskType, variationTaskType } from './task-kinds.ts';
import { isFinished } from './task-view.ts';

export const TASK_NOT_FOUND_MESSAGE = 'Task not found';

/** The caller's own finished task (404 'Task not found', 409 while it has not finished successfully). */
export async function loadParent(deps: TaskDeps, account: Account, parentId: string): Promise<TaskRow> {
  const parent = await taskRepository(deps.db).findOwn(account.id, parentId);
  if (!parent) throw new ApiError('not_found', TASK_NOT_FOUND_MESSAGE);
  if (!isFinished(parent.status)) {
    throw new ApiError('conflict', 'The task has not finished successfully');
  }
  return parent;
}

/** POST /pro/variations, /variations with index 1–4: V1–V4 of a grid. */
export async function submitVariation(deps: TaskDeps, account: Account, input: { parent_task_id: string; index: CellIndex } & WebhookInput) {
  const parent = await loadParent(deps, account, input.parent_task_id);
  requireImage(parent, input.index);
  requireGrid(parent, 'Variations (V1–V4)');
  return createTask(deps, account, {
    type: variationTaskType(input.index),
    prompt: parent.prompt,
    parentPrompt: parent.prompt,
    parentId: parent.id,
    inputData: { index: input.index },
    webhook: webhookOf(input),
  });
}

/** POST /pro/upscale, /upscale-1x: one image of a grid alone (U1–U4, `1x`), or enlarged. */
export async function submitUpscale(deps: TaskDeps, account: Account, input: { parent_task_id: string; index: CellIndex; type?: UpscaleType } & WebhookInput) {
  const parent = await loadParent(deps, account, input.parent_task_id);
  requireImage(parent, input.index);
  const type = input.type ?? '1x';
  if (type === '1x') requireGrid(parent, 'Upscale (U1–U4)');
  return createTask(deps, account, {
    type: upscaleTaskType(type, input.index),
    prompt: parent.prompt,
    parentPrompt: parent.prompt,
    parentId: parent.id,
    inputData: { index: input.index, upscale_type: type },
    webhook: webhookOf(input),
  });
}

/** POST /pro/reroll, /reroll: the grid again, from the parent's prompt or a new one. */
export async function submitReroll(deps: TaskDeps, account: Account, input: { parent_task_id: string; prompt?: string } & WebhookInput) {
  const parent = await loadParent(deps, account, input.parent_task_id);
  requireGrid(parent, 'Reroll');
  const prompt = input.prompt ?? parent.prompt;
  if (!prompt) throw new ApiError('conflict', 'The task has no prompt to reroll');
  return createTask(deps, account, {
    type: 'reroll',
    prompt,
    parentPrompt: parent.prompt,
    parentId: parent.id,
    inputData: input.prompt ? { prompt: input.prompt } : null,
    webhook: webhookOf(input),
  });
}

/** POST /pro/seed, /seed: a seed task; POST /fetch with its id shows the seed once it finished. */
export async function submitSeed(deps: TaskDeps, account: Account, input: { task_id: string } & WebhookInput) {
  const parent = await loadParent(deps, account, input.task_id);
  if (!parent.image_url) throw new ApiError('conflict', 'The task has no images');
  return createTask(deps, account, {
    type: 'seed',
    prompt: parent.prompt,
    parentPrompt: parent.prompt,
    parentId: parent.id,
    webhook: webhookOf(input),
  });
}
