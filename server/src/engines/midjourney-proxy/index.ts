/**
 * @module Engine adapter for a midjourney-proxy-compatible upstream (novicezk, trueai-org,
 * or a new-api relay): submit the action, then poll /task/{id}/fetch until it is terminal.
 * Callbacks (notifyHook) are only hints upstream (no signature, no retry), so polling is
 * the source of truth. Results are the upstream's image URLs; copying them into our media
 * store is the caller's job (Discord CDN links expire).
 *
 * How each job reaches the upstream (upstream-protocols.md C1):
 * - imagine /submit/imagine (`--ar` appended for an aspect ratio); reroll, variation and the
 *   plain U upscale /submit/change; a reroll with a new prompt is a new /submit/imagine.
 * - blend /submit/blend {base64Array, dimensions}; describe /submit/describe {base64} (its four
 *   prompts read from `properties.finalPrompt`); shorten /submit/shorten {prompt} (trueai).
 * - upscale subtle/creative/2x/4x, pan, zoom out, vary strong/subtle and vary region press the
 *   matching button of an upscaled image with /submit/action {taskId, customId} (trueai/plus);
 *   Custom Zoom and Vary (Region) open a modal, confirmed with /submit/modal {taskId, prompt,
 *   maskBase64}. On a grid parent the cell is upscaled first (U{index}, as the pro API does);
 *   that first step is reported with the upstream id `u:<id>`, so a retry resumes it instead
 *   of paying for it twice.
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
  type ImageInput,
  type ParentRef,
  type ProgressListener,
} from '../engine.ts';
import {
  ACTION_BUTTONS,
  mapStatus,
  parseProgress,
  readImageUrls,
  readPromptList,
  readSeed,
  readSubmitResult,
  type SubmitResult,
  UPSCALE_BUTTONS,
  type UpstreamTask,
} from './protocol.ts';

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

const KINDS: readonly EngineJobKind[] = [
  'imagine',
  'reroll',
  'variation',
  'upscale',
  'seed',
  'blend',
  'describe',
  'shorten',
  'pan',
  'outpaint',
  'inpaint',
  'vary',
];

const UNAVAILABLE = 'The generation service is unavailable right now, please try again.';

/** The upstream id of the U step a two-step job reported (a retry continues from it). */
const UPSCALE_STEP = 'u:';

/** The part of the progress bar each step of a two-step job fills. */
interface Span {
  from: number;
  to: number;
}
const WHOLE: Span = { from: 0, to: 100 };
const FIRST_STEP: Span = { from: 0, to: 30 };
const SECOND_STEP: Span = { from: 30, to: 100 };

type Submitted = Exclude<EngineJob, { kind: 'seed' }>;
/** Jobs that press a button of an upscaled image. */
type ButtonJob = Extract<EngineJob, { kind: 'upscale' | 'pan' | 'outpaint' | 'inpaint' | 'vary' }>;

/** What confirming a modal sends: the prompt and, for Vary (Region), the mask. */
interface ModalAnswer {
  prompt: string;
  maskBase64?: string;
}

const DIMENSIONS = { square: 'SQUARE', portrait: 'PORTRAIT', landscape: 'LANDSCAPE' } as const;

const dataUri = (image: ImageInput) => `data:${image.contentType};base64,${image.data.toString('base64')}`;

/** A prompt without the parameters a Custom Zoom sets itself. */
const withoutZoomParameters = (prompt: string) => prompt.replace(/\s--(ar|aspect|zoom)\s+\S+/gi, '').trim();

function hasAspectParameter(prompt: string): boolean {
  return /(^|\s)--(ar|aspect)\s/i.test(prompt);
}

