/**
 * @module The one wrapper every engine adapter goes through, so the guarantees of the port
 * hold whatever the adapter does: progress is monotonic and stops once the run settles or
 * is aborted, an abort settles the run at once, and every failure is an EngineError.
 */
import {
  type Engine,
  type EngineJob,
  type EngineJobKind,
  type EngineProgress,
  type EngineResult,
  EngineError,
  GENERIC_ENGINE_FAILURE,
  type ProgressListener,
} from './engine.ts';

export interface EngineImplementation {
  name: string;
  kinds: readonly EngineJobKind[];
  /** Kinds it only simulates (see Engine.simulatedKinds). */
  simulatedKinds?: readonly EngineJobKind[];
  /**
   * Does the work. May report progress freely (out-of-order or repeated values are
   * filtered); should stop early when `signal` aborts, but need not: the run settles anyway.
   */
  execute(job: EngineJob, report: ProgressListener, signal: AbortSignal): Promise<EngineResult>;
  /** See Engine.cancelUpstream. */
  cancelUpstream?(upstreamId: string): Promise<void>;
}

/**
 * Filters a progress stream so the listener only ever sees rising percentages (integers
 * clamped to 0–100). An equal percentage passes only when it carries news: a new status or
 * a newly known upstream id.
 */
export function monotonicProgress(listener: ProgressListener): ProgressListener {
  let last = -1;
  let lastStatus: EngineProgress['status'];
  let upstreamId: string | undefined;
  return (progress) => {
    if (!Number.isFinite(progress.percentage)) return;
    const percentage = Math.min(100, Math.max(0, Math.floor(progress.percentage)));
    const newStatus = progress.status !== undefined && progress.status !== lastStatus;
    const newUpstreamId = progress.upstreamId !== undefined && progress.upstreamId !== upstreamId;
    const next = Math.max(percentage, last);
    if (next === last && !newStatus && !newUpstreamId) return;
    last = next;
    if (progress.status !== undefined) lastStatus = progress.status;
    if (progress.upstreamId !== undefined) upstreamId = progress.upstreamId;
    const out: EngineProgress = { percentage: next };
    if (progress.status !== undefined) out.status = progress.status;
    if (progress.upstreamId !== undefined) out.upstreamId = progress.upstreamId;
    listener(out);
  };
}

export function abortedError(signal: AbortSignal): EngineError {
  return new EngineError('aborted', 'The task was cancelled.', {
    retryable: false,
    detail: signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? ''),
  });
}

/** Rejects with an EngineError('aborted') as soon as `signal` aborts, whatever `work` does. */
function settleOnAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortedError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function toEngineError(error: unknown, signal: AbortSignal): EngineError {
  if (error instanceof EngineError) return error;
  if (signal.aborted) return abortedError(signal);
  return new EngineError('internal', GENERIC_ENGINE_FAILURE, {
    retryable: false,
    detail: error instanceof Error ? error.message : String(error),
    cause: error,
  });
}

export function defineEngine(impl: EngineImplementation): Engine {
  const supports = (kind: EngineJobKind) => impl.kinds.includes(kind);
  return {
    name: impl.name,
    kinds: impl.kinds,
    simulatedKinds: impl.simulatedKinds ?? [],
    ...(impl.cancelUpstream ? { cancelUpstream: (upstreamId: string) => impl.cancelUpstream!(upstreamId).catch(() => undefined) } : {}),
    supports,
    async run(job: EngineJob, onProgress: ProgressListener, signal: AbortSignal): Promise<EngineResult> {
      if (!supports(job.kind)) {
        throw new EngineError('unsupported', `This engine cannot run ${job.kind} tasks.`, { detail: impl.name });
      }
      if (signal.aborted) throw abortedError(signal);
      let open = true;
      const forward = monotonicProgress(onProgress);
      const report: ProgressListener = (progress) => {
        if (open && !signal.aborted) forward(progress);
      };
      try {
        // the async wrapper turns a synchronous throw inside execute into a rejection
        const work = (async () => impl.execute(job, report, signal))();
        const result = await settleOnAbort(work, signal);
        report({ percentage: 100 });
        return result;
      } catch (error) {
        throw toEngineError(error, signal);
      } finally {
        open = false;
      }
    },
  };
}

/** Throws EngineError('aborted') if the run was cancelled; call between expensive steps. */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw abortedError(signal);
}
