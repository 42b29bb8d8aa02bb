/**
 * @module The task worker: claims jobs from the Postgres queue, runs each through its
 * engine (the Engine port), streams monotonic progress to the task row (which the realtime
 * publication carries to the dashboard), copies the media into the MediaStore, and settles
 * the task: success keeps the charge, failure refunds once. Runs in-process in embedded
 * mode and as its own process in production (workers/main.ts); any number of workers can
 * share one database, each adding its own `concurrency` (an optional `clusterLimits` caps an
 * engine across all of them). Leases are short and renewed by one heartbeat per worker, so a
 * dead worker's jobs run again within a lease. A stop drains: no new claims, running jobs
 * get `shutdownGraceMs` to finish, the rest go back to their place in the queue. A database
 * that goes away (a restart) is waited out: claims and heartbeats retry on the next round,
 * a settlement is retried until the database is back. Each registers the queues it serves
 * while it runs (the stuck-task sweep fails jobs of a queue nobody serves). Each job has a
 * time limit per engine (time-limits.ts): past it the job's AbortSignal fires, its slot is
 * freed, and the task fails with a clear message and is refunded once; whatever the engine
 * answers later is dropped (the job row is no longer active, so it is neither renewed by the
 * heartbeat nor settled again).
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { type Db, isConnectionError, retryOnConnectionLoss } from '@aim/supabase/db';
import { abortedError } from '../engines/define-engine.ts';
import { type EngineProgress, EngineError, GENERIC_ENGINE_FAILURE, isEngineError, TaskCancelled } from '../engines/engine.ts';
import { consoleLogger, type Logger } from '../logger.ts';
import { observeJob } from '../observability/job-log.ts';
import { createJobQueue, type JobRow, WORKER_REFRESH_MS } from '../queue/job-queue.ts';
import { CANCEL_CHANNEL, jobRepository } from '../repositories/job-repository.ts';
import { taskRepository, type TaskRow } from '../repositories/task-repository.ts';
import type { EngineRegistry } from '../services/tasks/engine-registry.ts';
import { settleFailure, settleSuccess } from '../services/tasks/settle-task.ts';
import { createTaskEvents, type TaskEventKind, type TaskEvents } from '../services/tasks/task-events.ts';
import { isTerminal, toTaskView } from '../services/tasks/task-view.ts';
import { createImageFetcher, type ImageFetcher } from '../storage/image-fetcher.ts';
import type { MediaStore } from '../storage/media-store.ts';
import { buildEngineJob } from './jobs/index.ts';
import { createJobInputs } from './jobs/job-inputs.ts';
import { type QueueFairness, queueFairnessFromEnv } from './queue-fairness.ts';
import { createResultStore } from './store-result.ts';
import { TimeLimitExceeded, timeLimitMessage, timeLimitsFromEnv } from './time-limits.ts';
import { errorText, TransientError } from './worker-errors.ts';

/** Why a job was aborted: its lease is no longer this worker's. */
class LeaseLost extends Error {
  constructor() {
    super('lease lost');
  }
}

export interface TaskWorkerOptions {
  db: Db;
  media: MediaStore;
  engines: EngineRegistry;
  /** Where task events go; a new hub when omitted (read it back from `worker.events`). */
  events?: TaskEvents;
  log?: Logger;
  /** Names this worker in job rows (locked_by). Default host:pid:random. */
  workerId?: string;
  /**
   * How claims share a queue between accounts: accounts take turns ('account') or oldest
   * first ('fifo'). Default: QUEUE_FAIRNESS / QUEUE_MAX_RUNNING_PER_ACCOUNT (account mode).
   */
  fairness?: QueueFairness;
  /** Jobs of one engine this worker runs at once, by engine name. Default 2 each. */
  concurrency?: Readonly<Record<string, number>>;
  /** Jobs of one engine running at once across all workers (an upstream's rate limit), by engine name; none when absent. */
  clusterLimits?: Readonly<Record<string, number>>;
  /**
   * How long one job (one attempt, from its claim) of an engine may run before it is stopped
   * and its task failed and refunded, in milliseconds by engine name. Default:
   * JOB_TIME_LIMIT_SECONDS[_<ENGINE>], else each engine's built-in limit (time-limits.ts).
   */
  timeLimits?: Readonly<Record<string, number>>;
  /** A claim expires this long after the last heartbeat. Default 10 s. */
  leaseMs?: number;
  /** Heartbeat period. Default a third of the lease. */
  heartbeatMs?: number;
  /** On stop, how long running jobs may take to finish before they are handed back. Default 0 (at once). */
  shutdownGraceMs?: number;
  /** Poll period (new jobs also wake the worker through NOTIFY). Default 1 s. */
  pollMs?: number;
  /** First retry delay, doubled per attempt. Default 2 s, capped at `maxBackoffMs` (60 s). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Largest image copied from an upstream URL. Default 50 MB. */
  maxMediaBytes?: number;
  /**
   * Reads the pictures a faceswap names by URL. Default: the guarded fetcher with production
   * rules (https only, no private addresses); embedded mode passes one that allows them.
   */
  imageFetcher?: ImageFetcher;
  fetch?: typeof fetch;
}

