/**
 * @module The bridge from tasks to webhook deliveries: each event goes to the request's
 * `webhook_url` (with its secret) or else the account's webhook URL. Every body is the task
 * as POST /fetch answers it at that moment (the v1 view, `toTaskView`); the event type travels
 * in the `x-webhook-event` header. The completion (`task.completed` / `task.failed`) is recorded
 * by the settlement itself, in its transaction (`recordCompletionWebhook`), so it survives a
 * crash right after the commit; progress steps are best-effort, enqueued from the worker's
 * events (`sendTaskWebhooks`, wherever a worker runs: embedded launcher, worker process), each
 * with the task read again so its body is exactly what /fetch says then (a job waiting for a
 * retry included).
 */
import type { Queryable } from '@aim/supabase/db';
import type { Logger } from '../logger.ts';
import { taskRepository, type TaskRow } from '../repositories/task-repository.ts';
import { userRepository } from '../repositories/user-repository.ts';
import type { TaskEvents } from '../services/tasks/task-events.ts';
import { loadTaskView } from '../services/tasks/fetch-task.ts';
import { toTaskView } from '../services/tasks/task-view.ts';
import { recordDelivery } from './record-delivery.ts';
import type { WebhookService } from './webhook-service.ts';
import { isEventWanted } from './webhook-events.ts';
import { resolveWebhookTarget, type WebhookTarget } from './webhook-target.ts';

/**
 * Where the task's `event` goes, or null when nowhere: no URL, or an event its filter leaves out
 * (the request's `webhook_events`, else the account's; webhook-events.ts), checked here so
 * nothing is stored or sent for it.
 */
async function targetOf(q: Queryable, taskId: string, userId: string, event: string): Promise<WebhookTarget | null> {
  const perTask = await taskRepository(q).findWebhook(taskId);
  const account = perTask?.url && perTask.events ? null : await userRepository(q).findWebhookSettings(userId);
  if (!isEventWanted(event, { request: perTask?.events, account: account?.events })) return null;
  return resolveWebhookTarget({
    requestUrl: perTask?.url,
    requestSecret: perTask?.secret,
    accountUrl: perTask?.url ? null : account?.url,
  });
}

/**
 * Records the final webhook of a task that has just become terminal (`row` as the
 * settlement wrote it, its /fetch view as the body), in the settlement's transaction `tx`. At
 * most one per task and url.
 */
export async function recordCompletionWebhook(tx: Queryable, row: TaskRow): Promise<void> {
  const event = row.status === 'failed' ? 'task.failed' : 'task.completed';
  const target = await targetOf(tx, row.id, row.user_id, event);
  if (!target) return;
  await recordDelivery(tx, { userId: row.user_id, taskId: row.id, url: target.url, secret: target.secret, event, payload: toTaskView(row) }, new Date());
}

/** Subscribes; answers the unsubscribe function. */
export function sendTaskWebhooks(deps: { db: Queryable; events: Pick<TaskEvents, 'onTaskEvent'>; webhooks: WebhookService; log: Logger }) {
  return deps.events.onTaskEvent(async (task, kind, owner) => {
    // the settlement already wrote the completion; send it now rather than at the next poll
    if (kind !== 'progress') return deps.webhooks.wake();
    const target = await targetOf(deps.db, task.task_id, owner.userId, 'task.progress');
    if (!target) return;
    const payload = await loadTaskView(deps.db, task.task_id);
    if (!payload) return;
    await deps.webhooks.enqueue({ userId: owner.userId, taskId: task.task_id, url: target.url, secret: target.secret, event: 'task.progress', payload });
  });
}
