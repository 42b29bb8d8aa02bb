/**
 * @module The bridge from the task worker's events to webhook deliveries: every progress step
 * and the completion of a task go to the request's `webhook_url` (with its secret) or else the
 * account's webhook URL. Runs wherever a worker runs (embedded launcher, worker process).
 */
import type { Queryable } from '@aim/supabase/db';
import type { Logger } from '../logger.ts';
import { taskRepository } from '../repositories/task-repository.ts';
import { userRepository } from '../repositories/user-repository.ts';
import type { TaskEventKind, TaskEvents } from '../services/tasks/task-events.ts';
import type { WebhookEvent } from './delivery-repository.ts';
import type { WebhookService } from './webhook-service.ts';
import { resolveWebhookTarget } from './webhook-target.ts';

const EVENT: Record<TaskEventKind, WebhookEvent> = {
  progress: 'task.progress',
  success: 'task.completed',
  failed: 'task.failed',
};

/** Subscribes; answers the unsubscribe function. */
export function sendTaskWebhooks(deps: { db: Queryable; events: Pick<TaskEvents, 'onTaskEvent'>; webhooks: WebhookService; log: Logger }) {
  const tasks = taskRepository(deps.db);
  const users = userRepository(deps.db);
  return deps.events.onTaskEvent(async (task, kind, owner) => {
    const perTask = await tasks.findWebhook(task.task_id);
    const target = resolveWebhookTarget({
      requestUrl: perTask?.url,
      requestSecret: perTask?.secret,
      accountUrl: perTask?.url ? null : await users.findWebhookUrl(owner.userId),
    });
    if (!target) return;
    await deps.webhooks.enqueue({ userId: owner.userId, taskId: task.task_id, url: target.url, secret: target.secret, event: EVENT[kind], payload: task });
  });
}
