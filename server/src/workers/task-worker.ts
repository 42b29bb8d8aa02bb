/**
 * @module The task worker: claims jobs from the Postgres queue, runs each through its
 * engine (the Engine port), streams monotonic progress to the task row (which the realtime
 * publication carries to the dashboard), copies the media into the MediaStore, and settles
 * the task: success keeps the charge, failure refunds once. Runs in-process in embedded
 * mode and as its own process in production (workers/main.ts); any number of workers can
 * share one database. Each registers the queues it serves while it runs (the stuck-task sweep
 * fails jobs of a queue nobody serves).
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Db } from '@aim/supabase/db';
import {
  type CellIndex,
  type EngineImage,
  type EngineJob,
  type EngineProgress,
  type EngineResult,
  EngineError,
  GENERIC_ENGINE_FAILURE,
  type ImageInput,
  type ParentRef,
  type PhotoSubject,
  type TrainedIdentity,
  type UpscaleType,
  isEngineError,
} from '../engines/engine.ts';
import { consoleLogger, type Logger } from '../logger.ts';
import { createJobQueue, type JobRow, WORKER_REFRESH_MS } from '../queue/job-queue.ts';
import { jobRepository } from '../repositories/job-repository.ts';
import { taskRepository, type TaskRow, type TaskSuccess } from '../repositories/task-repository.ts';
import type { EngineRegistry } from '../services/tasks/engine-registry.ts';
import { subjectOf, uploadedPhotoUrls, usablePhotoIndexes } from '../services/tasks/ai-photo-rules.ts';
import { settleFailure, settleSuccess } from '../services/tasks/settle-task.ts';
import { createTaskEvents, type TaskEventKind, type TaskEvents } from '../services/tasks/task-events.ts';
import { engineKindOf } from '../services/tasks/task-kinds.ts';
import { isTerminal, toTaskView } from '../services/tasks/task-view.ts';
import { createImageFetcher, type ImageFetcher, ImageReadError } from '../storage/image-fetcher.ts';
import { detectImageType } from '../storage/image-type.ts';
import { extensionFor, type MediaStore } from '../storage/media-store.ts';

export interface TaskWorkerOptions {
  db: Db;
  media: MediaStore;
  engines: EngineRegistry;
  /** Where task events go; a new hub when omitted (read it back from `worker.events`). */
  events?: TaskEvents;
  log?: Logger;
  /** Names this worker in job rows (locked_by). Default host:pid:random. */
  workerId?: string;
  /** Jobs of one engine running at once across all workers, by engine name. Default 2 each. */
  concurrency?: Readonly<Record<string, number>>;
  /** A claim expires this long after the last heartbeat. Default 60 s. */
  leaseMs?: number;
  /** Heartbeat period. Default a third of the lease. */
  heartbeatMs?: number;
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
  /** Stops claiming, aborts running jobs and gives them back to the queue (not counted as attempts). */
  stop(): Promise<void>;
}

const DEFAULT_CONCURRENCY = 2;

/** Our own failure to persist or fetch media: worth another attempt. */
class TransientError extends Error {}

/** The keys the worker writes into a task's result; an engine's `data` never replaces them. */
const RESULT_KEYS = ['engine', 'method', 'simulated', 'note', 'layout', 'width', 'height', 'upstream_id', 'message', 'code'];

