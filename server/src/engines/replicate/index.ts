/**
 * @module Engine adapter for a face-swap model hosted on Replicate (upstream-protocols.md C2):
 * create a prediction, then poll GET /v1/predictions/{id} with a growing interval until it is
 * terminal. Polling rather than `Prefer: wait`: the prediction id is known (and reported, so
 * a retry after a crash watches it instead of paying twice) before any waiting starts.
 * Pictures go as the user's URL when it is public https (Replicate fetches it), else as a
 * data URI of the bytes the worker read. The output URL is returned as is; the worker copies
 * it into our media store, since Replicate deletes API outputs after about an hour.
 *
 * Default model `cdingram/face-swap` (inputs `swap_image`: the face to use, `input_image`:
 * the picture to put it on; output one image URL). Another model works when its input names
 * are configured and its output is a URL or a list of URLs.
 */
import { checkImageUrl } from '../../storage/image-url.ts';
import { defineEngine } from '../define-engine.ts';
import { type Engine, type EngineImage, type EngineResult, EngineError, type ImageInput, type ProgressListener } from '../engine.ts';
import { createReplicateClient, pollUntilDone, type ReplicateClientOptions } from './client.ts';
import { createRequest, failureMessage, type ModelRef, mapStatus, type Prediction, parseModelRef, progressFromLogs, readOutputUrl } from './protocol.ts';

export const DEFAULT_FACESWAP_MODEL = 'cdingram/face-swap:d1d6ea8c8be89d664a07a457526f7128109dee7030fdac424788d762c71ed111';

/** The client's options (token, base URL, timeouts, 429 handling) and the model's. */
export interface ReplicateFaceswapOptions extends ReplicateClientOptions {
  /** `owner/name` (latest version) or `owner/name:<version id>`. Default DEFAULT_FACESWAP_MODEL. */
  model?: string;
  /** The model's input field for the face to use. Default `swap_image`. */
  sourceInput?: string;
  /** The model's input field for the picture whose face is replaced. Default `input_image`. */
  targetInput?: string;
  /** First delay between polls, growing by half each time. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Longest delay between polls. Default 5000 ms. */
  maxPollIntervalMs?: number;
  /** Cancel the prediction and fail after this long. Default 10 minutes (Replicate's own limit is 30). */
  timeoutMs?: number;
  /** Consecutive failed polls tolerated before the run fails (retryably, resumable). Default 5. */
  maxPollFailures?: number;
}

const NAME = 'replicate-faceswap';
const UNAVAILABLE = 'The face swap service is unavailable right now, please try again.';
const BUSY = 'The face swap service is busy, please try again shortly.';

