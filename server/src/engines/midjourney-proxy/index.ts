/**
 * @module Engine adapter for a midjourney-proxy-compatible upstream (novicezk, trueai-org,
 * or a new-api relay): submit the action, then poll /task/{id}/fetch until it is terminal.
 * Callbacks (notifyHook) are only hints upstream (no signature, no retry), so polling is
 * the source of truth. Results are the upstream's image URLs; copying them into our media
 * store is the caller's job (Discord CDN links expire).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { abortedError, defineEngine, throwIfAborted } from '../define-engine.ts';
import {
  type Engine,
  type EngineImage,
  type EngineJob,
  type EngineJobKind,
  type EngineResult,
  EngineError,
  type ParentRef,
  type ProgressListener,
  type UpscaleType,
} from '../engine.ts';
import { mapStatus, parseProgress, readImageUrls, readSeed, readSubmitResult, type SubmitResult, UPSCALE_BUTTONS, type UpstreamTask } from './protocol.ts';

export interface MidjourneyProxyOptions {
  /** Base including the context path, e.g. `http://mj-proxy:8080/mj` or `https://relay/mj-fast/mj`. */
  baseUrl: string;
  /** Sent in `secretHeader` when set (novicezk: `mj-api-secret`; empty disables auth upstream). */
  apiSecret?: string;
  /** Default `mj-api-secret`; trueai also accepts `Authorization`. */
  secretHeader?: string;
  /** Delay between status polls. Default 3000 ms. */
  pollIntervalMs?: number;
  /** Give up watching a task after this long. Default 10 minutes (the upstream's own timeout is 5). */
  timeoutMs?: number;
  /** Per HTTP request. Default 15 s. */
  requestTimeoutMs?: number;
  /** Consecutive failed polls tolerated before the run fails (retryably). Default 5. */
  maxPollFailures?: number;
  /**
   * Bases that pin a speed mode (trueai: `…/mj-fast/mj`, `…/mj-turbo/mj`), used to submit an
   * imagine that asks for that mode. Without one the mode is left to the upstream's default.
   */
  modeBaseUrls?: Partial<Record<'fast' | 'turbo', string>>;
  /** Passed as `notifyHook` on submits, for deployments that also want upstream callbacks. */
  notifyHook?: string;
  fetch?: typeof fetch;
}

const KINDS: readonly EngineJobKind[] = ['imagine', 'reroll', 'variation', 'upscale', 'seed'];

const UNAVAILABLE = 'The generation service is unavailable right now, please try again.';

