/**
 * @module A queued task's place in line (POST /fetch, the task event streams): `queue_position`,
 * the jobs its queue would start before it under the queue's fairness rules (QUEUE_FAIRNESS,
 * workers/queue-fairness.ts), and `estimated_start_at`, from the recent run times of that engine's
 * jobs. Additive fields: present only while the task waits in its queue.
 */
import type { Queryable } from '@aim/supabase/db';
import { queuePositionRepository } from '../../repositories/queue-position-repository.ts';
import { type QueueFairness, queueFairnessFromEnv } from '../../workers/queue-fairness.ts';
import type { TaskView } from './task-view.ts';

export interface QueuePositionFields {
  /** Jobs ahead of this one in its engine's queue (0: next to start). */
  queue_position?: number;
  /** When it should start, from the engine's recent job durations; null until the engine has run any. */
  estimated_start_at?: string | null;
}

/** Finished jobs the estimate averages over. */
const DURATION_SAMPLE = 20;

/**
 * The estimated wait: the running jobs are on average half done, and the jobs ahead start as
 * slots free up, as many at once as run now (the observed parallelism of the engine).
 */
export function estimateWaitSeconds(ahead: number, running: number, jobSeconds: number): number {
  if (running === 0) return Math.round(jobSeconds * ahead);
  return Math.round(jobSeconds * (ahead / running + 0.5));
}

function fairnessOf(env: NodeJS.ProcessEnv): QueueFairness {
  try {
    return queueFairnessFromEnv(env);
  } catch {
    // the workers refuse to start with a bad value; the API keeps answering (account order is the default)
    return { mode: 'account' };
  }
}

/** The view with its place in line when the task waits in a queue; the view as is otherwise. */
export async function withQueuePosition<V extends TaskView>(q: Queryable, view: V, env: NodeJS.ProcessEnv = process.env): Promise<V & QueuePositionFields> {
  if (view.status !== 'pending' && view.status !== 'retry') return view;
  const repo = queuePositionRepository(q);
  const standing = await repo.standingOf(view.task_id, fairnessOf(env));
  if (!standing) return view;
  const jobSeconds = await repo.recentJobSeconds(standing.queue, DURATION_SAMPLE);
  const estimated_start_at =
    jobSeconds === null ? null : new Date(Date.now() + estimateWaitSeconds(standing.ahead, standing.running, jobSeconds) * 1000).toISOString();
  return { ...view, queue_position: standing.ahead, estimated_start_at };
}
