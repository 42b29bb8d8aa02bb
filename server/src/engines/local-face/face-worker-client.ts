/**
 * @module The main-thread side of the face worker: one worker_threads Worker per process,
 * started on first use, fed one request at a time (WASM runs on one core; the models load
 * once, in the worker). The worker holds the process open only while a request is in flight,
 * so an idle engine never keeps tests or a stopping server alive. A crashed worker fails its
 * request and the next request starts a new one.
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

function send(request: FaceWorkerRequest, onStage: (stage: SwapStage) => void): Promise<FinalResponse> {
  worker ??= startWorker();
  const target = worker;
  return new Promise<FinalResponse>((resolve, reject) => {
    inFlight = { id: request.id, worker: target, handlers: { resolve, reject, onStage } };
    target.ref(); // keep the process alive until the answer arrives
    target.postMessage(request);
  });
}

/**
 * Queues a request for the face worker; resolves with its answer. `signal` only drops a
 * request that has not started yet: a started one runs to its end (the engine's caller has
 * already given up on it by then).
 */
export function requestFaceWork(request: NewRequest, onStage: (stage: SwapStage) => void, signal?: AbortSignal): Promise<FinalResponse> {
  lastId += 1;
  const withId: FaceWorkerRequest = { ...request, id: lastId };
  const run = queue.then(() => {
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
    return send(withId, onStage);
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