export function createMidjourneyProxyEngine(options: MidjourneyProxyOptions): Engine {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const pollIntervalMs = options.pollIntervalMs ?? 3000;
  const timeoutMs = options.timeoutMs ?? 10 * 60_000;
  const requestTimeoutMs = options.requestTimeoutMs ?? 15_000;
  const maxPollFailures = options.maxPollFailures ?? 5;
  const doFetch = options.fetch ?? fetch;

  async function call<T>(method: 'GET' | 'POST', path: string, signal: AbortSignal, body?: unknown, base = baseUrl): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.apiSecret) headers[(options.secretHeader ?? 'mj-api-secret').toLowerCase()] = options.apiSecret;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await doFetch(`${base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.any([signal, AbortSignal.timeout(requestTimeoutMs)]),
      });
    } catch (error) {
      throwIfAborted(signal);
      throw new EngineError('upstream_unavailable', UNAVAILABLE, {
        retryable: true,
        detail: `${method} ${path}: ${error instanceof Error ? error.message : String(error)}`,
        cause: error,
      });
    }
    const text = await response.text();
    const detail = `${method} ${path} -> ${response.status} ${text.slice(0, 200)}`;
    if (response.status === 401 || response.status === 403) {
      throw new EngineError('upstream_auth', UNAVAILABLE, { detail });
    }
    if (response.status === 429 || response.status >= 500) {
      throw new EngineError('upstream_unavailable', UNAVAILABLE, { retryable: true, detail });
    }
    if (!response.ok) throw new EngineError('upstream_rejected', 'The generation service refused the request.', { detail });
    try {
      return (text ? JSON.parse(text) : null) as T;
    } catch (error) {
      throw new EngineError('upstream_unavailable', UNAVAILABLE, { retryable: true, detail: `invalid JSON: ${detail}`, cause: error });
    }
  }

  function parentId(parent: ParentRef): string {
    if (!parent.upstreamId) throw new EngineError('invalid_input', 'The parent task was not made by this engine.');
    return parent.upstreamId;
  }

  async function fetchTask(id: string, signal: AbortSignal): Promise<UpstreamTask> {
    const task = await call<UpstreamTask | null>('GET', `/task/${encodeURIComponent(id)}/fetch`, signal);
    // novicezk keeps tasks in memory: after an upstream restart the id answers null
    if (!task || typeof task !== 'object') {
      throw new EngineError('upstream_failed', 'The task was lost by the generation service.', { detail: `task ${id} not found`, upstreamId: id });
    }
    return task;
  }

  /** The button that performs an enlargement on an upscaled image (trueai /submit/action). */
  async function upscaleButton(parent: string, type: Exclude<UpscaleType, '1x'>, signal: AbortSignal): Promise<string> {
    const task = await fetchTask(parent, signal);
    const button = (task.buttons ?? []).find((b) => UPSCALE_BUTTONS[type].test(b.customId));
    if (!button) {
      throw new EngineError('unsupported', `Upscale ${type} is not available for this image.`, {
        detail: `no ${type} button on upstream task ${parent}`,
      });
    }
    return button.customId;
  }

  async function submit(job: Extract<EngineJob, { kind: 'imagine' | 'reroll' | 'variation' | 'upscale' }>, signal: AbortSignal): Promise<string> {
    const hook = options.notifyHook ? { notifyHook: options.notifyHook } : {};
    let path: string;
    let body: Record<string, unknown>;
    const modeBase = job.kind === 'imagine' && job.mode ? options.modeBaseUrls?.[job.mode] : undefined;
    const base = modeBase ? modeBase.replace(/\/+$/, '') : baseUrl;
    switch (job.kind) {
      case 'imagine':
        [path, body] = ['/submit/imagine', { prompt: job.prompt }];
        break;
      case 'reroll':
        [path, body] = ['/submit/change', { taskId: parentId(job.parent), action: 'REROLL' }];
        break;
      case 'variation':
        [path, body] = ['/submit/change', { taskId: parentId(job.parent), action: 'VARIATION', index: job.index }];
        break;
      case 'upscale':
        [path, body] =
          job.type === '1x'
            ? ['/submit/change', { taskId: parentId(job.parent), action: 'UPSCALE', index: job.index }]
            : ['/submit/action', { taskId: parentId(job.parent), customId: await upscaleButton(parentId(job.parent), job.type, signal) }];
        break;
    }
    return readSubmitResult(await call<SubmitResult>('POST', path, signal, { ...body, ...hook }, base));
  }

  async function watch(id: string, layout: 'grid' | 'single', report: ProgressListener, signal: AbortSignal): Promise<EngineResult> {
    const deadline = Date.now() + timeoutMs;
    let failures = 0;
    for (;;) {
      let task: UpstreamTask | undefined;
      try {
        task = await fetchTask(id, signal);
        failures = 0;
      } catch (error) {
        if (!(error instanceof EngineError) || !error.retryable) throw error;
        failures += 1;
        if (failures >= maxPollFailures) {
          throw new EngineError(error.code, error.message, { retryable: true, detail: error.detail, upstreamId: id, cause: error });
        }
      }
      if (task) {
        const state = mapStatus(task.status);
        if (state.kind === 'success') return toResult(id, task, layout);
        if (state.kind === 'failure') {
          throw new EngineError('upstream_failed', task.failReason?.trim() || 'The generation failed.', {
            detail: `task ${id} FAILURE`,
            upstreamId: id,
          });
        }
        if (state.kind === 'cancelled') {
          throw new EngineError('upstream_failed', 'The task was cancelled by the generation service.', { upstreamId: id });
        }
        report({ percentage: parseProgress(task.progress) ?? 0, status: state.stage });
      }
      if (Date.now() + pollIntervalMs > deadline) {
        // retryable: a retry resumes watching the same upstream id instead of resubmitting
        throw new EngineError('timeout', 'The generation took too long.', { retryable: true, upstreamId: id, detail: `after ${timeoutMs} ms` });
      }
      try {
        await sleep(pollIntervalMs, undefined, { signal });
      } catch {
        throw abortedError(signal);
      }
    }
  }

  function toResult(id: string, task: UpstreamTask, layout: 'grid' | 'single'): EngineResult {
    if (!task.imageUrl) {
      throw new EngineError('upstream_failed', 'The generation finished without an image.', { upstreamId: id, detail: `task ${id} SUCCESS without imageUrl` });
    }
    const size = { width: task.width ?? undefined, height: task.height ?? undefined };
    const image: EngineImage = { source: 'url', url: task.imageUrl, ...size };
    const cells = readImageUrls(task).map((url): EngineImage => ({ source: 'url', url }));
    return {
      engine: 'midjourney-proxy',
      method: 'midjourney',
      simulated: false,
      layout,
      image,
      // novicezk only returns the grid; trueai also lists the four cells
      images: layout === 'single' ? [image] : cells,
      seed: readSeed(task.seed),
      ...size,
      upstreamId: id,
    };
  }

  async function seed(parent: ParentRef, signal: AbortSignal): Promise<EngineResult> {
    const known = parent.seed;
    const value = known ?? readSeed((await call<SubmitResult>('GET', `/task/${encodeURIComponent(parentId(parent))}/image-seed`, signal)).result);
    if (value === undefined) throw new EngineError('upstream_failed', 'The seed of this image is not available.', { upstreamId: parent.upstreamId });
    return { engine: 'midjourney-proxy', method: 'image-seed', simulated: false, layout: 'none', images: [], seed: value, upstreamId: parent.upstreamId };
  }

  return defineEngine({
    name: 'midjourney-proxy',
    kinds: KINDS,
    async execute(job, report, signal) {
      if (job.kind === 'seed') return seed(job.parent, signal);
      if (job.kind !== 'imagine' && job.kind !== 'reroll' && job.kind !== 'variation' && job.kind !== 'upscale') {
        throw new EngineError('unsupported', `This engine cannot run ${job.kind} tasks.`);
      }
      let id = job.resumeUpstreamId;
      if (!id) {
        report({ percentage: 0, status: 'starting' });
        id = await submit(job, signal);
      }
      report({ percentage: 0, status: 'submitted', upstreamId: id });
      return watch(id, job.kind === 'upscale' ? 'single' : 'grid', report, signal);
    },
  });
}
