/**
 * @module POST /fetch: one of the caller's own tasks (live or archived) in the v1 view; and
 * what POST /fetch-many and the webhook bodies share with it (`viewsOf`, `loadTaskView`).
 */
import type { Db, Queryable } from '@aim/supabase/db';
import { ApiError } from '../../errors.ts';
import { jobRepository } from '../../repositories/job-repository.ts';
import { taskRepository, type TaskRow } from '../../repositories/task-repository.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { withQueuePosition } from './queue-position.ts';
import { TASK_NOT_FOUND_MESSAGE } from './submit-from-parent.ts';
import { isTerminal, toTaskView, type TaskView } from './task-view.ts';

/** The views of `rows`, with what the queue knows (a job waiting for a retry). */
export async function viewsOf(q: Queryable, rows: TaskRow[]): Promise<TaskView[]> {
  const active = rows.filter((row) => !isTerminal(row.status)).map((row) => row.id);
  const retrying = await jobRepository(q).retryingTaskIds(active);
  return rows.map((row) => toTaskView(row, { retrying: retrying.has(row.id) }));
}

/** POST /fetch: one of the caller's own tasks, live or archived; 404 for anyone else's. */
export async function fetchTask(deps: { db: Db }, account: Account, taskId: string): Promise<TaskView> {
  const row = await taskRepository(deps.db).findOwn(account.id, taskId);
  if (!row) throw new ApiError('not_found', TASK_NOT_FOUND_MESSAGE);
  const [view] = await viewsOf(deps.db, [row]);
  // a queued task also says where it stands in line (additive fields, services/tasks/queue-position.ts)
  return withQueuePosition(deps.db, view);
}

/** The view of a task as POST /fetch would answer it right now (for webhook bodies); undefined when it is gone. */
export async function loadTaskView(q: Queryable, taskId: string): Promise<TaskView | undefined> {
  const row = await taskRepository(q).findById(taskId);
  return row ? (await viewsOf(q, [row]))[0] : undefined;
}
