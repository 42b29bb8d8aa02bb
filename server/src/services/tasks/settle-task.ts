/**
 * @module How a task ends, inside the caller's transaction: success keeps the hold as the
 * charge; failure refunds it exactly once (settlement row + ledger source key
 * `refund:<task id>`, both unique) and records it in tasks.refund. The completion webhook
 * is recorded in the same transaction (an outbox row the dispatchers send), so a crash
 * right after the commit loses nothing. A task that is already terminal is left alone
 * (undefined).
 */
import type { Queryable } from '@aim/supabase/db';
import { taskRepository, type TaskRow, type TaskSuccess } from '../../repositories/task-repository.ts';
import { recordCredits } from '../../observability/metrics.ts';
import { recordCompletionWebhook } from '../../webhooks/task-webhooks.ts';

export async function settleSuccess(tx: Queryable, task: TaskRow, success: TaskSuccess): Promise<TaskRow | undefined> {
  const tasks = taskRepository(tx);
  const row = await tasks.markSucceeded(task.id, success);
  if (!row) return undefined;
  await tasks.settle(task.id, task.user_id, 'charged', task.cost);
  await recordCompletionWebhook(tx, row);
  return row;
}

export async function settleFailure(tx: Queryable, task: TaskRow, failure: { message: string; code: string; cancelled?: true }): Promise<TaskRow | undefined> {
  const tasks = taskRepository(tx);
  const row = await tasks.markFailed(task.id, failure, task.cost);
  if (!row) return undefined;
  if ((await tasks.settle(task.id, task.user_id, 'refunded', task.cost)) && task.cost > 0) {
    const refunded = await tasks.applyCredit(task.user_id, task.cost, `refund:${task.id}`, `refund ${task.type}`, task.id);
    // counted before the caller commits: a rolled-back settlement (rare) over-counts
    if (refunded !== null) recordCredits('refunded', task.type, task.cost);
  }
  await recordCompletionWebhook(tx, row);
  return row;
}