export function createMidjourneyProxyEngine(options: MidjourneyProxyOptions): Engine {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const pollIntervalMs = options.pollIntervalMs ?? 3000;
  const timeoutMs = options.timeoutMs ?? 10 * 60_000;
  const requestTimeoutMs = options.requestTimeoutMs ?? 15_000;
  const maxPollFailures = options.maxPollFailures ?? 5;
  const doFetch = options.fetch ?? fetch;
  const hook = options.notifyHook ? { notifyHook: options.notifyHook } : {};

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
    // trueai answers an unknown parent with 404 and a SubmitResultVO (code 3): read it as such
    if (method === 'POST' && response.status === 404 && /"code"\s*:\s*3\b/.test(text)) return JSON.parse(text) as T;
    if (!response.ok) throw new EngineError('upstream_rejected', 'The generation service refused the request.', { detail });
    try {
      return (text ? JSON.parse(text) : null) as T;
    } catch (error) {
      throw new EngineError('upstream_unavailable', UNAVAILABLE, { retryable: true, detail: `invalid JSON: ${detail}`, cause: error });
    }
  }

  const submitTo = async (path: string, body: Record<string, unknown>, signal: AbortSignal, base = baseUrl) =>
    readSubmitResult(await call<SubmitResult>('POST', path, signal, { ...body, ...hook }, base));

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

  // ---- what to press -----------------------------------------------------------------------

  /** The button of `target` (an upscaled image) that performs `job`, and the modal it opens, if any. */
  function buttonFor(job: ButtonJob): { matches: RegExp; label: string; modal?: ModalAnswer } {
    switch (job.kind) {
      case 'upscale':
        if (job.type === '1x') throw new EngineError('internal', 'A plain upscale has no button.');
        return { matches: UPSCALE_BUTTONS[job.type], label: `Upscale ${job.type}` };
      case 'pan':
        return { matches: ACTION_BUTTONS.pan[job.direction], label: `Pan ${job.direction}` };
      case 'vary':
        return { matches: job.type === 'strong' ? ACTION_BUTTONS.varyStrong : ACTION_BUTTONS.varySubtle, label: `Vary (${job.type})` };
      case 'inpaint':
        return { matches: ACTION_BUTTONS.inpaint, label: 'Vary (Region)', modal: { prompt: job.prompt, maskBase64: dataUri(job.mask) } };
      case 'outpaint': {
        const custom = job.aspectRatio !== undefined || job.prompt !== undefined || (job.zoom !== 1.5 && job.zoom !== 2);
        if (!custom) return { matches: job.zoom === 2 ? ACTION_BUTTONS.zoomOut2x : ACTION_BUTTONS.zoomOut15x, label: `Zoom Out ${job.zoom}x` };
        const base = withoutZoomParameters(job.prompt ?? job.parent.prompt ?? '');
        const prompt = [base, job.aspectRatio ? `--ar ${job.aspectRatio}` : '', `--zoom ${job.zoom}`].filter(Boolean).join(' ');
        return { matches: ACTION_BUTTONS.customZoom, label: 'Custom Zoom', modal: { prompt } };
      }
    }
  }

  /** The customId of the button on `target` that does `job`, or a clear refusal. */
  async function pressButton(job: ButtonJob, target: string, signal: AbortSignal): Promise<string> {
    const { matches, label } = buttonFor(job);
    const task = await fetchTask(target, signal);
    const button = (task.buttons ?? []).find((b) => matches.test(b.customId));
    if (!button) {
      throw new EngineError('unsupported', `${label} is not available for this image.`, {
        detail: `no ${label} button on upstream task ${target} (needs a trueai/plus midjourney-proxy)`,
      });
    }
    return submitTo('/submit/action', { taskId: target, customId: button.customId }, signal);
  }

  /** Whether `job` runs on one cell of a grid, which must be upscaled (U) first. */
  function needsUpscaleFirst(job: Submitted): boolean {
    return (
      (job.kind === 'pan' || job.kind === 'outpaint' || job.kind === 'inpaint' || job.kind === 'vary' || (job.kind === 'upscale' && job.type !== '1x')) &&
      job.parent.layout === 'grid'
    );
  }

  // ---- submitting ---------------------------------------------------------------------------

  async function submit(job: Submitted, report: ProgressListener, signal: AbortSignal): Promise<string> {
    switch (job.kind) {
      case 'imagine': {
        const modeBase = job.mode ? options.modeBaseUrls?.[job.mode] : undefined;
        const prompt = job.aspectRatio && !hasAspectParameter(job.prompt) ? `${job.prompt} --ar ${job.aspectRatio}` : job.prompt;
        return submitTo('/submit/imagine', { prompt }, signal, modeBase ? modeBase.replace(/\/+$/, '') : baseUrl);
      }
      case 'reroll':
        // a reroll with a new prompt is that prompt imagined anew (Midjourney's remix of 🔄)
        if (job.prompt) return submitTo('/submit/imagine', { prompt: job.prompt }, signal);
        return submitTo('/submit/change', { taskId: parentId(job.parent), action: 'REROLL' }, signal);
      case 'variation':
        return submitTo('/submit/change', { taskId: parentId(job.parent), action: 'VARIATION', index: job.index }, signal);
      case 'blend':
        return submitTo('/submit/blend', { base64Array: job.images.map(dataUri), dimensions: DIMENSIONS[job.dimension] }, signal);
      case 'describe':
        return submitTo('/submit/describe', { base64: dataUri(job.image) }, signal);
      case 'shorten':
        return submitTo('/submit/shorten', { prompt: job.prompt }, signal);
      case 'upscale':
        if (job.type === '1x') return submitTo('/submit/change', { taskId: parentId(job.parent), action: 'UPSCALE', index: job.index }, signal);
        return pressOn(job, report, signal);
      case 'pan':
      case 'outpaint':
      case 'inpaint':
      case 'vary':
        return pressOn(job, report, signal);
      default:
        throw new EngineError('unsupported', `This engine cannot run ${job.kind} tasks.`);
    }
  }

  /** Presses the job's button on its upscaled parent; on a grid parent, upscales the cell first. */
  async function pressOn(job: ButtonJob, report: ProgressListener, signal: AbortSignal): Promise<string> {
    if (!needsUpscaleFirst(job)) return pressButton(job, parentId(job.parent), signal);
    if (job.index === undefined) throw new EngineError('invalid_input', 'Name one image of the grid (index 1–4) to work on.');
    const upscaled = await submitTo('/submit/change', { taskId: parentId(job.parent), action: 'UPSCALE', index: job.index }, signal);
    report({ percentage: 0, status: 'submitted', upstreamId: `${UPSCALE_STEP}${upscaled}` });
    return continueFromUpscale(job, upscaled, report, signal);
  }

  /** Waits for the U step of a two-step job, then presses the job's button on its result. */
  async function continueFromUpscale(job: ButtonJob, upscaled: string, report: ProgressListener, signal: AbortSignal): Promise<string> {
    await waitFor(upscaled, report, signal, FIRST_STEP);
    return pressButton(job, upscaled, signal);
  }

  // ---- watching -----------------------------------------------------------------------------

  /**
   * Polls `id` until it succeeds (answers the task) or fails. A task waiting in MODAL gets
   * `modal` confirmed once (Custom Zoom, Vary (Region); a remix-mode account asks for it on
   * other buttons too, then the parent's prompt is confirmed).
   */
  async function waitFor(
    id: string,
    report: ProgressListener,
    signal: AbortSignal,
    span: Span,
    modal?: ModalAnswer,
  ): Promise<{ id: string; task: UpstreamTask }> {
    const deadline = Date.now() + timeoutMs;
    let failures = 0;
    let current = id;
    let confirmed = false;
    for (;;) {
      let task: UpstreamTask | undefined;
      try {
        task = await fetchTask(current, signal);
        failures = 0;
      } catch (error) {
        if (!(error instanceof EngineError) || !error.retryable) throw error;
        failures += 1;
        if (failures >= maxPollFailures) {
          throw new EngineError(error.code, error.message, { retryable: true, detail: error.detail, upstreamId: current, cause: error });
        }
      }
      if (task) {
        const state = mapStatus(task.status);
        if (state.kind === 'success') return { id: current, task };
        if (state.kind === 'failure') {
          throw new EngineError('upstream_failed', task.failReason?.trim() || 'The generation failed.', {
            detail: `task ${current} FAILURE`,
            upstreamId: current,
          });
        }
        if (state.kind === 'cancelled') {
          throw new EngineError('upstream_failed', 'The task was cancelled by the generation service.', { upstreamId: current });
        }
        if (task.status?.toUpperCase() === 'MODAL' && modal && !confirmed) {
          confirmed = true;
          const next = await submitTo(
            '/submit/modal',
            { taskId: current, prompt: modal.prompt, ...(modal.maskBase64 ? { maskBase64: modal.maskBase64 } : {}) },
            signal,
          );
          if (next !== current) {
            current = next;
            report({ percentage: span.from, upstreamId: current });
          }
          continue;
        }
        const percentage = parseProgress(task.progress) ?? 0;
        report({ percentage: span.from + ((span.to - span.from) * percentage) / 100, status: state.stage });
      }
      if (Date.now() + pollIntervalMs > deadline) {
        // retryable: a retry resumes watching the same upstream id instead of resubmitting
        throw new EngineError('timeout', 'The generation took too long.', { retryable: true, upstreamId: current, detail: `after ${timeoutMs} ms` });
      }
      try {
        await sleep(pollIntervalMs, undefined, { signal });
      } catch {
        throw abortedError(signal);
      }
    }
  }

  /** What confirming a modal of `job`'s task sends. */
  function modalOf(job: Submitted): ModalAnswer | undefined {
    if (job.kind === 'upscale' && job.type === '1x') return undefined;
    if (job.kind === 'upscale' || job.kind === 'pan' || job.kind === 'outpaint' || job.kind === 'inpaint' || job.kind === 'vary') {
      const modal = buttonFor(job).modal;
      if (modal) return modal;
    }
    const prompt = 'parent' in job ? job.parent.prompt : undefined;
    return prompt ? { prompt } : undefined;
  }

  function toResult(id: string, task: UpstreamTask, job: Submitted): EngineResult {
    if (job.kind === 'describe' || job.kind === 'shorten') {
      const text = task.properties?.finalPrompt || (job.kind === 'describe' ? task.promptEn || task.prompt : task.description) || '';
      const texts = readPromptList(text);
      if (texts.length === 0) {
        throw new EngineError('upstream_failed', 'The generation finished without an answer.', { upstreamId: id, detail: `task ${id} SUCCESS without text` });
      }
      const data = job.kind === 'shorten' ? { full_content: text } : undefined;
      return {
        engine: 'midjourney-proxy',
        method: 'midjourney',
        simulated: false,
        layout: 'none',
        images: [],
        texts,
        ...(data ? { data } : {}),
        upstreamId: id,
      };
    }
    if (!task.imageUrl) {
      throw new EngineError('upstream_failed', 'The generation finished without an image.', { upstreamId: id, detail: `task ${id} SUCCESS without imageUrl` });
    }
    const layout = job.kind === 'upscale' ? 'single' : 'grid';
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
      const submitted: Submitted = job;
      let id = submitted.resumeUpstreamId;
      const twoStep = needsUpscaleFirst(submitted);
      if (id?.startsWith(UPSCALE_STEP) && twoStep) {
        // a previous attempt died during or right after the U step: finish it, then press the button
        id = await continueFromUpscale(submitted as ButtonJob, id.slice(UPSCALE_STEP.length), report, signal);
      } else if (!id) {
        report({ percentage: 0, status: 'starting' });
        id = await submit(submitted, report, signal);
      }
      const span = twoStep ? SECOND_STEP : WHOLE;
      report({ percentage: span.from, status: 'submitted', upstreamId: id });
      const done = await waitFor(id, report, signal, span, modalOf(submitted));
      return toResult(done.id, done.task, submitted);
    },
  });
}
