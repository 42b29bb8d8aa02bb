/**
 * @module The main-thread side of the face worker: one worker_threads Worker per process,
 * started on first use, fed one request at a time (WASM runs on one core; the models load
 * once, in the worker). The worker holds the process open only while a request is in flight,
 * so an idle engine never keeps tests or a stopping server alive. A crashed worker fails its
 * request and the next request starts a new one. A request whose signal aborts while it runs
 * (its job ran past its time limit, say, with the worker stuck in it) terminates the worker:
 * the request fails at once and the next one starts a new worker.
 */
import { Worker } from 'node:worker_threads';
import type { FaceWorkerRequest, FaceWorkerResponse, SwapStage } from './protocol.ts';

/** A request as callers give it (each variant without its id; the id is assigned here). */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
type NewRequest = WithoutId<FaceWorkerRequest>;

/** What a request can end in (a `failed` answer is a normal answer, not a rejection). */
type FinalResponse = Exclude<FaceWorkerResponse, { type: 'progress' }>;

interface InFlight {
  resolve(response: FinalResponse): void;
  reject(error: Error): void;
  onStage(stage: SwapStage): void;
}

let worker: Worker | undefined;
let inFlight: { id: number; worker: Worker; handlers: InFlight } | undefined;
let lastId = 0;
/** Requests wait here for the one before them to finish: concurrency 1. */
let queue: Promise<unknown> = Promise.resolve();

function startWorker(): Worker {
  const started = new Worker(new URL('./worker-entry.mjs', import.meta.url), { name: 'local-face' });
  started.on('message', (response: FaceWorkerResponse) => {
    if (inFlight?.worker !== started || response.id !== inFlight.id) return;
    if (response.type === 'progress') {
      inFlight.handlers.onStage(response.stage);
      return;
    }
    const { handlers } = inFlight;
    inFlight = undefined;
    started.unref();
    handlers.resolve(response);
  });
  const fail = (error: Error) => {
    if (worker === started) worker = undefined;
    if (inFlight?.worker !== started) return;
    const { handlers } = inFlight;
    inFlight = undefined;
    handlers.reject(error);
  };
  started.on('error', fail);
  started.on('exit', (code) => fail(new Error(`the face worker exited (code ${code})`)));
  started.unref();
  return started;
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

function send(request: FaceWorkerRequest, onStage: (stage: SwapStage) => void, signal?: AbortSignal): Promise<FinalResponse> {
  worker ??= startWorker();
  const target = worker;
  return new Promise<FinalResponse>((resolve, reject) => {
    const onAbort = () => {
      if (inFlight?.worker !== target || inFlight.id !== request.id) return;
      // the worker is busy with this request and may never answer: stop it, start afresh next time
      inFlight = undefined;
      if (worker === target) worker = undefined;
      void target.terminate();
      reject(abortReason(signal as AbortSignal));
    };
    const settled = () => signal?.removeEventListener('abort', onAbort);
    inFlight = {
      id: request.id,
      worker: target,
      handlers: {
        resolve: (response) => {
          settled();
          resolve(response);
        },
        reject: (error) => {
          settled();
          reject(error);
        },
        onStage,
      },
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    target.ref(); // keep the process alive until the answer arrives
    target.postMessage(request);
  });
}

/**
 * Queues a request for the face worker; resolves with its answer. `signal` drops a request
 * that has not started yet, and stops one that has: the worker thread is terminated (a new
 * one serves the next request).
 */
export function requestFaceWork(request: NewRequest, onStage: (stage: SwapStage) => void, signal?: AbortSignal): Promise<FinalResponse> {
  lastId += 1;
  const withId: FaceWorkerRequest = { ...request, id: lastId };
  const run = queue.then(() => {
    if (signal?.aborted) throw abortReason(signal);
    return send(withId, onStage, signal);
  });
  queue = run.catch(() => {});
  return run;
}

/** Stops the face worker (if any); a request in flight fails. The next request starts a new one. */
export async function closeFaceWorker(): Promise<void> {
  const current = worker;
  worker = undefined;
  if (current) await current.terminate();
}
