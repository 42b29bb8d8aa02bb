import type { Db } from '@aim/supabase/db';
import { ApiError } from '../../errors.ts';
import { taskRepository } from '../../repositories/task-repository.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { TASK_NOT_FOUND_MESSAGE } from './submit-from-parent.ts';
import { toTaskView, type TaskView } from './task-view.ts';

/** POST /fetch: one of the caller's own tasks, live or archived; 404 for anyone else's. */
export async function fetchTask(deps: { db: Db }, account: Account, taskId: string): Promise<TaskView> {
  const row = await taskRepository(deps.db).findOwn(account.id, taskId);
  if (!row) throw new ApiError('not_found', TASK_NOT_FOUND_MESSAGE);
  return toTaskView(row);
}
