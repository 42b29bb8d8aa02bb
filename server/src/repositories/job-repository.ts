/**
 * @module public.task_jobs: the job queue's SQL (one job per task). Claims use
 * `FOR UPDATE SKIP LOCKED` so concurrent workers never take the same job; a cluster-wide
 * cap of a queue (or the per-account cap) is held under a per-queue advisory lock.
 * Every write by a worker after its claim is fenced by the claim's lease token. Workers
 * register the queues they serve (public.task_workers), so the stuck-job sweep can tell a
 * job nobody will ever take.
 */
import type { Queryable } from '@aim/supabase/db';

/** The pg_notify channel a new job is announced on (payload: its queue). */
export const JOB_CHANNEL = 'aim_task_jobs';

export interface JobRow {
  task_id: string;
  queue: string;
  state: 'queued' | 'active' | 'done' | 'failed';
  attempts: number;
  max_attempts: number;
  lease_token: string;
  upstream_id: string | null;
}

const JOB_COLUMNS = 'task_id, queue, state, attempts, max_attempts, lease_token, upstream_id';

/** The pg_notify channel a cancelled task is announced on (payload: its id), for the worker running it. */
export const CANCEL_CHANNEL = 'aim_task_cancels';

/** What last_error says on a job its owner cancelled (POST /cancel). */
const CANCELLED_ERROR = 'cancelled by its owner';

/** Why the sweep gave up on a job: no live worker serves its queue, or it waited past the deadline. */
export type StuckReason = 'no_worker' | 'queue_timeout';

export interface StuckJob {
  task_id: string;
  queue: string;
  reason: StuckReason;
}

/** How a claim orders the runnable jobs of a queue among accounts (workers/queue-fairness.ts). */
export interface ClaimFairness {
  /** 'fifo': oldest job first, whoever owns it. 'account': accounts take turns. */
  mode: 'fifo' | 'account';
  /** 'account' only: an account never holds more live leases of one queue than this (null: no cap). */
  maxRunningPerAccount?: number | null;
}

/** Runnable jobs, oldest first ($1 queue, $2 how many, $5 task ids to leave alone). */
const FIFO_PICK = `
  picked as (
    select task_id from public.task_jobs
     where queue = $1
       and ((state = 'queued' and run_at <= now())
         or (state = 'active' and lease_expires_at <= now() and attempts < max_attempts))
       and not (task_id = any($5::uuid[]))
     order by run_at, created_at
     limit $2
     for update skip locked
  )`;

/**
 * Runnable jobs by account turns (same parameters, and $6: the per-account cap, or null).
 * Each account's next jobs, in FIFO order, get turns running+1, running+2, … (running: its
 * live leases in the queue); lower turns go first; among equal turns, the account served
 * least recently (its latest claimed_at), then the older job. So an account with nothing
 * running goes ahead of a backlog being worked on, and accounts with backlogs alternate.
 *
 * Index-driven whatever the backlog: `accounts` walks the accounts with queued jobs, one
 * probe of task_jobs_account_ready_idx each (a skip scan); `heads` reads up to $2 jobs and
 * one claimed_at (task_jobs_account_claimed_idx) per account; live and expired leases come
 * from task_jobs_active_idx. Rows are locked only in `picked`, SKIP LOCKED, where the
 * runnable condition is checked again on the locked row version.
 */
const FAIR_PICK = `
  accounts (account_id) as (
    (select account_id from public.task_jobs
      where queue = $1 and state = 'queued' and account_id is not null
      order by account_id limit 1)
    union all
    select (select n.account_id from public.task_jobs n
             where n.queue = $1 and n.state = 'queued' and n.account_id > a.account_id
             order by n.account_id limit 1)
      from accounts a where a.account_id is not null
  ),
  heads as (
    select h.task_id, h.account_id, h.run_at, h.created_at
      from accounts a
     cross join lateral (
       select task_id, account_id, run_at, created_at from public.task_jobs
        where queue = $1 and state = 'queued' and account_id = a.account_id and run_at <= now()
        order by run_at, created_at
        limit $2
     ) h
    union all
    select task_id, account_id, run_at, created_at from public.task_jobs
     where queue = $1 and state = 'active' and lease_expires_at <= now() and attempts < max_attempts
  ),
  turns as (
    select h.task_id, h.run_at, h.created_at,
           coalesce(r.n, 0) + row_number() over (partition by h.account_id order by h.run_at, h.created_at) as turn,
           (select max(s.claimed_at) from public.task_jobs s
             where s.queue = $1 and s.account_id = h.account_id and s.claimed_at is not null) as served_at
      from heads h
      left join (
        select account_id, count(*) as n from public.task_jobs
         where queue = $1 and state = 'active' and lease_expires_at > now()
         group by account_id
      ) r on r.account_id = h.account_id
  ),
  picked as (
    select j.task_id from public.task_jobs j join turns t on t.task_id = j.task_id
     where j.task_id = any (array(select task_id from turns))
       and j.queue = $1
       and ((j.state = 'queued' and j.run_at <= now())
         or (j.state = 'active' and j.lease_expires_at <= now() and j.attempts < j.max_attempts))
       and not (j.task_id = any($5::uuid[]))
       and ($6::int is null or t.turn <= $6::int)
     order by t.turn, t.served_at nulls first, t.run_at, t.created_at
     limit $2
     for update of j skip locked
  )`;