export function createTaskWorker(options: TaskWorkerOptions): TaskWorker {
  const { db, media, engines } = options;
  const log = options.log ?? consoleLogger();
  const events = options.events ?? createTaskEvents((error) => log.error('task event listener failed', { error: String(error) }));
  const workerId = options.workerId ?? `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const leaseMs = options.leaseMs ?? 60_000;
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
  });
  const tasks = taskRepository(db);
  const limitOf = (engine: string) => options.concurrency?.[engine] ?? DEFAULT_CONCURRENCY;

  const running = new Map<string, { engine: string; controller: AbortController; done: Promise<void> }>();
  let stopping = false;
  let started = false;
  let ticking = false;
  let tickAgain = false;
  let poller: NodeJS.Timeout | undefined;
  let registration: NodeJS.Timeout | undefined;
  let registering: Promise<void> = Promise.resolve();
  let unlisten: (() => Promise<void>) | undefined;

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
          const claimed = await queue.claim(engine, limitOf(engine) - mine, limitOf(engine), [...running.keys()]);
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
    const entry = { engine: job.queue, controller, done: Promise.resolve() };
    running.set(job.task_id, entry);
    entry.done = runJob(job, controller)
      .catch((error) => log.error('task job crashed', { task_id: job.task_id, error: errorText(error) }))
      .finally(() => {
        running.delete(job.task_id);
        void tick();
      });
  }

  // ---- one job ---------------------------------------------------------------------------

  async function runJob(job: JobRow, controller: AbortController): Promise<void> {
    let leaseLost = false;
    const heartbeat = setInterval(() => {
      queue.heartbeat(job).then(
        (held) => {
          if (!held && !controller.signal.aborted) {
            leaseLost = true;
            controller.abort(new Error('lease lost'));
          }
        },
        (error) => log.error('task heartbeat failed', { task_id: job.task_id, error: errorText(error) }),
      );
    }, heartbeatMs);

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
        if (progress.status) status = progress.status;
        const next = status;
        writes = writes
          .then(async () => {
            if (progress.upstreamId) await queue.setUpstreamId(job, progress.upstreamId);
            emit(await tasks.recordProgress(task.id, progress.percentage, next), 'progress');
          })
          .catch((error) => log.error('task progress write failed', { task_id: task.id, error: errorText(error) }));
      };

      const result = await engine.run(await engineJob(task, job, controller.signal), onProgress, controller.signal);
      await writes;
      const success = await storeResult(task, result, (row) => emit(row, 'progress'));
      let row: TaskRow | undefined;
      const held = await db.transaction(async (tx) => {
        if (!(await jobRepository(tx).finish(job.task_id, job.lease_token, 'done'))) return false;
        row = await settleSuccess(tx, task, success);
        return true;
      });
      if (!held) log.info('task result dropped: lease lost', { task_id: task.id, worker: workerId });
      emit(row, 'success');
    } catch (error) {
      await writes;
      if (leaseLost) {
        log.info('task abandoned: lease lost', { task_id: job.task_id, worker: workerId });
      } else if (stopping && controller.signal.aborted) {
        await queue.release(job);
        emit(await tasks.recordProgress(job.task_id, 0, 'queued'), 'progress');
      } else {
        await failOrRetry(job, error);
      }
    } finally {
      clearInterval(heartbeat);
    }
  }

  async function failOrRetry(job: JobRow, error: unknown): Promise<void> {
    const retryable = isEngineError(error) ? error.retryable : error instanceof TransientError;
    const detail = errorText(error);
    if (retryable && job.attempts < job.max_attempts) {
      log.info('task attempt failed, retrying', { task_id: job.task_id, attempt: job.attempts, error: detail });
      if (await queue.retryLater(job, detail)) emit(await tasks.recordProgress(job.task_id, 0, 'queued'), 'progress');
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
    await db.transaction(async (tx) => {
      if (!(await jobRepository(tx).finish(job.task_id, job.lease_token, 'failed', detail))) return;
      const task = await taskRepository(tx).findById(job.task_id);
      if (task) row = await settleFailure(tx, task, failure);
    });
    emit(row, 'failed');
  }

  // ---- engine input and output -----------------------------------------------------------

  async function parentRef(task: TaskRow, withImage: boolean): Promise<ParentRef> {
    const parent = task.parent_id ? await tasks.findById(task.parent_id) : undefined;
    if (!parent) throw new EngineError('invalid_input', 'The parent task no longer exists.');
    const result = parent.result ?? {};
    const ref: ParentRef = {
      prompt: parent.prompt ?? undefined,
      layout: result.layout === 'single' ? 'single' : 'grid',
      upstreamId: typeof result.upstream_id === 'string' ? result.upstream_id : undefined,
      seed: parent.seed !== null && /^\d+$/.test(parent.seed) ? Number(parent.seed) : undefined,
    };
    if (withImage) {
      const key = parent.image_url ? media.keyOf(parent.image_url) : undefined;
      const stored = key ? await media.get(key) : undefined;
      if (!stored) throw new EngineError('invalid_input', 'The parent task has no image to work from.');
      ref.image = stored.data;
    }
    return ref;
  }

  /**
   * A faceswap picture, read and checked before any engine runs. A picture that will not
   * become readable fails the task at once; a network failure is worth another attempt.
   */
  async function inputImage(which: 'source' | 'target', url: unknown, signal: AbortSignal): Promise<ImageInput> {
    const failure = (reason: string, options: { retryable?: boolean; cause?: unknown } = {}) =>
      new EngineError(options.retryable ? 'upstream_unavailable' : 'invalid_input', `The ${which} image could not be read: ${reason}`, options);
    if (typeof url !== 'string' || !url) throw failure('the task has no URL for it');
    try {
      const image = await images.read(url, signal);
      return { url: image.url, data: image.data, contentType: image.contentType };
    } catch (error) {
      if (error instanceof ImageReadError) throw failure(error.message, { retryable: error.retryable, cause: error });
      throw error;
    }
  }

  /** A picture of ours (an AI photo, a trained model's reference), read back from the media store. */
  async function storedImage(url: string, missing: string): Promise<ImageInput> {
    const key = media.keyOf(url);
    let stored: Awaited<ReturnType<MediaStore['get']>>;
    try {
      stored = key ? await media.get(key) : undefined;
    } catch (error) {
      throw new TransientError(`media read failed: ${errorText(error)}`);
    }
    if (!stored) throw new EngineError('invalid_input', missing, { detail: `not in the media store: ${url}` });
    return { url, data: stored.data, contentType: stored.contentType };
  }

  /** The task an AI photo task was made from (its upload, its training), live or archived. */
  async function sourceTask(id: unknown, missing: string): Promise<TaskRow> {
    const found = typeof id === 'string' ? await tasks.findById(id) : undefined;
    if (!found) throw new EngineError('invalid_input', missing);
    return found;
  }

  function subjectOrFail(upload: TaskRow): PhotoSubject {
    const subject = subjectOf(upload);
    if (!subject) throw new EngineError('invalid_input', 'The upload does not say who the photos show.', { detail: `upload ${upload.id}` });
    return subject;
  }

  const PHOTOS_GONE = 'The uploaded photos are no longer stored; upload them again.';

  /**
   * The identity a train task recorded, for generating from it: which engine trained it (only
   * that one can use it), its trigger word, the person of its upload, what the training engine
   * returned (its result minus the worker's own keys) and the pictures it kept.
   */
  async function trainedIdentity(training: TaskRow, queue: string): Promise<TrainedIdentity> {
    if (training.status !== 'success' && training.status !== 'finished') throw new EngineError('invalid_input', 'The training has not finished successfully.');
    const result = training.result ?? {};
    const engine = typeof result.engine === 'string' ? result.engine : '';
    if (engine !== queue) {
      throw new EngineError(
        'unsupported',
        `This model was trained by another engine (${engine || 'unknown'}) than the one generating photos here (${queue}); train it again.`,
      );
    }
    const triggerWord = training.input_data?.trigger_word;
    if (typeof triggerWord !== 'string') throw new EngineError('invalid_input', 'The training has no trigger word.');
    const upload = await sourceTask(training.parent_id ?? training.input_data?.training_images_id, 'The upload this model learned from no longer exists.');
    const images = await Promise.all(
      (training.image_urls ?? []).map((url) => storedImage(url, "The trained model's pictures are no longer stored; train it again.")),
    );
    const data = Object.fromEntries(Object.entries(result).filter(([key]) => !RESULT_KEYS.includes(key)));
    const identity: TrainedIdentity = { engine, triggerWord, subject: subjectOrFail(upload), data, images };
    if (typeof result.upstream_id === 'string') identity.upstreamId = result.upstream_id;
    return identity;
  }

  async function engineJob(task: TaskRow, job: JobRow, signal: AbortSignal): Promise<EngineJob> {
    const input = task.input_data ?? {};
    const resume = job.upstream_id ? { resumeUpstreamId: job.upstream_id } : {};
    const prompt = task.prompt ?? '';
    const aspectRatio = typeof input.aspect_ratio === 'string' ? (input.aspect_ratio as never) : undefined;
    const index = Number(input.index) as CellIndex;
    const kind = engineKindOf(task.type);
    switch (kind) {
      case 'imagine':
        return { kind, prompt, ...resume };
      case 'flux-imagine':
      case 'ideogram-imagine':
        return { kind, prompt, aspectRatio, ...resume };
      case 'reroll':
        return { kind, parent: await parentRef(task, false), ...resume };
      case 'seed':
        return { kind, parent: await parentRef(task, false), ...resume };
      case 'variation':
        return { kind, parent: await parentRef(task, true), index, ...resume };
      case 'upscale':
        return { kind, parent: await parentRef(task, true), index, type: (input.upscale_type ?? '1x') as UpscaleType, ...resume };
      case 'faceswap': {
        // both at once; when both fail, the source's reason is the one told
        const [source, target] = await Promise.allSettled([
          inputImage('source', input.swap_image_url, signal),
          inputImage('target', input.target_image_url, signal),
        ]);
        if (source.status === 'rejected') throw source.reason;
        if (target.status === 'rejected') throw target.reason;
        return { kind, source: source.value, target: target.value, ...resume };
      }
      case 'ai-photo-upload': {
        const subject = subjectOrFail(task);
        const images = await Promise.all(uploadedPhotoUrls(task).map((url) => storedImage(url, PHOTOS_GONE)));
        if (images.length === 0) throw new EngineError('invalid_input', 'The upload has no photos.');
        return { kind, images, subject, ...resume };
      }
      case 'ai-photo-train': {
        const upload = await sourceTask(task.parent_id ?? input.training_images_id, 'The upload to train on no longer exists.');
        if (typeof input.trigger_word !== 'string') throw new EngineError('invalid_input', 'The training has no trigger word.');
        const urls = uploadedPhotoUrls(upload);
        // the photos the upload check kept (the price was counted on them)
        const images = await Promise.all(usablePhotoIndexes(upload).map((i) => storedImage(urls[i], PHOTOS_GONE)));
        if (images.length === 0) throw new EngineError('invalid_input', 'None of the uploaded photos can be used for training.');
        return { kind, images, subject: subjectOrFail(upload), triggerWord: input.trigger_word, ...resume };
      }
      case 'ai-photo-generate': {
        const training = await sourceTask(task.parent_id ?? input.training_id, 'The model these photos were asked of no longer exists.');
        const identity = await trainedIdentity(training, job.queue);
        const custom = input.aspect_ratio === 'custom';
        const whole = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) ? value : undefined);
        return {
          kind,
          identity,
          prompt,
          count: whole(input.number_of_images) ?? 4,
          aspectRatio: custom ? undefined : aspectRatio,
          width: whole(input.width),
          height: whole(input.height),
          seed: whole(input.seed),
          ...resume,
        };
      }
      default:
        throw new EngineError('unsupported', GENERIC_ENGINE_FAILURE, { detail: `task type ${task.type}` });
    }
  }

  /** The bytes and type of an engine image, copying an upstream URL (which may expire) into memory. */
  async function imageBytes(image: EngineImage): Promise<{ data: Buffer; contentType: string }> {
    if (image.source === 'buffer') return { data: image.data, contentType: image.contentType };
    let res: Response;
    try {
      res = await doFetch(image.url, { signal: AbortSignal.timeout(60_000) });
    } catch (error) {
      throw new TransientError(`media download failed: ${errorText(error)}`);
    }
    if (!res.ok) throw new TransientError(`media download answered ${res.status}`);
    if (Number(res.headers.get('content-length') ?? 0) > maxMediaBytes)
      throw new EngineError('too_large', GENERIC_ENGINE_FAILURE, { detail: 'media too large' });
    const data = Buffer.from(await res.arrayBuffer());
    if (data.length > maxMediaBytes) throw new EngineError('too_large', GENERIC_ENGINE_FAILURE, { detail: 'media too large' });
    const type = detectImageType(data);
    if (!type) throw new EngineError('upstream_failed', GENERIC_ENGINE_FAILURE, { detail: 'upstream media is not an image we store' });
    return { data, contentType: type.contentType };
  }

  async function store(task: TaskRow, image: EngineImage, name: string): Promise<string> {
    const { data, contentType } = await imageBytes(image);
    const extension = extensionFor(contentType) ?? detectImageType(data)?.extension;
    if (!extension) throw new EngineError('internal', GENERIC_ENGINE_FAILURE, { detail: `unsupported media type ${contentType}` });
    try {
      return await media.put(`${task.id}-${name}.${extension}`, data, contentType);
    } catch (error) {
      throw new TransientError(`media store failed: ${errorText(error)}`);
    }
  }

  /**
   * Stores what the engine made. The photos of a `set` are stored one by one, in order, and
   * each is shown in the task's image_urls at once (`onRow` gets the updated row), so a
   * client sees the photos arrive rather than all at the end.
   */
  async function storeResult(task: TaskRow, result: EngineResult, onRow: (row: TaskRow | undefined) => void): Promise<TaskSuccess> {
    let imageUrl: string | null = null;
    let imageUrls: string[] | null = null;
    if (result.layout === 'grid') {
      if (!result.image || result.images.length === 0) throw new EngineError('internal', GENERIC_ENGINE_FAILURE, { detail: 'grid without images' });
      [imageUrl, ...imageUrls] = await Promise.all([store(task, result.image, 'grid'), ...result.images.map((img, i) => store(task, img, String(i + 1)))]);
    } else if (result.layout === 'single') {
      const image = result.image ?? result.images[0];
      if (!image) throw new EngineError('internal', GENERIC_ENGINE_FAILURE, { detail: 'single result without an image' });
      imageUrl = await store(task, image, 'image');
      imageUrls = [imageUrl];
    } else if (result.layout === 'set') {
      if (result.images.length === 0) throw new EngineError('internal', GENERIC_ENGINE_FAILURE, { detail: 'set result without images' });
      imageUrls = [];
      for (const [i, img] of result.images.entries()) {
        imageUrls.push(await store(task, img, String(i + 1)));
        onRow(await tasks.recordImages(task.id, imageUrls));
      }
      imageUrl = imageUrls[0];
    }
    const summary: Record<string, unknown> = {
      engine: result.engine,
      method: result.method,
      simulated: result.simulated,
      layout: result.layout,
    };
    if (result.note) summary.note = result.note;
    if (result.width) summary.width = result.width;
    if (result.height) summary.height = result.height;
    if (result.upstreamId) summary.upstream_id = result.upstreamId;
    // what else the engine found (an identity profile, per-photo verdicts), never over the worker's own keys
    for (const [key, value] of Object.entries(result.data ?? {})) if (!RESULT_KEYS.includes(key)) summary[key] = value;
    return { imageUrl, imageUrls, seed: result.seed === undefined ? null : String(result.seed), result: summary };
  }

  // ---- lifecycle -------------------------------------------------------------------------

  return {
    id: workerId,
    events,
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
      poller = setInterval(() => void tick(), pollMs);
      void tick();
    },
    async stop() {
      stopping = true;
      if (poller) clearInterval(poller);
      if (registration) clearInterval(registration);
      await unlisten?.();
      while (ticking) await new Promise((resolve) => setTimeout(resolve, 5));
      for (const entry of running.values()) entry.controller.abort(new Error('worker stopping'));
      await Promise.all([...running.values()].map((entry) => entry.done));
      // after a renewal in flight, which would otherwise bring the row back
      await registering;
      if (started) await queue.unregister().catch((error) => log.error('task worker unregistration failed', { worker: workerId, error: errorText(error) }));
    },
  };
}

function errorText(error: unknown): string {
  if (isEngineError(error)) return `${error.code}: ${error.message}${error.detail ? ` (${error.detail})` : ''}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
