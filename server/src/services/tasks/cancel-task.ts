/**
 * @module POST /cancel: the owner stops one of their active tasks. A queued task's job is
 * removed; a running one's job is ended and the worker running it (any process) is told on
 * CANCEL_CHANNEL, aborts the engine (a hosted engine cancels its upstream job where the
 * upstream can) and drops whatever the engine answers later. Either way the task ends
 * `failed` with `result: { message: 'Cancelled', code: 'cancelled', cancelled: true }` and
 * its hold is refunded in full, through settleFailure (which records the task.failed webhook).
 *
 * A running job's upstream job (a hosted prediction or training, `task_jobs.upstream_id`) is
 * also cancelled from here, after the commit, by the engine that started it: its worker may have
 * died holding the job, and a cancelled job is never resumed, so nobody else would stop it. With
 * a live worker the upstream gets the cancel twice, which it ignores.
 *
 * Exactly once against a completion: the cancel and a worker's settlement both take the job
 * row's lock; the settlement is fenced by its lease token, which the cancel clears, and a
 * cancel that comes second finds the task terminal. A result that reached the task (it
 * finished) is never taken back: 409, and the charge stands. A second cancel of a cancelled
 * task answers 200 with the same task (idempotent); any other terminal task answers 409.
 */
import type { Db } from '@aim/supabase/db';
import type { EngineRegistry } from './engine-registry.ts';
import { ApiError } from '../../errors.ts';
import { jobRepository } from '../../repositories/job-repository.ts';
import { taskRepository } from '../../repositories/task-repository.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { viewsOf } from './fetch-task.ts';
import { settleFailure } from './settle-task.ts';
import { TASK_NOT_FOUND_MESSAGE } from './submit-from-parent.ts';
import { isFinished, isTerminal, type TaskView } from './task-view.ts';

/** The result a cancelled task ends with (spec §4 has no cancelled status: it is `failed`). */
const CANCELLED_FAILURE = { message: 'Cancelled', code: 'cancelled', cancelled: true } as const;

export const CANCEL_FINISHED_MESSAGE = 'The task has already finished and cannot be cancelled';
export const CANCEL_FAILED_MESSAGE = 'The task has already failed and cannot be cancelled';

/** Whether a task's stored result says it was cancelled. */
function wasCancelled(result: Record<string, unknown> | null): boolean {
  return result?.cancelled === true;
}

/** How long the answer waits for the upstream cancel (it goes on in the background past that). */
const UPSTREAM_CANCEL_WAIT_MS = 2_000;

export async function cancelTask(deps: { db: Db; engines?: EngineRegistry }, account: Account, taskId: string): Promise<TaskView> {
  const id = taskId.toLowerCase();
  // ownership first: another account's task is as unknown as a missing one (no lock taken on it)
  if (!(await taskRepository(deps.db).findOwn(account.id, id))) throw new ApiError('not_found', TASK_NOT_FOUND_MESSAGE);
  let upstream: { queue: string; id: string } | undefined;
  const row = await deps.db.transaction(async (tx) => {
    const jobs = jobRepository(tx);
    const job = await jobs.lockForCancel(id);
    // read after the lock: a settlement that committed meanwhile is seen
    const task = await taskRepository(tx).findOwn(account.id, id);
    if (!task) throw new ApiError('not_found', TASK_NOT_FOUND_MESSAGE);
    if (isTerminal(task.status)) {
      if (wasCancelled(task.result)) return task;
      throw new ApiError('conflict', isFinished(task.status) ? CANCEL_FINISHED_MESSAGE : CANCEL_FAILED_MESSAGE);
    }
    if (job) await jobs.cancel(id);
    upstream = job?.state === 'active' && job.upstream_id ? { queue: job.queue, id: job.upstream_id } : undefined;
    return (await settleFailure(tx, task, CANCELLED_FAILURE)) ?? task;
  });
  const stopping = upstream && deps.engines?.get(upstream.queue)?.cancelUpstream?.(upstream.id);
  if (stopping) await Promise.race([stopping, new Promise((resolve) => setTimeout(resolve, UPSTREAM_CANCEL_WAIT_MS).unref())]);
  const [view] = await viewsOf(deps.db, [row]);
  return view;
}
