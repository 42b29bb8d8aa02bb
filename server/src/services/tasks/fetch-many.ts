import type { Db } from '@aim/supabase/db';
import { taskRepository } from '../../repositories/task-repository.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { viewsOf } from './fetch-task.ts';
import type { TaskView } from './task-view.ts';

/** How many ids one POST /fetch-many takes (v1: 2 to 20). */
export const FETCH_MANY_MIN = 2;
export const FETCH_MANY_MAX = 20;

/**
 * POST /fetch-many: the caller's tasks among `taskIds` (2–20, checked by the route), live or
 * archived, in the order asked, each once however often it is named; someone else's and unknown
 * ids are left out (no 404), so the answer may hold fewer tasks than were asked for.
 */
export async function fetchManyTasks(deps: { db: Db }, account: Account, taskIds: readonly string[]): Promise<{ tasks: TaskView[] }> {
  // ids are compared as the database prints them (lower case)
  const wanted = [...new Set(taskIds.map((id) => id.toLowerCase()))];
  const rows = await taskRepository(deps.db).findOwnMany(account.id, wanted);
  const byId = new Map((await viewsOf(deps.db, rows)).map((view) => [view.task_id, view]));
  return { tasks: wanted.flatMap((id) => byId.get(id) ?? []) };
}
