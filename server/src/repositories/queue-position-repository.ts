/**
 * @module Where a queued task stands in its job queue (POST /fetch's queue_position and
 * estimated_start_at): the jobs a claim would take before it, under the queue's fairness rules
 * (job-repository.ts FIFO_PICK / FAIR_PICK), and the recent job durations of its engine.
 * Read-only, parameters only; indexes: task_jobs_ready_idx / task_jobs_account_ready_idx (the
 * queued jobs), task_jobs_active_idx (the running ones), task_jobs_account_claimed_idx (when
 * each account was last served) and task_jobs_done_recent_idx (recent durations).
 */
import type { Queryable } from '@aim/supabase/db';
import type { ClaimFairness } from './job-repository.ts';

export interface QueueStanding {
  queue: string;
  /** Runnable jobs a claim takes before this one. */
  ahead: number;
  /** Jobs of the queue running now (live leases), across all workers. */
  running: number;
}

/** Queued runnable jobs before $1's in the queue, oldest first. */
const FIFO_AHEAD = `
  select count(*)::int from public.task_jobs j, me
   where j.queue = me.queue and j.state = 'queued' and j.run_at <= now() and j.task_id <> me.task_id
     and (j.run_at, j.created_at) < (me.run_at, me.created_at)`;

/**
 * By account turns, as FAIR_PICK orders them: each account's queued jobs get turns running+1,
 * running+2, …; lower turns first, then the account served least recently, then the older job.
 */
const FAIR_AHEAD = `
  with waiting as (
    select j.task_id, j.account_id, j.run_at, j.created_at,
           row_number() over (partition by j.account_id order by j.run_at, j.created_at) as rank
      from public.task_jobs j, me
     where j.queue = me.queue and j.state = 'queued' and (j.run_at <= now() or j.task_id = me.task_id)
  ),
  running as (
    select j.account_id, count(*) as n from public.task_jobs j, me
     where j.queue = me.queue and j.state = 'active' and j.lease_expires_at > now()
     group by j.account_id
  ),
  served as (
    select a.account_id,
           coalesce((select max(s.claimed_at) from public.task_jobs s, me
                      where s.queue = me.queue and s.account_id = a.account_id and s.claimed_at is not null), '-infinity') as served_at
      from (select distinct account_id from waiting) a
  ),
  turns as (
    select w.task_id, coalesce(r.n, 0) + w.rank as turn, s.served_at, w.run_at, w.created_at
      from waiting w
      left join running r on r.account_id is not distinct from w.account_id
      left join served s on s.account_id is not distinct from w.account_id
  )
  select count(*)::int from turns t, turns m, me
   where m.task_id = me.task_id and t.task_id <> me.task_id
     and (t.turn, t.served_at, t.run_at, t.created_at) < (m.turn, m.served_at, m.run_at, m.created_at)`;

export function queuePositionRepository(q: Queryable) {
  return {
    /** Where the task's job stands; undefined when it is not waiting in a queue (running, done, none). */
    async standingOf(taskId: string, fairness: ClaimFairness): Promise<QueueStanding | undefined> {
      const { rows } = await q.query<QueueStanding>(
        `with me as (select task_id, queue, account_id, run_at, created_at from public.task_jobs where task_id = $1 and state = 'queued')
         select me.queue,
                (${fairness.mode === 'account' ? FAIR_AHEAD : FIFO_AHEAD}) as ahead,
                (select count(*)::int from public.task_jobs j where j.queue = me.queue and j.state = 'active' and j.lease_expires_at > now()) as running
           from me`,
        [taskId],
      );
      return rows[0];
    },

    /** The mean run time in seconds of the queue's last `sample` finished jobs; null without any. */
    async recentJobSeconds(queue: string, sample: number): Promise<number | null> {
      const { rows } = await q.query<{ seconds: number | null }>(
        `select extract(epoch from avg(d))::float8 as seconds from (
           select updated_at - claimed_at as d from public.task_jobs
            where queue = $1 and state = 'done' and claimed_at is not null
            order by updated_at desc limit $2
         ) recent`,
        [queue, sample],
      );
      return rows[0]?.seconds ?? null;
    },
  };
}