export interface TaskWorker {
  readonly id: string;
  readonly events: TaskEvents;
  /** Subscribes to task progress and completion (shorthand for `events.onTaskEvent`). */
  onTaskEvent: TaskEvents['onTaskEvent'];
  start(): Promise<void>;
  /**
   * Stops claiming, lets running jobs finish for up to `shutdownGraceMs`, then aborts the rest
   * and gives them back to their place in the queue (not counted as attempts).
   */
  stop(): Promise<void>;
  /** Jobs running in this worker now. */
  readonly running: number;
  /** True from `stop()` on: the worker takes no new jobs. */
  readonly stopping: boolean;
}

const DEFAULT_CONCURRENCY = 2;
const DEFAULT_LEASE_MS = 10_000;
/** setTimeout's longest delay (about 24.8 days); a longer time limit waits this long. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function createTaskWorker(options: TaskWorkerOptions): TaskWorker {
  const { db, media, engines } = options;
  const log = options.log ?? consoleLogger();
  const events = options.events ?? createTaskEvents((error) => log.error('task event listener failed', { error: String(error) }));
  const workerId = options.workerId ?? `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const heartbeatMs = options.heartbeatMs ?? Math.floor(leaseMs / 3);
  const pollMs = options.pollMs ?? 1000;
  const maxMediaBytes = options.maxMediaBytes ?? 50 * 1024 * 1024;
  const doFetch = options.fetch ?? fetch;
  const images = options.imageFetcher ?? createImageFetcher({ media, embedded: false });
  const queue = createJobQueue(db, {
    workerId,
    leaseMs,
    backoffMs: options.backoffMs ?? 2000,
    maxBackoffMs: options.maxBackoffMs ?? 60_000,
    fairness: options.fairness ?? queueFairnessFromEnv(),
  });
  const tasks = taskRepository(db);
  const inputs = createJobInputs({ tasks, media, images });
  const { storeResult } = createResultStore({ media, tasks, maxMediaBytes, fetch: doFetch });
  const limitOf = (engine: string) => options.concurrency?.[engine] ?? DEFAULT_CONCURRENCY;
  const clusterLimitOf = (engine: string) => options.clusterLimits?.[engine] ?? null;
  const timeLimits = options.timeLimits ?? timeLimitsFromEnv(engines.names);
  const timeLimitOf = (engine: string) => timeLimits[engine] ?? timeLimitsFromEnv([engine])[engine];

  const running = new Map<string, { engine: string; job: JobRow; controller: AbortController; done: Promise<void> }>();
  let stopping = false;
  let started = false;
  let ticking = false;
  let tickAgain = false;
  let poller: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let beating: Promise<void> = Promise.resolve();
  let registration: NodeJS.Timeout | undefined;
  let registering: Promise<void> = Promise.resolve();
  let unlisten: (() => Promise<void>) | undefined;
  let unlistenCancels: (() => Promise<void>) | undefined;
  /** Jobs stopped at their time limit whose failure could not be written yet (the database was away): tried again on each heartbeat. */
  const overdue = new Map<string, JobRow>();

  const emit = (row: TaskRow | undefined, kind: TaskEventKind) => {
    if (row) events.emit(toTaskView(row), kind, { userId: row.user_id, email: row.email });
  };

  // ---- claiming ------------------------------------------------------------------------

  /** One pass over every engine's queue. Never runs twice at once in this process (PGlite has one connection; claims must not interleave). */
  async function tick(): Promise<void> {
    if (stopping) return;
    if (ticking) {
      tickAgain = true;
      return;
    }
    ticking = true;
    try {
      do {
        tickAgain = false;
        for (const engine of engines.names) {
          if (stopping) break;
          for (const job of await queue.claimExhausted(engine)) await failExhausted(job);
          const mine = [...running.values()].filter((r) => r.engine === engine).length;
          const claimed = await queue.claim(engine, limitOf(engine) - mine, clusterLimitOf(engine), [...running.keys()]);
          for (const job of claimed) launch(job);
        }
      } while (tickAgain && !stopping);
    } catch (error) {
      log.error('task worker poll failed', { worker: workerId, error: errorText(error) });
    } finally {
      ticking = false;
    }
  }

  function launch(job: JobRow): void {
    const controller = new AbortController();
    const entry = { engine: job.queue, job, controller, done: Promise.resolve() };
    running.set(job.task_id, entry);
    // observability/job-log.ts: claimed/finished lines, the job's log context, job metrics
    entry.done = observeJob({ db, log, events }, job, () => withinTimeLimit(job, controller))
      .catch((error) => log.error('task job crashed', { task_id: job.task_id, error: errorText(error) }))
      .finally(() => {
        if (running.get(job.task_id) === entry) running.delete(job.task_id);
        void tick();
      });
  }

  /**
   * Runs the job, or stops it at its engine's time limit: the signal aborts (the engine stops,
   * a worker thread running it is terminated) and the task fails and is refunded at once, even
   * if the engine never answers; the run's own end is then ignored (runJob, fenced writes).
   */
  function withinTimeLimit(job: JobRow, controller: AbortController): Promise<void> {
    const limitMs = timeLimitOf(job.queue);
    let timer: NodeJS.Timeout | undefined;
    const overTime = new Promise<void>((resolve, reject) => {
      timer = setTimeout(
        () => {
          if (controller.signal.aborted) return; // already ending (lease lost, worker stopping)
          controller.abort(new TimeLimitExceeded(limitMs));
          failOverTime(job, limitMs).then(resolve, reject);
        },
        Math.min(limitMs, MAX_TIMER_MS),
      );
    });
    const run = runJob(job, controller);
    return Promise.race([run, overTime]).finally(() => clearTimeout(timer));
  }

  async function failOverTime(job: JobRow, limitMs: number): Promise<void> {
    log.info('task stopped: time limit', { task_id: job.task_id, engine: job.queue, limit_ms: limitMs });
    try {
      await fail(job, { message: timeLimitMessage(limitMs), code: 'time_limit' }, `stopped after the time limit of ${limitMs} ms`);
    } catch (error) {
      // the database is away: keep trying on each heartbeat (its lease is renewed meanwhile only because nothing can be written)
      log.error('task time-limit failure not written, retrying', { task_id: job.task_id, error: errorText(error) });
      overdue.set(job.task_id, job);
    }
  }

  // ---- cancels ---------------------------------------------------------------------------

  /**
   * A task cancelled by its owner (POST /cancel, any API process) whose job runs here: abort it.
   * Its task is already failed and refunded, its lease cleared (every later write is fenced).
   */
  function abortCancelled(taskId: string): void {
    const entry = running.get(taskId);
    if (!entry || entry.controller.signal.aborted) return;
    log.info('task cancelled: stopping its job', { task_id: taskId, worker: workerId });
    entry.controller.abort(new TaskCancelled());
  }

  /** Aborts the running jobs among `taskIds` that were cancelled (a missed notification, a reconnect). */
  async function abortCancelledAmong(taskIds: string[]): Promise<void> {
    for (const taskId of await jobRepository(db).cancelledAmong(taskIds)) abortCancelled(taskId);
  }

  // ---- one job ---------------------------------------------------------------------------

  /**
   * Renews every lease this worker holds (one statement); a job whose lease is no longer ours
   * (it expired, say while the database was away, and another worker took it) is abandoned.
   */
  async function beat(): Promise<void> {
    const judged = [...running.values()];
    let held: Set<string>;
    try {
      held = await queue.heartbeatAll();
      // a lease lost to a cancel whose notification never came: stopped as a cancel, not as a lost lease
      const lost = judged.filter((entry) => !held.has(entry.job.lease_token) && !entry.controller.signal.aborted).map((entry) => entry.job.task_id);
      if (lost.length > 0) await abortCancelledAmong(lost);
    } catch (error) {
      log.error('task heartbeat failed', { worker: workerId, error: errorText(error) });
      return;
    }
    for (const entry of judged) {
      if (running.get(entry.job.task_id) !== entry || held.has(entry.job.lease_token) || entry.controller.signal.aborted) continue;
      entry.controller.abort(new LeaseLost());
    }
    for (const job of [...overdue.values()]) {
      overdue.delete(job.task_id);
      await failOverTime(job, timeLimitOf(job.queue));
    }
  }

  async function runJob(job: JobRow, controller: AbortController): Promise<void> {
    let writes: Promise<unknown> = Promise.resolve();
    try {
      const task = await tasks.findById(job.task_id);
      if (!task || isTerminal(task.status)) {
        await jobRepository(db).finish(job.task_id, job.lease_token, 'done');
        return;
      }
      const engine = engines.get(job.queue);
      if (!engine) throw new EngineError('unsupported', GENERIC_ENGINE_FAILURE, { detail: `no engine named ${job.queue}` });

      let status = 'processing';
      emit(await tasks.recordProgress(task.id, 0, status), 'progress');
      const onProgress = (progress: EngineProgress) => {
        // an engine that ignores its signal may go on reporting after a stop: not shown
        if (controller.signal.aborted) return;
        if (progress.status) status = progress.status;
        const next = status;
        writes = writes
          .then(async () => {
            if (progress.upstreamId) await queue.setUpstreamId(job, progress.upstreamId);
            emit(await tasks.recordProgress(task.id, progress.percentage, next), 'progress');
          })
          .catch((error) => log.error('task progress write failed', { task_id: task.id, error: errorText(error) }));
      };

      const result = await engine.run(await buildEngineJob(inputs, task, job, controller.signal), onProgress, controller.signal);
      // a result that arrives after a stop (the time limit, a lost lease) is not stored
      if (controller.signal.aborted) throw abortedError(controller.signal);
      await writes;
      const success = await storeResult(task, result, (row) => emit(row, 'progress'));
      let row: TaskRow | undefined;
      const held = await untilReachable(() =>
        db.transaction(async (tx) => {
          if (!(await jobRepository(tx).finish(job.task_id, job.lease_token, 'done'))) return false;
          row = await settleSuccess(tx, task, success);
          return true;
        }),
      );
      if (!held) log.info('task result dropped: lease lost', { task_id: task.id, worker: workerId });
      emit(row, 'success');
    } catch (error) {
      await writes;
      if (controller.signal.reason instanceof TaskCancelled) {
        // failed and refunded by the cancel itself (services/tasks/cancel-task.ts)
        log.info('task run ended after its cancel', { task_id: job.task_id, error: errorText(error) });
      } else if (controller.signal.reason instanceof LeaseLost) {
        log.info('task abandoned: lease lost', { task_id: job.task_id, worker: workerId });
      } else if (controller.signal.reason instanceof TimeLimitExceeded) {
        // failed and refunded by withinTimeLimit; this run's own end changes nothing
        log.info('task run ended after its time limit', { task_id: job.task_id, error: errorText(error) });
      } else if (stopping && controller.signal.aborted) {
        await untilReachable(() => queue.release(job));
        emit(await tasks.recordProgress(job.task_id, 0, 'queued'), 'progress');
      } else {
        await failOrRetry(job, error);
      }
    }
  }

  /**
   * Runs `write` again while the database is unreachable (a restart, a failover), about 30 s
   * at most; the lease stays ours meanwhile unless it expires, and then the write is fenced out.
   */
  function untilReachable<T>(write: () => Promise<T>): Promise<T> {
    return retryOnConnectionLoss(write, {
      onRetry: (error, attempt) => log.info('database unreachable, retrying', { worker: workerId, attempt, error: errorText(error) }),
    });
  }

  async function failOrRetry(job: JobRow, error: unknown): Promise<void> {
    // the database went away mid-job (a restart): another attempt, not a failure
    const retryable = isEngineError(error) ? error.retryable : error instanceof TransientError || isConnectionError(error);
    const detail = errorText(error);
    if (retryable && job.attempts < job.max_attempts) {
      log.info('task attempt failed, retrying', { task_id: job.task_id, attempt: job.attempts, error: detail });
      if (await untilReachable(() => queue.retryLater(job, detail))) emit(await tasks.recordProgress(job.task_id, 0, 'queued'), 'progress');
      return;
    }
    log.info('task failed', { task_id: job.task_id, attempt: job.attempts, error: detail });
    const failure = isEngineError(error) ? { message: error.message, code: error.code } : { message: GENERIC_ENGINE_FAILURE, code: 'internal' };
    await fail(job, failure, detail);
  }

  async function failExhausted(job: JobRow): Promise<void> {
    log.info('task failed: worker lost on the last attempt', { task_id: job.task_id, attempts: job.attempts });
    await fail(job, { message: GENERIC_ENGINE_FAILURE, code: 'worker_lost' }, 'lease expired on the last attempt');
  }

  async function fail(job: JobRow, failure: { message: string; code: string }, detail: string): Promise<void> {
    let row: TaskRow | undefined;
    await untilReachable(() =>
      db.transaction(async (tx) => {
        if (!(await jobRepository(tx).finish(job.task_id, job.lease_token, 'failed', detail))) return;
        const task = await taskRepository(tx).findById(job.task_id);
        if (task) row = await settleFailure(tx, task, failure);
      }),
    );
    emit(row, 'failed');
  }

  // ---- lifecycle -------------------------------------------------------------------------

  return {
    id: workerId,
    events,
    get running() {
      return running.size;
    },
    get stopping() {
      return stopping;
    },
    onTaskEvent: (listener) => events.onTaskEvent(listener),
    async start() {
      if (started) return;
      started = true;
      await queue.register(engines.names);
      registration = setInterval(() => {
        registering = queue
          .register(engines.names)
          .catch((error) => log.error('task worker registration failed', { worker: workerId, error: errorText(error) }));
      }, WORKER_REFRESH_MS);
      // a reconnected LISTEN may have missed notifications: look at once
      unlisten = await queue.listen(
        () => void tick(),
        () => void tick(),
      );
      // a cancel of a job running here (any API process); a reconnect may have missed one: look
      unlistenCancels = await db.listen(CANCEL_CHANNEL, abortCancelled, {
        onReconnect: () =>
          void abortCancelledAmong([...running.keys()]).catch((error) => log.error('task cancel check failed', { worker: workerId, error: errorText(error) })),
      });
      poller = setInterval(() => void tick(), pollMs);
      heartbeat = setInterval(() => {
        beating = beat();
      }, heartbeatMs);
      void tick();
    },
    async stop() {
      stopping = true;
      if (poller) clearInterval(poller);
      if (registration) clearInterval(registration);
      await unlisten?.();
      await unlistenCancels?.();
      while (ticking) await new Promise((resolve) => setTimeout(resolve, 5));
      // the heartbeat keeps the leases while running jobs finish within the grace period
      const all = Promise.all([...running.values()].map((entry) => entry.done));
      const grace = options.shutdownGraceMs ?? 0;
      if (grace > 0 && running.size > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([all, new Promise((resolve) => (timer = setTimeout(resolve, grace)))]);
        clearTimeout(timer);
      }
      for (const entry of running.values()) entry.controller.abort(new Error('worker stopping'));
      await all;
      if (heartbeat) clearInterval(heartbeat);
      await beating;
      // time-limit failures the database refused so far: one last try (else the lease expires and the job runs again)
      for (const job of [...overdue.values()]) {
        overdue.delete(job.task_id);
        await fail(job, { message: timeLimitMessage(timeLimitOf(job.queue)), code: 'time_limit' }, 'stopped after the time limit').catch((error) =>
          log.error('task time-limit failure not written', { task_id: job.task_id, error: errorText(error) }),
        );
      }
      // after a renewal in flight, which would otherwise bring the row back
      await registering;
      if (started) await queue.unregister().catch((error) => log.error('task worker unregistration failed', { worker: workerId, error: errorText(error) }));
    },
  };
}
