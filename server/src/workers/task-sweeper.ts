/**
 * @module The periodic stuck-task sweep (services/tasks/expire-stuck-tasks.ts): no task waits
 * forever with its credits held. Every API instance and every worker process runs one; they
 * share the work safely (SKIP LOCKED, settlement once per task).
 *
 * Environment (`taskSweepFromEnv`): TASK_QUEUE_DEADLINE_SECONDS (a job queued and runnable
 * this long fails, default 1800), TASK_UNSERVED_GRACE_SECONDS (a job whose queue no live
 * worker serves fails after this long, default 300).
 */
import type { Db } from '@aim/supabase/db';
import type { Logger } from '../logger.ts';
import { WORKER_TTL_MS } from '../queue/job-queue.ts';
import { jobRepository } from '../repositories/job-repository.ts';
import { expireStuckTasks } from '../services/tasks/expire-stuck-tasks.ts';
import { periodic } from './periodic.ts';

const DEFAULT_DEADLINE_SECONDS = 30 * 60;
const DEFAULT_UNSERVED_GRACE_SECONDS = 5 * 60;
const DEFAULT_INTERVAL_MS = 30_000;
/** Registrations of workers gone this long (crashed: they never unregistered) are deleted. */
const FORGET_WORKERS_SECONDS = 24 * 60 * 60;

export interface TaskSweeperOptions {
  db: Db;
  log: Logger;
  /** Default 30 minutes. */
  deadlineMs?: number;
  /** Default 5 minutes. */
  unservedGraceMs?: number;
  /** Time between sweeps. Default 30 s. */
  intervalMs?: number;
}

export interface TaskSweeper {
  /** Sweeps every interval, the first time one interval after the start. */
  start(): void;
  /** Stops and waits for a sweep in progress. */
  stop(): Promise<void>;
  /** One sweep; answers how many tasks it failed (and refunded). */
  sweep(): Promise<number>;
}

export function createTaskSweeper(options: TaskSweeperOptions): TaskSweeper {
  const { db, log } = options;
  const limits = {
    deadlineMs: options.deadlineMs ?? DEFAULT_DEADLINE_SECONDS * 1000,
    unservedGraceMs: options.unservedGraceMs ?? DEFAULT_UNSERVED_GRACE_SECONDS * 1000,
    workerTtlMs: WORKER_TTL_MS,
  };
  async function sweep(): Promise<number> {
    const expired = await expireStuckTasks(db, limits);
    for (const { task, reason } of expired) log.info('stuck task failed and refunded', { task_id: task.id, reason, refund: task.refund });
    await jobRepository(db).pruneWorkers(FORGET_WORKERS_SECONDS);
    return expired.length;
  }

  // not at once: the workers starting alongside (after a restart) register first
  const timer = periodic(sweep, {
    intervalMs: options.intervalMs ?? DEFAULT_INTERVAL_MS,
    onError: (error) => log.error('stuck task sweep failed', { error: error instanceof Error ? error.message : String(error) }),
  });
  return { start: timer.start, stop: timer.stop, sweep };
}

function seconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  if (!/^[1-9]\d*$/.test(value)) throw new Error(`${name} must be a whole number of seconds above 0, got ${JSON.stringify(value)}`);
  return Number(value);
}

/** The sweep's limits from TASK_QUEUE_DEADLINE_SECONDS and TASK_UNSERVED_GRACE_SECONDS. */
export function taskSweepFromEnv(env: NodeJS.ProcessEnv = process.env): Pick<TaskSweeperOptions, 'deadlineMs' | 'unservedGraceMs'> {
  return {
    deadlineMs: seconds(env, 'TASK_QUEUE_DEADLINE_SECONDS', DEFAULT_DEADLINE_SECONDS) * 1000,
    unservedGraceMs: seconds(env, 'TASK_UNSERVED_GRACE_SECONDS', DEFAULT_UNSERVED_GRACE_SECONDS) * 1000,
  };
}