/** The user's URL when Replicate can fetch it itself (public https), else the bytes as a data URI. */
function imageValue(image: ImageInput): string {
  if (/^https:\/\//i.test(image.url) && 'url' in checkImageUrl(image.url, { embedded: false })) return image.url;
  return `data:${image.contentType};base64,${image.data.toString('base64')}`;
}

export function createReplicateFaceswapEngine(options: ReplicateFaceswapOptions): Engine {
  const modelText = options.model ?? DEFAULT_FACESWAP_MODEL;
  const parsed = parseModelRef(modelText);
  if (!parsed) throw new Error(`Replicate model must be owner/name or owner/name:<64-hex version id>, got ${JSON.stringify(modelText)}`);
  const model: ModelRef = parsed;
  const sourceInput = options.sourceInput ?? 'swap_image';
  const targetInput = options.targetInput ?? 'input_image';
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const maxPollIntervalMs = options.maxPollIntervalMs ?? 5000;
  const timeoutMs = options.timeoutMs ?? 10 * 60_000;
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const maxPollFailures = options.maxPollFailures ?? 5;
  const { call } = createReplicateClient(options, { unavailable: UNAVAILABLE, busy: BUSY, rejected: 'The face swap service refused the request.' });

  async function create(source: ImageInput, target: ImageInput, signal: AbortSignal): Promise<Prediction> {
    const request = createRequest(model, { [sourceInput]: imageValue(source), [targetInput]: imageValue(target) });
    const prediction = await call<Prediction>('POST', request.path, signal, request.body);
    if (!prediction || typeof prediction.id !== 'string' || !prediction.id) {
      throw new EngineError('upstream_unavailable', UNAVAILABLE, { retryable: true, detail: `POST ${request.path}: no prediction id in the answer` });
    }
    return prediction;
  }

  const get = (id: string, signal: AbortSignal, missingOk = false) =>
    call<Prediction>('GET', `/v1/predictions/${encodeURIComponent(id)}`, signal, undefined, { missingOk });

  /** Best effort: stop paying for a prediction we gave up on. */
  async function cancel(id: string): Promise<void> {
    await call('POST', `/v1/predictions/${encodeURIComponent(id)}/cancel`, AbortSignal.timeout(requestTimeoutMs)).catch(() => undefined);
  }

  /** A previous attempt's prediction worth watching again, or undefined to start a new one. */
  async function resumable(id: string, signal: AbortSignal): Promise<Prediction | undefined> {
    const prediction = await get(id, signal, true);
    if (!prediction) return undefined;
    const state = mapStatus(prediction.status);
    // aborted never ran (not charged); a success whose output Replicate already deleted is of no use
    if (state.kind === 'aborted') return undefined;
    if (state.kind === 'succeeded' && (prediction.data_removed || !readOutputUrl(prediction.output))) return undefined;
    return prediction;
  }

  function progressOf(prediction: Prediction, stage: string, elapsedMs: number): number {
    if (stage === 'starting') return 5;
    const logged = progressFromLogs(prediction.logs);
    if (logged !== undefined) return 10 + Math.floor(logged * 0.85);
    // no progress bar in the logs: creep towards 90 % over the time a swap usually takes
    return 10 + Math.floor(80 * (1 - Math.exp(-elapsedMs / 15_000)));
  }

  function toResult(prediction: Prediction): EngineResult {
    const url = readOutputUrl(prediction.output);
    if (!url) {
      throw new EngineError('upstream_failed', 'The face swap finished without an image.', {
        upstreamId: prediction.id,
        detail: `prediction ${prediction.id} output ${JSON.stringify(prediction.output ?? null).slice(0, 200)}`,
      });
    }
    const image: EngineImage = { source: 'url', url };
    return {
      engine: NAME,
      method: 'faceswap',
      simulated: false,
      note: `${modelText} on Replicate`,
      layout: 'single',
      image,
      images: [image],
      upstreamId: prediction.id,
    };
  }

  async function watch(first: Prediction, report: ProgressListener, signal: AbortSignal): Promise<EngineResult> {
    const { id } = first;
    const { job: prediction, state } = await pollUntilDone(
      first,
      {
        get: async (pid, s) => (await get(pid, s)) as Prediction,
        cancel,
        onActive: (p, stage, elapsedMs) => report({ percentage: progressOf(p, stage, elapsedMs), status: stage }),
        timedOut: (pid) =>
          new EngineError('timeout', 'The face swap took too long.', { upstreamId: pid, detail: `prediction ${pid} cancelled after ${timeoutMs} ms` }),
        intervalMs: pollIntervalMs,
        maxIntervalMs: maxPollIntervalMs,
        timeoutMs,
        maxFailures: maxPollFailures,
      },
      signal,
    );
    switch (state.kind) {
      case 'succeeded':
        return toResult(prediction);
      case 'failed':
        throw new EngineError('upstream_failed', failureMessage(prediction.error), {
          upstreamId: id,
          detail: `prediction ${id} failed: ${String(prediction.error ?? '').slice(0, 500)}`,
        });
      case 'canceled':
        throw new EngineError('upstream_failed', 'The face swap was cancelled by the face swap service.', { upstreamId: id });
      default:
        // aborted: never started, not charged; another attempt starts a new prediction (see resumable)
        throw new EngineError('upstream_busy', BUSY, { retryable: true, upstreamId: id, detail: `prediction ${id} aborted` });
    }
  }

  return defineEngine({
    name: NAME,
    kinds: ['faceswap'],
    async execute(job, report, signal) {
      if (job.kind !== 'faceswap') throw new EngineError('unsupported', `This engine cannot run ${job.kind} tasks.`);
      let prediction = job.resumeUpstreamId ? await resumable(job.resumeUpstreamId, signal) : undefined;
      if (!prediction) {
        report({ percentage: 0, status: 'starting' });
        prediction = await create(job.source, job.target, signal);
      }
      report({ percentage: 2, status: 'submitted', upstreamId: prediction.id });
      return watch(prediction, report, signal);
    },
  });
}

/**
 * The adapter's options from REPLICATE_API_TOKEN (unset: no hosted face swap),
 * REPLICATE_FACESWAP_MODEL, REPLICATE_FACESWAP_SOURCE_INPUT, REPLICATE_FACESWAP_TARGET_INPUT
 * and REPLICATE_API_BASE. Throws naming the variable when the model is not a model reference.
 */
export function replicateFaceswapOptionsFromEnv(env: NodeJS.ProcessEnv): ReplicateFaceswapOptions | undefined {
  const apiToken = env.REPLICATE_API_TOKEN?.trim();
  if (!apiToken) return undefined;
  const model = env.REPLICATE_FACESWAP_MODEL?.trim() || undefined;
  if (model && !parseModelRef(model)) {
    throw new Error(`REPLICATE_FACESWAP_MODEL must be owner/name or owner/name:<64-hex version id>, got ${JSON.stringify(model)}`);
  }
  return {
    apiToken,
    model,
    sourceInput: env.REPLICATE_FACESWAP_SOURCE_INPUT?.trim() || undefined,
    targetInput: env.REPLICATE_FACESWAP_TARGET_INPUT?.trim() || undefined,
    baseUrl: env.REPLICATE_API_BASE?.trim() || undefined,
  };
}
