/**
 * @module How a task ends, inside the caller's transaction: success keeps the hold as the
 * charge; failure refunds it exactly once (settlement row + ledger source key
 * `refund:<task id>`, both unique) and records it in tasks.refund. A task that is already
 * terminal is left alone (undefined).
 */
import type { Queryable } from '@aim/supabase/db';
import { taskRepository, type TaskRow, type TaskSuccess } from '../../repositories/task-repository.ts';

export async function settleSuccess(tx: Queryable, task: TaskRow, success: TaskSuccess): Promise<TaskRow | undefined> {
  const tasks = taskRepository(tx);
  const row = await tasks.markSucceeded(task.id, success);
  if (row) await tasks.settle(task.id, task.user_id, 'charged', task.cost);
  return row;
}

export async function settleFailure(tx: Queryable, task: TaskRow, failure: { message: string; code: string }): Promise<TaskRow | undefined> {
  const tasks = taskRepository(tx);
  const row = await tasks.markFailed(task.id, failure, task.cost);
  if (!row) return undefined;
  if ((await tasks.settle(task.id, task.user_id, 'refunded', task.cost)) && task.cost > 0) {
    await tasks.applyCredit(task.user_id, task.cost, `refund:${task.id}`, `refund ${task.type}`, task.id);
  }
  return row;
}
