/**
 * An engine whose behaviour a test scripts through the prompt. No vitest imports: the
 * worker child process of the queue suite uses it too.
 */
import { defineEngine } from '../../src/engines/define-engine.ts';
import { type Engine, type EngineJobKind, type EngineResult, EngineError, ENGINE_JOB_KINDS } from '../../src/engines/engine.ts';

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * An engine whose behaviour a test scripts per prompt: `fail:<code>` fails (non-retryable),
 * `flaky:<n>` fails retryably the first n runs, `slow:<ms>` reports progress while it
 * sleeps; anything else succeeds at once with a one-image result.
 */
export function scriptedEngine(name = 'local', kinds: readonly EngineJobKind[] = ENGINE_JOB_KINDS): Engine & { runs: Map<string, number> } {
  const runs = new Map<string, number>();
  const pixel = Buffer.from(
    '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f0005000201a7d4a3a30000000049454e44ae426082',
    'hex',
  );
  const engine = defineEngine({
    name,
    kinds,
    async execute(job, report, signal): Promise<EngineResult> {
      const prompt = ('prompt' in job ? job.prompt : undefined) ?? ('parent' in job ? (job.parent.prompt ?? '') : job.kind);
      const count = (runs.get(prompt) ?? 0) + 1;
      runs.set(prompt, count);
      const [verb, arg] = prompt.split(':');
      if (verb === 'fail') throw new EngineError('upstream_failed', `Scripted failure ${arg}`);
      if (verb === 'flaky' && count <= Number.parseInt(arg, 10)) throw new EngineError('upstream_busy', 'Busy, try again', { retryable: true });
      if (verb === 'slow') {
        for (let p = 10; p <= 90 && !signal.aborted; p += 20) {
          report({ percentage: p, status: 'running' });
          await sleep(Number.parseInt(arg, 10) / 5, signal);
        }
      }
      const image = { source: 'buffer' as const, data: pixel, contentType: 'image/png', width: 1, height: 1 };
      return { engine: name, method: 'scripted', simulated: true, layout: 'single', image, images: [image], seed: 42 };
    },
  });
  return Object.assign(engine, { runs });
}

const ONE_PIXEL_PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f0005000201a7d4a3a30000000049454e44ae426082',
  'hex',
);

function onePixelResult(name: string): EngineResult {
  const image = { source: 'buffer' as const, data: ONE_PIXEL_PNG, contentType: 'image/png', width: 1, height: 1 };
  return { engine: name, method: 'scripted', simulated: true, layout: 'single', image, images: [image], seed: 42 };
}

function promptOf(job: Parameters<Engine['run']>[0]): string {
  return ('prompt' in job ? job.prompt : undefined) ?? job.kind;
}

/**
 * An adapter that does not go through defineEngine and ignores its signal, as a broken one
 * would: `hang` never answers, `late:<ms>` answers (a success) after that long whatever
 * happened meanwhile; anything else succeeds at once. `answered` lists the prompts it
 * answered, in order.
 */
export function unrulyEngine(name = 'local'): Engine & { answered: string[] } {
  const answered: string[] = [];
  const engine: Engine = {
    name,
    kinds: ENGINE_JOB_KINDS,
    supports: () => true,
    run(job, onProgress) {
      const prompt = promptOf(job);
      const [verb, arg] = prompt.split(':');
      onProgress({ percentage: 10, status: 'running' });
      if (verb === 'hang') return new Promise<EngineResult>(() => {});
      const delay = verb === 'late' ? Number.parseInt(arg, 10) : 0;
      return new Promise<EngineResult>((resolve) =>
        setTimeout(() => {
          onProgress({ percentage: 50, status: 'running' });
          answered.push(prompt);
          resolve(onePixelResult(name));
        }, delay),
      );
    },
  };
  return Object.assign(engine, { answered });
}

/**
 * An engine that runs each job on a worker thread of its own making, kept between jobs (as
 * the local face, video and audio engines keep theirs): `hang` spins the thread forever (it
 * never reads another message); anything else is answered by the thread. When the job's
 * signal aborts while the thread is busy with it, the thread is terminated and the next job
 * starts a new one. `counts.threads` counts the threads started, `counts.terminated` those stopped.
 */
export function threadEngine(name = 'local'): Engine & { counts: { threads: number; terminated: number }; close(): Promise<void> } {
  const state = { threads: 0, terminated: 0 };
  let worker: import('node:worker_threads').Worker | undefined;
  const code = `
    const { parentPort } = require('node:worker_threads');
    parentPort.on('message', (prompt) => {
      if (prompt === 'hang') for (;;) {}
      parentPort.postMessage(prompt);
    });`;
  const engine = defineEngine({
    name,
    kinds: ENGINE_JOB_KINDS,
    async execute(job, report, signal) {
      const { Worker } = await import('node:worker_threads');
      if (!worker) {
        worker = new Worker(code, { eval: true });
        state.threads += 1;
      }
      const target = worker;
      const prompt = promptOf(job);
      report({ percentage: 10, status: 'running' });
      await new Promise<void>((resolve, reject) => {
        const onMessage = (answer: string) => {
          if (answer !== prompt) return;
          target.off('message', onMessage);
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          target.off('message', onMessage);
          if (worker === target) worker = undefined;
          state.terminated += 1;
          void target.terminate();
          reject(signal.reason);
        };
        target.on('message', onMessage);
        signal.addEventListener('abort', onAbort, { once: true });
        target.postMessage(prompt);
      });
      return onePixelResult(name);
    },
  });
  return Object.assign(engine, {
    counts: state,
    /** Stops the thread kept between jobs (test cleanup). */
    async close() {
      await worker?.terminate();
      worker = undefined;
    },
  });
}
