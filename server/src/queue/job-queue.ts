/**
 * @module The task job queue on Postgres (table public.task_jobs; PGlite and PostgreSQL):
 * claims (SKIP LOCKED; an optional cluster-wide cap per queue), short leases kept alive by
 * one heartbeat per worker and recovered when they expire (a crashed worker: its jobs are
 * runnable again as soon as the lease runs out), retries with exponential backoff, a
 * wake-up on new jobs through LISTEN/NOTIFY (polling covers a missed notification), and the
 * registration of the queues each live worker serves (read by the stuck-task sweep).
 */
import type { Db } from '@aim/supabase/db';
import { type ClaimFairness, JOB_CHANNEL, jobRepository, type JobRow } from '../repositories/job-repository.ts';

export type { JobRow } from '../repositories/job-repository.ts';

/** A worker renews its registration this often… */
export const WORKER_REFRESH_MS = 15_000;
/** …and counts as live (serving its queues) this long after the last renewal. */
export const WORKER_TTL_MS = 60_000;

export interface JobQueueOptions {
  workerId: string;
  /** How long a claim stays valid without a heartbeat (WORKER_LEASE_MS). */
  leaseMs: number;
  /** First retry delay; doubles per attempt. */
  backoffMs: number;
  maxBackoffMs: number;
  /** How claims share a queue between accounts; FIFO when omitted (workers/queue-fairness.ts). */
  fairness?: ClaimFairness;
}

/**
 * Delay before retry number `attempt` (1-based): base · 2^(attempt-1), capped, with up to
 * 20% jitter so jobs that failed together do not retry together.
 */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential * (0.8 + 0.2 * random()));
}

export function createJobQueue(db: Db, options: JobQueueOptions) {
  const leaseSeconds = options.leaseMs / 1000;
  const jobs = jobRepository(db);
  return {
    /**
     * Claims up to `wanted` jobs of `queue` (this worker's free slots), never more than
     * `clusterLimit` live at once across all workers when that is set.
     */
    claim(queue: string, wanted: number, clusterLimit: number | null, exclude: string[]): Promise<JobRow[]> {
      if (wanted <= 0) return Promise.resolve([]);
      return db.transaction((tx) =>
        jobRepository(tx).claim({ queue, wanted, clusterLimit, workerId: options.workerId, leaseSeconds, exclude, fairness: options.fairness }),
      );
    },
    /** Jobs whose worker died on their last attempt, leased to this worker so it can fail them. */
    claimExhausted(queue: string): Promise<JobRow[]> {
      return db.transaction((tx) => jobRepository(tx).claimExhausted(queue, options.workerId, leaseSeconds));
    },
    heartbeat: (job: JobRow) => jobs.heartbeat(job.task_id, job.lease_token, leaseSeconds),
    /** Renews every lease of this worker at once; answers the lease tokens it still holds. */
    heartbeatAll: () => jobs.heartbeatWorker(options.workerId, leaseSeconds),
    setUpstreamId: (job: JobRow, upstreamId: string) => jobs.setUpstreamId(job.task_id, job.lease_token, upstreamId),
    /** Schedules the next attempt after the backoff of this one. */
    retryLater: (job: JobRow, error: string) =>
      jobs.retry(job.task_id, job.lease_token, backoffMs(job.attempts, options.backoffMs, options.maxBackoffMs) / 1000, error),
    /** Gives a job back untouched (worker shutting down): runnable now in its old place, the attempt not counted. */
    release: (job: JobRow) => jobs.release(job.task_id, job.lease_token),
    /** Records this worker as live and serving `queues` (call at start and every WORKER_REFRESH_MS). */
    register: (queues: readonly string[]) => jobs.registerWorker(options.workerId, queues),
    unregister: () => jobs.unregisterWorker(options.workerId),
    /**
     * Calls `onJob` whenever a job is enqueued (any process), and `onReconnect` when the
     * listening connection came back after a drop (notifications may have been missed);
     * answers the unsubscribe function.
     */
    listen: (onJob: (queue: string) => void, onReconnect?: () => void) => db.listen(JOB_CHANNEL, onJob, { onReconnect }),
  };
}
