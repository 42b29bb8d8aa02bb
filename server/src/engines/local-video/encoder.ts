/**
 * @module The main-thread side of the H.264 encoder thread (encoder-worker.mjs): one
 * worker_threads Worker per process, started on first use, holding the process open only
 * while an encode is in flight. Frames go over one at a time with at most a few in flight, so
 * a slow encoder never piles up hundreds of raw frames in memory; libvips renders the next
 * frame on its own threads meanwhile. A crashed worker fails the encodes it held; the next
 * encode starts a new one. An encode whose `signal` aborts (its job was stopped, perhaps
 * with the thread stuck in it) terminates the thread the same way.
 */
import { Worker } from 'node:worker_threads';

export interface EncoderSettings {
  width: number;
  height: number;
  fps: number;
  /** H.264 quantiser, 10 (best) … 51. */
  qp: number;
  /** minih264 speed, 0 (best compression) … 10 (fastest). */
  speed: number;
  /** Frames between keyframes. */
  gop: number;
}

export interface FrameEncoder {
  /** Queues one RGBA frame (width × height × 4 bytes; its buffer is handed over). Resolves when another frame may be sent. */
  addFrame(rgba: Uint8Array): Promise<void>;
  /** The MP4 the encoder wrote (its moov after the media; see mp4.ts). */
  finish(): Promise<Buffer>;
  /** Drops the encode (nothing more is sent or answered). */
  abort(): void;
}

type WorkerMessage = { type: 'ack'; id: number } | { type: 'done'; id: number; data: ArrayBuffer } | { type: 'error'; id: number; message: string };

interface Session {
  /** The thread this encode runs on. */
  worker: Worker;
  /** Called once the encode ended, however. */
  cleanup(): void;
  onAck(): void;
  onDone(data: Buffer): void;
  onError(error: Error): void;
}

/** Frames sent and not yet encoded; enough to keep both threads busy. */
const MAX_IN_FLIGHT = 3;

let worker: Worker | undefined;
const sessions = new Map<number, Session>();
let lastId = 0;

function startWorker(): Worker {
  const started = new Worker(new URL('./encoder-worker.mjs', import.meta.url), { name: 'local-video-encoder' });
  started.on('message', (message: WorkerMessage) => {
    const session = sessions.get(message.id);
    if (!session) return;
    if (message.type === 'ack') session.onAck();
    else if (message.type === 'done') session.onDone(Buffer.from(message.data));
    else session.onError(new Error(`the video encoder failed: ${message.message}`));
  });
  const fail = (error: Error) => {
    if (worker === started) worker = undefined;
    // only this thread's encodes: a new thread may already serve others
    for (const session of [...sessions.values()]) if (session.worker === started) session.onError(error);
  };
  started.on('error', fail);
  started.on('exit', (code) => fail(new Error(`the video encoder thread exited (code ${code})`)));
  started.unref();
  return started;
}

function release(id: number): void {
  const session = sessions.get(id);
  sessions.delete(id);
  session?.cleanup();
  if (session && ![...sessions.values()].some((s) => s.worker === session.worker)) session.worker.unref();
}

export function openEncoder(settings: EncoderSettings, signal?: AbortSignal): FrameEncoder {
  worker ??= startWorker();
  const target = worker;
  lastId += 1;
  const id = lastId;
  const onAbort = () => {
    if (!sessions.has(id)) return;
    // fails every encode the thread holds (its 'exit'); the next encode starts a new thread
    if (worker === target) worker = undefined;
    void target.terminate();
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  let inFlight = 0;
  let failure: Error | undefined;
  let waiting: { resolve(): void; reject(error: Error): void } | undefined;
  let finishing: { resolve(data: Buffer): void; reject(error: Error): void } | undefined;

  sessions.set(id, {
    worker: target,
    cleanup: () => signal?.removeEventListener('abort', onAbort),
    onAck() {
      inFlight -= 1;
      const waiter = waiting;
      waiting = undefined;
      waiter?.resolve();
    },
    onDone(data) {
      release(id);
      finishing?.resolve(data);
    },
    onError(error) {
      failure = error;
      release(id);
      waiting?.reject(error);
      finishing?.reject(error);
    },
  });
  target.ref(); // an encode in flight keeps the process alive
  target.postMessage({ type: 'open', id, ...settings });

  return {
    async addFrame(rgba) {
      if (failure) throw failure;
      const expected = settings.width * settings.height * 4;
      if (rgba.length !== expected) throw new Error(`a frame must be ${expected} bytes, got ${rgba.length}`);
      const copy = rgba.byteOffset === 0 && rgba.byteLength === rgba.buffer.byteLength ? rgba : rgba.slice();
      inFlight += 1;
      target.postMessage({ type: 'frame', id, rgba: copy.buffer }, [copy.buffer as ArrayBuffer]);
      if (inFlight >= MAX_IN_FLIGHT) await new Promise<void>((resolve, reject) => (waiting = { resolve, reject }));
    },
    finish() {
      if (failure) return Promise.reject(failure);
      return new Promise<Buffer>((resolve, reject) => {
        finishing = { resolve, reject };
        target.postMessage({ type: 'close', id });
      });
    },
    abort() {
      if (!sessions.has(id)) return;
      target.postMessage({ type: 'abort', id });
      release(id);
    },
  };
}

/** Stops the encoder thread (if any); encodes in flight fail. The next encode starts a new one. */
export async function closeLocalVideoEncoder(): Promise<void> {
  const current = worker;
  worker = undefined;
  if (current) await current.terminate();
}
