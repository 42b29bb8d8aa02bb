/**
 * @module What every Replicate adapter does the same way (upstream-protocols.md C2): calls
 * with `Authorization: Bearer <token>`, JSON or multipart bodies, errors mapped onto the
 * Engine port (429 waited out per its `retry-after` a few times, then retryable; 5xx and
 * network failures retryable; 401/403 an auth problem; 402 the account out of credit; other
 * refusals not retryable, their problem details in the operator's detail only), and the
 * poll loop that follows a prediction or a training to a terminal status with a growing
 * interval, tolerating a few failed polls and cancelling what runs too long.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { abortedError, throwIfAborted } from '../define-engine.ts';
import { EngineError, type EngineStage, isCancelled } from '../engine.ts';
import { mapStatus, type PredictionState, problemText, retryAfterMs } from './protocol.ts';

/** What the user is told when the service fails (each adapter names its own service). */
export interface ServiceMessages {
  unavailable: string;
  busy: string;
  rejected: string;
}

export interface ReplicateClientOptions {
  /** `r8_…`, sent as `Authorization: Bearer`. */
  apiToken: string;
  /** Default `https://api.replicate.com`. */
  baseUrl?: string;
  /** Per HTTP request. Default 30 s. */
  requestTimeoutMs?: number;
  /** 429 answers waited out (per its `retry-after`) per call before failing retryably. Default 3. */
  maxRateLimitWaits?: number;
  /** A longer `retry-after` is not waited here but left to the job queue's backoff. Default 30 s. */
  maxRetryAfterMs?: number;
  fetch?: typeof fetch;
}

export interface CallOptions {
  /** A 404 answers undefined instead of failing. */
  missingOk?: boolean;
  /** Per-call request timeout (an upload may need longer). */
  timeoutMs?: number;
}

export interface ReplicateClient {
  readonly baseUrl: string;
  /** One API call; `body` is sent as JSON, or as multipart when it is FormData. */
  call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, signal: AbortSignal, body?: unknown, options?: CallOptions): Promise<T | undefined>;
}

async function pause(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch {
    throw abortedError(signal);
  }
}

export function createReplicateClient(options: ReplicateClientOptions, messages: ServiceMessages): ReplicateClient {
  const baseUrl = (options.baseUrl ?? 'https://api.replicate.com').replace(/\/+$/, '');
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const maxRateLimitWaits = options.maxRateLimitWaits ?? 3;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 30_000;
  const doFetch = options.fetch ?? fetch;

  async function call<T>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    signal: AbortSignal,
    body?: unknown,
    callOptions: CallOptions = {},
  ): Promise<T | undefined> {
    for (let waits = 0; ; waits++) {
      const headers: Record<string, string> = { authorization: `Bearer ${options.apiToken}`, accept: 'application/json' };
      const multipart = body instanceof FormData;
      // multipart: fetch writes the content type with its boundary
      if (body !== undefined && !multipart) headers['content-type'] = 'application/json';
      let response: Response;
      try {
        response = await doFetch(`${baseUrl}${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : multipart ? body : JSON.stringify(body),
          signal: AbortSignal.any([signal, AbortSignal.timeout(callOptions.timeoutMs ?? requestTimeoutMs)]),
        });
      } catch (error) {
        throwIfAborted(signal);
        throw new EngineError('upstream_unavailable', messages.unavailable, {
          retryable: true,
          detail: `${method} ${path}: ${error instanceof Error ? error.message : String(error)}`,
          cause: error,
        });
      }
      const text = await response.text();
      const detail = `${method} ${path} -> ${response.status} ${problemText(text)}`;
      if (response.status === 429) {
        const wait = retryAfterMs(response.headers.get('retry-after')) ?? 1000 * 2 ** waits;
        if (waits < maxRateLimitWaits && wait <= maxRetryAfterMs) {
          await pause(wait, signal);
          continue;
        }
        throw new EngineError('upstream_busy', messages.busy, { retryable: true, detail });
      }
      if (response.status === 404 && callOptions.missingOk) return undefined;
      if (response.status === 401 || response.status === 403) throw new EngineError('upstream_auth', messages.unavailable, { detail });
      // 402: the Replicate account is out of credit, an operator's problem no retry fixes
      if (response.status === 402) throw new EngineError('upstream_unavailable', messages.unavailable, { detail });
      if (response.status >= 500) throw new EngineError('upstream_unavailable', messages.unavailable, { retryable: true, detail });
      if (!response.ok) throw new EngineError('upstream_rejected', messages.rejected, { detail });
      if (response.status === 204 || text === '') return undefined;
      try {
        return JSON.parse(text) as T;
      } catch (error) {
        throw new EngineError('upstream_unavailable', messages.unavailable, { retryable: true, detail: `invalid JSON: ${detail}`, cause: error });
      }
    }
  }

  return { baseUrl, call };
}

/** A prediction or a training: what the poll loop reads. */
export interface UpstreamJob {
  id: string;
  status?: string;
}

export interface PollOptions<T extends UpstreamJob> {
  get(id: string, signal: AbortSignal): Promise<T>;
  /** Best effort: stop paying for a job given up on. */
  cancel(id: string): Promise<void>;
  /** Called on every active state with the time since watching started. */
  onActive(job: T, stage: EngineStage, elapsedMs: number): void;
  /** The error thrown after `timeoutMs` (the job has been cancelled). */
  timedOut(id: string): EngineError;
  /** First delay between polls, growing by half each time. */
  intervalMs: number;
  maxIntervalMs: number;
  timeoutMs: number;
  /** Consecutive failed polls tolerated before failing (retryably, with the id, so a retry resumes). */
  maxFailures: number;
}

/**
 * Polls `first` until it is terminal (succeeded, failed, canceled or aborted) and answers it
 * with its state; the caller maps the outcome.
 */
export async function pollUntilDone<T extends UpstreamJob>(
  first: T,
  options: PollOptions<T>,
  signal: AbortSignal,
): Promise<{ job: T; state: PredictionState }> {
  const { id } = first;
  const started = Date.now();
  let interval = options.intervalMs;
  let failures = 0;
  let job = first;
  for (;;) {
    const state = mapStatus(job.status);
    if (state.kind !== 'active') return { job, state };
    options.onActive(job, state.stage, Date.now() - started);
    if (Date.now() - started + interval > options.timeoutMs) {
      await options.cancel(id);
      throw options.timedOut(id);
    }
    try {
      await pause(interval, signal);
    } catch (error) {
      // its owner cancelled the task (POST /cancel): stop paying for it upstream too
      if (isCancelled(signal)) await options.cancel(id);
      throw error;
    }
    interval = Math.min(options.maxIntervalMs, Math.ceil(interval * 1.5));
    try {
      job = await options.get(id, signal);
      failures = 0;
    } catch (error) {
      if (isCancelled(signal)) await options.cancel(id);
      if (!(error instanceof EngineError) || !error.retryable) throw error;
      failures += 1;
      if (failures >= options.maxFailures) {
        // retryable with the id: the next attempt watches the same job
        throw new EngineError(error.code, error.message, { retryable: true, upstreamId: id, detail: error.detail, cause: error });
      }
    }
  }
}
