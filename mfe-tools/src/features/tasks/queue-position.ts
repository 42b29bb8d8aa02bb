// A queued task's place in line (POST /fetch's queue_position, server docs: "Queue position"):
// read through the API client, shown beside the progress as 'In queue (n ahead)'. Free of React.
import type { TypedApi } from '@aim/shared-kit/api';

/** Where a queued task stands: the jobs of its engine that start before it, and the server's estimate. */
export type QueuePosition = { ahead: number; estimatedStartAt: string | null };

export type QueuePositionReader = (taskId: string, signal: AbortSignal) => Promise<QueuePosition | null>;

/** Row statuses of a task waiting in its queue (spec §4's pending, and queued). */
export function isQueuedStatus(status: string): boolean {
  return status === 'pending' || status === 'queued';
}

/** The text beside the progress of a queued task. */
export function queueLabel(ahead: number): string {
  return `In queue (${ahead} ahead)`;
}

/** POST /fetch for its queue fields; null once the task no longer waits (or the server does not say). */
export async function readQueuePosition(api: TypedApi, taskId: string, signal: AbortSignal): Promise<QueuePosition | null> {
  // polled in the background: a failed read shows no toast, the next one may work
  const task = await api.post('/fetch', { body: { task_id: taskId }, toastOnError: false, signal });
  return typeof task?.queue_position === 'number' ? { ahead: task.queue_position, estimatedStartAt: task.estimated_start_at ?? null } : null;
}
