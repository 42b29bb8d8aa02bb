/**
 * @module Reading tasks back (APIFRAME v1): POST /fetch (one task) and POST /fetch-many (2–20
 * tasks), each task in the v1 view every webhook body also carries (services/tasks/task-view.ts),
 * plus its lineage: `parent_task_id` (in the view) and `child_task_ids` (added here, after
 * parent_task_id; fields are only ever added, so the v1 view stays drop-in compatible).
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { ApiDeps } from '../context.ts';
import { apiKeyAuth } from '../middleware/api-key-auth/index.ts';
import { apiKeySecurity, authedErrorResponses, bodyErrorResponses, jsonBody, jsonResponse } from '../openapi/schemas.ts';
import { createRouter } from '../openapi/router.ts';
import { taskRepository } from '../repositories/task-repository.ts';
import type { Account } from '../repositories/user-repository.ts';
import { FETCH_MANY_MAX, FETCH_MANY_MIN, fetchManyTasks } from '../services/tasks/fetch-many.ts';
import { fetchTask } from '../services/tasks/fetch-task.ts';
import type { TaskView as TaskViewShape } from '../services/tasks/task-view.ts';
import { EXAMPLE_PARENT_ID, EXAMPLE_TASK_ID, parentErrors, TaskId, TaskView } from './task-schemas.ts';

const FetchRequest = z.object({ task_id: TaskId('One of your tasks (live or archived).') }).openapi('FetchRequest', { example: { task_id: EXAMPLE_TASK_ID } });

const COUNT_MESSAGE = `Must hold ${FETCH_MANY_MIN} to ${FETCH_MANY_MAX} task ids`;

const FetchManyRequest = z
  .object({
    task_ids: z
      .array(TaskId('One of your tasks.'), { error: (issue) => (issue.input === undefined ? 'Required' : 'Must be an array of task ids') })
      .min(FETCH_MANY_MIN, COUNT_MESSAGE)
      .max(FETCH_MANY_MAX, COUNT_MESSAGE)
      .openapi({ description: `${FETCH_MANY_MIN} to ${FETCH_MANY_MAX} task ids; an id named twice is answered once.` }),
  })
  .openapi('FetchManyRequest', { example: { task_ids: [EXAMPLE_TASK_ID, EXAMPLE_PARENT_ID] } });

const FetchManyResponse = z
  .object({
    tasks: z.array(TaskView).openapi({
      description: 'Your tasks among those asked, in the order asked, each once. Ids of tasks that are not yours or do not exist are left out.',
    }),
  })
  .openapi('FetchManyResponse', {
    example: {
      tasks: [
        {
          task_id: EXAMPLE_TASK_ID,
          task_type: 'upscale#2',
          status: 'processing',
          percentage: '40',
          prompt: 'a lighthouse on a cliff at sunset',
          parent_task_id: EXAMPLE_PARENT_ID,
          child_task_ids: [],
          cost: 2,
          refund: 0,
          result: null,
          input_data: { index: 2, upscale_type: '1x' },
          archived: false,
          created_at: '2026-11-22T10:00:05.000Z',
          updated_at: '2026-11-22T10:00:06.000Z',
          expires_at: null,
        },
      ],
    },
  });

type WithChildren = TaskViewShape & { child_task_ids: string[] };

/**
 * The ids of the tasks made from each of `taskIds` (the caller's own only), keyed by the id as
 * the database prints it. Read alongside the tasks themselves: an id that is not the caller's
 * task simply has no children.
 */
function childIdsOf(deps: ApiDeps, account: Account, taskIds: readonly string[]): Promise<Map<string, string[]>> {
  return taskRepository(deps.db).findOwnChildIds(
    account.id,
    taskIds.map((id) => id.toLowerCase()),
  );
}

/** A view with its children's ids, right after parent_task_id. */
function withChildren(view: TaskViewShape, children: Map<string, string[]>): WithChildren {
  const { cost, refund, result, input_data, archived, created_at, updated_at, expires_at, ...head } = view;
  return { ...head, child_task_ids: children.get(view.task_id) ?? [], cost, refund, result, input_data, archived, created_at, updated_at, expires_at };
}

export function fetchRoutes(deps: ApiDeps) {
  const router = createRouter();
  // read, or generate: a key that submits tasks must be able to poll them (docs/decisions/0013-named-scoped-api-keys.md)
  const authed = { security: apiKeySecurity, middleware: apiKeyAuth(deps, ['read', 'generate']) };

  // POST /fetch – status and result of one of the caller's tasks
  router.openapi(
    createRoute({
      method: 'post',
      path: '/fetch',
      tags: ['Tasks'],
      summary: 'Fetch a task',
      description:
        'Status, progress and result of one of your tasks, live or archived, in the APIFRAME v1 shape: poll until status is finished or failed. Webhook bodies are this same view (without child_task_ids). Its lineage: parent_task_id (the task it was made from) and child_task_ids (the tasks made from it, oldest first).',
      ...authed,
      request: { body: jsonBody(FetchRequest) },
      responses: {
        200: jsonResponse(TaskView, 'The task.'),
        ...bodyErrorResponses,
        ...authedErrorResponses,
        404: parentErrors[404],
      },
    }),
    async (c) => {
      const { task_id } = c.req.valid('json');
      const [task, children] = await Promise.all([fetchTask(deps, c.var.account, task_id), childIdsOf(deps, c.var.account, [task_id])]);
      return c.json(withChildren(task, children), 200);
    },
  );

  // POST /fetch-many – several of the caller's tasks at once
  router.openapi(
    createRoute({
      method: 'post',
      path: '/fetch-many',
      tags: ['Tasks'],
      summary: 'Fetch several tasks',
      description: `${FETCH_MANY_MIN} to ${FETCH_MANY_MAX} of your tasks at once, each as POST /fetch shows it (child_task_ids included). Unknown ids and other accounts' tasks are left out rather than refused.`,
      ...authed,
      request: { body: jsonBody(FetchManyRequest) },
      responses: {
        200: jsonResponse(FetchManyResponse, 'The tasks found.'),
        ...bodyErrorResponses,
        ...authedErrorResponses,
      },
    }),
    async (c) => {
      const { task_ids } = c.req.valid('json');
      const [{ tasks }, children] = await Promise.all([fetchManyTasks(deps, c.var.account, task_ids), childIdsOf(deps, c.var.account, task_ids)]);
      return c.json({ tasks: tasks.map((task) => withChildren(task, children)) }, 200);
    },
  );

  return router;
}
