/**
 * @module What POST /ai-photo-train and /ai-photo-generate ask of the task they start from
 * (spec §4: a finished upload is trained, a finished training generates): the caller's own
 * (else 404, as for any task of someone else), of the right type, finished successfully
 * (`finished`, or `success` as older rows say) and not expired (409 saying which, and what to do).
 */
import { ApiError } from '../../errors.ts';
import { taskRepository, type TaskRow } from '../../repositories/task-repository.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { isExpired } from './ai-photo-rules.ts';
import type { TaskDeps } from './create-task.ts';
import { TASK_NOT_FOUND_MESSAGE } from './submit-from-parent.ts';
import { isFinished } from './task-view.ts';

const WORDS = {
  'ai-photo-upload': { what: 'upload', kind: 'an AI photo upload', again: 'upload the photos again' },
  'ai-photo-train': { what: 'training', kind: 'an AI photo training', again: 'train a new model' },
} as const;

/** The caller's finished, unexpired upload or training named `taskId`, or the 404/409 that says why not. */
export async function loadAiPhotoParent(deps: Pick<TaskDeps, 'db'>, account: Account, taskId: string, type: keyof typeof WORDS): Promise<TaskRow> {
  const task = await taskRepository(deps.db).findOwn(account.id, taskId);
  if (!task) throw new ApiError('not_found', TASK_NOT_FOUND_MESSAGE);
  const words = WORDS[type];
  if (task.type !== type) throw new ApiError('conflict', `The task is not ${words.kind}`);
  if (task.status === 'failed') throw new ApiError('conflict', `The ${words.what} failed; ${words.again}`);
  if (!isFinished(task.status)) throw new ApiError('conflict', `The ${words.what} has not finished yet`);
  if (isExpired(task)) {
    throw new ApiError('conflict', `The ${words.what} expired at ${new Date(task.expires_at as Date).toISOString()}; ${words.again}`);
  }
  return task;
}
