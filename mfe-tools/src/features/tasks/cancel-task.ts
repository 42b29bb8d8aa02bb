import type { TypedApi } from '@aim/shared-kit/api';

/**
 * POST /cancel {task_id}: stops a pending or processing task; it then ends failed with the
 * message 'Cancelled' and its credits are refunded (the row's update arrives through realtime).
 * An error (the task finished meanwhile: 409) is toasted by the API client with the server's text.
 */
export async function cancelTask(api: TypedApi, taskId: string): Promise<void> {
  await api.post('/cancel', { body: { task_id: taskId } });
}
