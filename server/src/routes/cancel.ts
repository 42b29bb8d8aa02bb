/**
 * @module POST /cancel: stop one of the caller's pending or processing tasks
 * (services/tasks/cancel-task.ts). The answer is the task as POST /fetch shows it: `failed`,
 * message 'Cancelled', `result.cancelled: true`, refunded.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { ApiDeps } from '../context.ts';
import { apiKeyAuth } from '../middleware/api-key-auth/index.ts';
import { createRouter } from '../openapi/router.ts';
import { apiKeySecurity, authedErrorResponses, bodyErrorResponses, jsonBody, jsonResponse } from '../openapi/schemas.ts';
import { CANCEL_FINISHED_MESSAGE, cancelTask } from '../services/tasks/cancel-task.ts';
import type { EngineRegistry } from '../services/tasks/engine-registry.ts';
import { EXAMPLE_TASK_ID, errorRef, TaskId, TaskView } from './task-schemas.ts';

const CancelRequest = z
  .object({ task_id: TaskId('One of your pending or processing tasks.') })
  .openapi('CancelRequest', { example: { task_id: EXAMPLE_TASK_ID } });

export function cancelRoutes(deps: ApiDeps & { engines: EngineRegistry }) {
  const router = createRouter();

  // POST /cancel – stop a queued or running task and refund it
  router.openapi(
    createRoute({
      method: 'post',
      path: '/cancel',
      tags: ['Tasks'],
      summary: 'Cancel a task',
      description:
        'Stops one of your pending or processing tasks. A queued task is removed; a running one is stopped (the engine is aborted, a hosted prediction cancelled upstream where the upstream allows it). The task ends failed with message "Cancelled" and result.cancelled true, its credits are refunded in full, and its webhook is task.failed. A task that already finished keeps its result and its charge (409). Cancelling a cancelled task again answers 200 with the same task.',
      security: apiKeySecurity,
      middleware: apiKeyAuth(deps, 'generate'),
      request: { body: jsonBody(CancelRequest) },
      responses: {
        200: jsonResponse(TaskView, 'The cancelled task: status failed, message Cancelled, result.cancelled true, refund its cost.'),
        ...bodyErrorResponses,
        ...authedErrorResponses,
        404: errorRef('No task of yours has that id.', 'Task not found', 'not_found'),
        409: errorRef('The task has already finished or failed (other than by a cancel).', CANCEL_FINISHED_MESSAGE, 'conflict'),
      },
    }),
    async (c) => c.json(await cancelTask(deps, c.var.account, c.req.valid('json').task_id), 200),
  );

  return router;
}
