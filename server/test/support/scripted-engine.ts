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
