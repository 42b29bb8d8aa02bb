/**
 * @module One pass of the stuck-task sweep: a job no live worker can take (unknown queue,
 * an engine no running worker has) or one queued past the deadline fails with a message that
 * says so, and its task is refunded exactly once (settleFailure, which also records the
 * task.failed webhook), in the transaction that ends the job. Any number of processes may
 * sweep at once: each job is taken by one of them (SKIP LOCKED) and settled once.
 */
import type { Db } from '@aim/supabase/db';
import { jobRepository, type StuckReason } from '../../repositories/job-repository.ts';
import { taskRepository, type TaskRow } from '../../repositories/task-repository.ts';
import { settleFailure } from './settle-task.ts';

export interface SweepLimits {
  /** A job queued (and runnable) longer than this fails. */
  deadlineMs: number;
  /** A runnable job whose queue no live worker has served for this long fails. */
  unservedGraceMs: number;
  /** A worker counts as live this long after its last registration. */
  workerTtlMs: number;
}

const FAILURES: Record<StuckReason, { message: string; code: string }> = {
  no_worker: { message: 'No worker is available to run this task. Your credits have been refunded.', code: 'no_worker' },
  queue_timeout: { message: 'The task waited too long in the queue. Your credits have been refunded.', code: 'queue_timeout' },
};

const BATCH = 50;

/** Fails and refunds every stuck task; answers the tasks it settled, with why. */
export async function expireStuckTasks(db: Db, limits: SweepLimits): Promise<{ task: TaskRow; reason: StuckReason }[]> {
  const settled: { task: TaskRow; reason: StuckReason }[] = [];
  for (;;) {
    const batch = await db.transaction(async (tx) => {
      const jobs = await jobRepository(tx).failStuck({
        deadlineSeconds: limits.deadlineMs / 1000,
        unservedSeconds: limits.unservedGraceMs / 1000,
        workerTtlSeconds: limits.workerTtlMs / 1000,
        limit: BATCH,
      });
      const rows: { task: TaskRow; reason: StuckReason }[] = [];
      for (const job of jobs) {
        const task = await taskRepository(tx).findById(job.task_id);
        const row = task && (await settleFailure(tx, task, FAILURES[job.reason]));
        if (row) rows.push({ task: row, reason: job.reason });
      }
      return { taken: jobs.length, rows };
    });
    settled.push(...batch.rows);
    if (batch.taken < BATCH) return settled;
  }
}