export function jobRepository(q: Queryable) {
  // A new task's job is inserted (task_id, queue, max_attempts) and announced on JOB_CHANNEL
  // by public.submit_task, in the statement that creates the task (taskRepository.submit).
  return {
    /**
     * Claims up to `wanted` runnable jobs of `queue` (due queued jobs, and active jobs whose
     * lease expired with attempts left). The caller sizes `wanted` by its own free slots (a
     * worker's limit is per process); `clusterLimit`, when set, also caps the live leases of
     * the queue across all workers (an upstream's rate limit). Run inside a transaction: a
     * cap (cluster or per account) is held under a per-queue advisory lock until commit;
     * without one, SKIP LOCKED alone keeps claims apart and workers never wait on each other.
     * The order is first in, first out (`fairness.mode` 'fifo'), or by account turns
     * ('account', see FAIR_PICK); FIFO within one account either way.
     */
    async claim(opts: {
      queue: string;
      wanted: number;
      clusterLimit: number | null;
      workerId: string;
      leaseSeconds: number;
      exclude: string[];
      fairness?: ClaimFairness;
    }): Promise<JobRow[]> {
      const fair = opts.fairness?.mode === 'account';
      const capped = opts.clusterLimit !== null || (fair && opts.fairness?.maxRunningPerAccount != null);
      if (capped) await q.query(`select pg_advisory_xact_lock(hashtext('aim_task_jobs:' || $1))`, [opts.queue]);
      let take = opts.wanted;
      if (opts.clusterLimit !== null) {
        // expired leases (a dead worker's) never count: their jobs are runnable again
        const { rows: busy } = await q.query<{ n: number }>(
          `select count(*)::int as n from public.task_jobs where queue = $1 and state = 'active' and lease_expires_at > now()`,
          [opts.queue],
        );
        take = Math.min(take, opts.clusterLimit - busy[0].n);
      }
      if (take <= 0) return [];
      const { rows } = await q.query<JobRow>(
        `with recursive ${fair ? FAIR_PICK : FIFO_PICK}
         update public.task_jobs j
            set state = 'active', attempts = j.attempts + 1, lease_token = gen_random_uuid(), locked_by = $3,
                lease_expires_at = now() + make_interval(secs => $4), claimed_at = now(), updated_at = now()
           from picked where j.task_id = picked.task_id
         returning ${JOB_COLUMNS.split(', ')
           .map((c) => `j.${c}`)
           .join(', ')}`,
        [opts.queue, take, opts.workerId, opts.leaseSeconds, opts.exclude, ...(fair ? [opts.fairness?.maxRunningPerAccount ?? null] : [])],
      );
      return rows;
    },

    /**
     * Extends every lease a worker holds, in one statement (its heartbeat); answers the lease
     * tokens still held, so the worker can abandon the jobs it lost (expired and taken over).
     */
    async heartbeatWorker(workerId: string, leaseSeconds: number): Promise<Set<string>> {
      const { rows } = await q.query<{ lease_token: string }>(
        `update public.task_jobs set lease_expires_at = now() + make_interval(secs => $2), updated_at = now()
          where locked_by = $1 and state = 'active' returning lease_token`,
        [workerId, leaseSeconds],
      );
      return new Set(rows.map((r) => r.lease_token));
    },

    /**
     * Gives a claimed job back untouched (its worker is shutting down): runnable at once, in
     * its old place in the queue (run_at is kept), the claim's attempt and its claimed_at undone.
     */
    async release(taskId: string, leaseToken: string): Promise<boolean> {
      const { rows } = await q.query(
        `update public.task_jobs
            set state = 'queued', attempts = greatest(attempts - 1, 0), claimed_at = null,
                lease_token = null, lease_expires_at = null, locked_by = null, updated_at = now()
          where task_id = $1 and lease_token = $2 and state = 'active' returning task_id`,
        [taskId, leaseToken],
      );
      return rows.length > 0;
    },

    /** Extends a lease; false when the lease is no longer this claim's (expired and taken). */
    async heartbeat(taskId: string, leaseToken: string, leaseSeconds: number): Promise<boolean> {
      const { rows } = await q.query(
        `update public.task_jobs set lease_expires_at = now() + make_interval(secs => $3), updated_at = now()
          where task_id = $1 and lease_token = $2 and state = 'active' returning task_id`,
        [taskId, leaseToken, leaseSeconds],
      );
      return rows.length > 0;
    },

    async setUpstreamId(taskId: string, leaseToken: string, upstreamId: string): Promise<void> {
      await q.query(`update public.task_jobs set upstream_id = $3, updated_at = now() where task_id = $1 and lease_token = $2 and state = 'active'`, [
        taskId,
        leaseToken,
        upstreamId,
      ]);
    },

    /** Ends a claim as done or failed; false when the lease was lost (someone else owns the job). */
    async finish(taskId: string, leaseToken: string, state: 'done' | 'failed', error?: string): Promise<boolean> {
      const { rows } = await q.query(
        `update public.task_jobs set state = $3, last_error = coalesce($4, last_error), lease_token = null, lease_expires_at = null, updated_at = now()
          where task_id = $1 and lease_token = $2 and state = 'active' returning task_id`,
        [taskId, leaseToken, state, error ?? null],
      );
      return rows.length > 0;
    },

    /** Puts a claimed job back to run again after `delaySeconds` (a failed attempt: the back of the queue). */
    async retry(taskId: string, leaseToken: string, delaySeconds: number, error: string | null): Promise<boolean> {
      const { rows } = await q.query(
        `update public.task_jobs
            set state = 'queued', run_at = now() + make_interval(secs => $3), last_error = coalesce($4, last_error),
                lease_token = null, lease_expires_at = null, locked_by = null, updated_at = now()
          where task_id = $1 and lease_token = $2 and state = 'active' returning task_id`,
        [taskId, leaseToken, delaySeconds, error],
      );
      return rows.length > 0;
    },

    /**
     * Which of these tasks wait for another attempt: their job is back in the queue after an
     * attempt (a retryable failure; a shutdown that gave the attempt back leaves 0 and is not one).
     */
    async retryingTaskIds(taskIds: readonly string[]): Promise<Set<string>> {
      if (taskIds.length === 0) return new Set();
      const { rows } = await q.query<{ task_id: string }>(
        `select task_id from public.task_jobs where task_id = any($1::uuid[]) and state = 'queued' and attempts > 0`,
        [taskIds],
      );
      return new Set(rows.map((r) => r.task_id));
    },

    /**
     * Locks a task's job for a cancel (services/tasks/cancel-task.ts) and answers its state: a
     * worker's settlement of the same job waits for the cancel (and then finds it over), or the
     * cancel waits for the settlement. Undefined when the task has no job.
     */
    async lockForCancel(taskId: string): Promise<Pick<JobRow, 'state' | 'queue' | 'upstream_id'> | undefined> {
      const { rows } = await q.query<Pick<JobRow, 'state' | 'queue' | 'upstream_id'>>(
        'select state, queue, upstream_id from public.task_jobs where task_id = $1 for update',
        [taskId],
      );
      return rows[0];
    },

    /**
     * Ends a queued or running job as cancelled (its lease, if any, is no longer anyone's: every
     * later write of the worker running it is fenced out) and tells that worker, in whatever
     * process, on CANCEL_CHANNEL (delivered at commit).
     */
    async cancel(taskId: string): Promise<void> {
      await q.query(
        `update public.task_jobs
            set state = 'failed', last_error = $2, lease_token = null, lease_expires_at = null, locked_by = null, updated_at = now()
          where task_id = $1 and state in ('queued', 'active')`,
        [taskId, CANCELLED_ERROR],
      );
      await q.query('select pg_notify($1, $2)', [CANCEL_CHANNEL, taskId]);
    },

    /** Which of these tasks' jobs were cancelled (a worker that missed the notification finds out at its heartbeat). */
    async cancelledAmong(taskIds: readonly string[]): Promise<Set<string>> {
      if (taskIds.length === 0) return new Set();
      const { rows } = await q.query<{ task_id: string }>(
        `select task_id from public.task_jobs where task_id = any($1::uuid[]) and state = 'failed' and last_error = $2`,
        [taskIds, CANCELLED_ERROR],
      );
      return new Set(rows.map((r) => r.task_id));
    },

    /** Records that a worker is alive and which queues it claims from (start, then periodically). */
    async registerWorker(workerId: string, queues: readonly string[]): Promise<void> {
      await q.query(
        `insert into public.task_workers (id, queues) values ($1, $2::text[])
         on conflict (id) do update set queues = excluded.queues, seen_at = now()`,
        [workerId, queues],
      );
    },

    /** A worker stopping gracefully. */
    async unregisterWorker(workerId: string): Promise<void> {
      await q.query('delete from public.task_workers where id = $1', [workerId]);
    },

    /** Forgets workers unseen for `seconds` (crashed ones never unregister). */
    async pruneWorkers(seconds: number): Promise<void> {
      await q.query('delete from public.task_workers where seen_at < now() - make_interval(secs => $1)', [seconds]);
    },

    /**
     * Ends, as failed, up to `limit` jobs nobody will run: runnable (queued, or active with an
     * expired lease) for `unservedSeconds` while no worker seen in the last `workerTtlSeconds`
     * serves their queue (`no_worker`), or queued and runnable for `deadlineSeconds`
     * (`queue_timeout`). Run inside a transaction that then settles their tasks: the rows stay
     * locked (SKIP LOCKED: concurrent sweeps and claims never take the same job) until commit.
     */
    async failStuck(opts: { deadlineSeconds: number; unservedSeconds: number; workerTtlSeconds: number; limit: number }): Promise<StuckJob[]> {
      const { rows } = await q.query<StuckJob>(
        `with stuck as (
           select j.task_id,
                  case when s.unserved then 'no_worker' else 'queue_timeout' end as reason
             from public.task_jobs j
             cross join lateral (
               select not exists (
                 select 1 from public.task_workers w
                  where j.queue = any (w.queues) and w.seen_at > now() - make_interval(secs => $3)
               ) as unserved
             ) s
            where (j.state = 'queued' and j.run_at <= now() - make_interval(secs => $1))
               or (s.unserved and ((j.state = 'queued' and j.run_at <= now() - make_interval(secs => $2))
                                or (j.state = 'active' and j.lease_expires_at <= now() - make_interval(secs => $2))))
            order by j.run_at, j.created_at
            limit $4
            for update of j skip locked
         )
         update public.task_jobs j
            set state = 'failed', lease_token = null, lease_expires_at = null, locked_by = null, updated_at = now(),
                last_error = case stuck.reason when 'no_worker' then 'no live worker serves queue ' || j.queue
                                               else 'queued past the deadline' end
           from stuck where j.task_id = stuck.task_id
         returning j.task_id, j.queue, stuck.reason`,
        [opts.deadlineSeconds, opts.unservedSeconds, opts.workerTtlSeconds, opts.limit],
      );
      return rows;
    },

    /**
     * Takes over the jobs whose worker died on their last attempt (lease expired, no
     * attempts left) so they can be failed; answers them with a fresh lease token.
     */
    async claimExhausted(queue: string, workerId: string, leaseSeconds: number): Promise<JobRow[]> {
      const { rows } = await q.query<JobRow>(
        `with picked as (
           select task_id from public.task_jobs
            where queue = $1 and state = 'active' and lease_expires_at <= now() and attempts >= max_attempts
            limit 50 for update skip locked
         )
         update public.task_jobs j set lease_token = gen_random_uuid(), locked_by = $2,
                lease_expires_at = now() + make_interval(secs => $3), updated_at = now()
           from picked where j.task_id = picked.task_id
         returning ${JOB_COLUMNS.split(', ')
           .map((c) => `j.${c}`)
           .join(', ')}`,
        [queue, workerId, leaseSeconds],
      );
      return rows;
    },
  };
}
