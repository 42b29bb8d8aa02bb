/**
 * @module What a worker says about each job it runs: a `job claimed` line, then `job
 * finished` with the run's outcome (success, failed, requeued, abandoned) and duration, all
 * in a log context carrying the task id and the request id the task was submitted with
 * (task_jobs.request_id), so every line the run logs (engine errors, retries, progress
 * webhooks enqueued) carries them too. Also counts the run in aim_jobs_total and
 * aim_job_duration_seconds. The outcome is read from the task events the run emits.
 */
import type { Queryable } from '@aim/supabase/db';
import { detachLogContext, type Logger, withLogContext } from '../logger.ts';
import type { TaskEvents } from '../services/tasks/task-events.ts';
import { type JobOutcome, recordJob } from './metrics.ts';

interface ObservedJob {
  task_id: string;
  queue: string;
  attempts: number;
}

/** The request id a task was submitted with (null: none, or submitted before they were kept). */
async function requestIdOf(db: Queryable, taskId: string): Promise<string | null> {
  const { rows } = await db.query<{ request_id: string | null }>('select request_id from public.task_jobs where task_id = $1', [taskId]);
  return rows[0]?.request_id ?? null;
}

/**
 * Runs one job (`run`) observed: logs and times it. The outcome: the task's success or
 * failure event; a progress event back to pending means requeued (a retry, or given back at
 * shutdown); no such event means abandoned (lease lost, task already over).
 *
 * @example
 * entry.done = observeJob({ db, log, events }, job, () => runJob(job, controller))
 */
export async function observeJob(
  deps: { db: Queryable; log: Logger; events: Pick<TaskEvents, 'onTaskEvent'> },
  job: ObservedJob,
  run: () => Promise<void>,
): Promise<void> {
  const started = performance.now();
  let outcome: JobOutcome = 'abandoned';
  const unsubscribe = deps.events.onTaskEvent((task, kind) => {
    if (task.task_id !== job.task_id) return;
    if (kind === 'success' || kind === 'failed') outcome = kind;
    else if (task.status === 'pending') outcome = 'requeued';
  });
  try {
    // one primary-key read before the run, so that `job claimed` is the run's first line
    const requestId = await requestIdOf(deps.db, job.task_id).catch((error: unknown) => {
      deps.log.error('job request id lookup failed', { task_id: job.task_id, error: String(error) });
      return null;
    });
    const fields = requestId ? { task_id: job.task_id, request_id: requestId } : { task_id: job.task_id };
    // a context of its own, not the one of whatever woke the worker (in embedded mode a NOTIFY
    // can arrive inside the submitting request's context)
    await detachLogContext(withLogContext<Promise<void>>)(fields, async () => {
      deps.log.info('job claimed', { engine: job.queue, attempt: job.attempts });
      try {
        await run();
      } finally {
        const seconds = (performance.now() - started) / 1000;
        recordJob(job.queue, outcome, seconds);
        deps.log.info('job finished', { engine: job.queue, attempt: job.attempts, outcome, ms: Math.round(seconds * 1000) });
      }
    });
  } finally {
    unsubscribe();
  }
}
