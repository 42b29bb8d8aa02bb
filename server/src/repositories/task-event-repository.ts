/**
 * @module Reads for the live task streams (GET /tasks/{task_id}/events, GET /events): tasks
 * with their version (tasks.event_seq, migration 20261128001100_task_events.sql), always
 * scoped by the caller's user id. Parameters only.
 */
import type { Queryable } from '@aim/supabase/db';
import { TASK_COLUMNS, type TaskRow } from './task-repository.ts';

/** The channel the tasks' triggers announce a new version on (payload `<task id>:<event_seq>:<user id>`). */
export const TASK_EVENT_CHANNEL = 'aim_task_events';

/** A task and its version: the SSE event id of its current state. */
export interface VersionedTaskRow extends TaskRow {
  event_seq: number;
}

// only tasks created this recently can still change (queue deadline and job time limits are far shorter);
// bounds the catch-up read of an account to a range of its (user_id, created_at) index
const CATCH_UP_WINDOW = '2 days';

// Versions are drawn when a change is made and become visible when it commits, so across tasks
// they can commit out of order: a client that saw version 102 may not yet have seen 101, whose
// transaction was still open. A catch-up therefore also re-reads what changed this recently
// (worker transactions last milliseconds); a client may get such a task's latest state twice.
const RESUME_OVERLAP = '30 seconds';

type Raw = TaskRow & { event_seq: string };
const versioned = (rows: Raw[]): VersionedTaskRow[] => rows.map((row) => ({ ...row, event_seq: Number(row.event_seq) }));

export function taskEventRepository(q: Queryable) {
  return {
    /** These tasks of this user, live or archived (an archived task keeps version 0); others' are left out. */
    async findOwnVersioned(userId: string, taskIds: readonly string[]): Promise<VersionedTaskRow[]> {
      const { rows } = await q.query<Raw>(
        `select ${TASK_COLUMNS}, event_seq::text as event_seq, false as archived from public.tasks where id = any($1::uuid[]) and user_id = $2
         union all
         select ${TASK_COLUMNS}, event_seq::text as event_seq, true as archived from public.tasks_archive_1 a
          where a.id = any($1::uuid[]) and a.user_id = $2 and not exists (select 1 from public.tasks t where t.id = a.id)`,
        [taskIds, userId],
      );
      return versioned(rows);
    },

    /**
     * The user's tasks whose version is above `sinceSeq` (what a reconnecting account stream
     * missed), and those changed within RESUME_OVERLAP (a lower version may have committed after
     * a higher one), oldest version first, at most `limit`; only `types` when given.
     */
    async findChangedSince(userId: string, sinceSeq: number, types: readonly string[] | null, limit: number): Promise<VersionedTaskRow[]> {
      const { rows } = await q.query<Raw>(
        `select ${TASK_COLUMNS}, event_seq::text as event_seq, false as archived from public.tasks
          where user_id = $1 and created_at > now() - interval '${CATCH_UP_WINDOW}'
            and (event_seq > $2::bigint or updated_at > now() - interval '${RESUME_OVERLAP}')
            and ($3::text[] is null or type = any($3::text[]))
          order by event_seq limit $4`,
        [userId, sinceSeq, types, limit],
      );
      return versioned(rows);
    },
  };
}
