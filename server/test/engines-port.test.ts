import { describe, expect, it } from 'vitest';
import { defineEngine, monotonicProgress } from '../src/engines/define-engine.ts';
import { EngineError, type EngineProgress, type EngineResult } from '../src/engines/engine.ts';

const RESULT: EngineResult = { engine: 'test', method: 'none', simulated: false, layout: 'none', images: [] };

describe('monotonicProgress', () => {
  it.each<[string, EngineProgress[], number[]]>([
    ['passes a rising sequence', [{ percentage: 0 }, { percentage: 10 }, { percentage: 55 }], [0, 10, 55]],
    ['drops values that go backwards', [{ percentage: 40 }, { percentage: 30 }, { percentage: 50 }], [40, 50]],
    ['drops repeats', [{ percentage: 20 }, { percentage: 20 }, { percentage: 21 }], [20, 21]],
    ['clamps to 0–100', [{ percentage: -5 }, { percentage: 250 }], [0, 100]],
    ['floors fractions', [{ percentage: 12.9 }, { percentage: 12.2 }, { percentage: 13.1 }], [12, 13]],
    ['ignores NaN and Infinity', [{ percentage: Number.NaN }, { percentage: 5 }, { percentage: Number.POSITIVE_INFINITY }], [5]],
  ])('%s', (_name, input, expected) => {
    const seen: number[] = [];
    const report = monotonicProgress((p) => seen.push(p.percentage));
    for (const p of input) report(p);
    expect(seen).toEqual(expected);
  });

  it('lets an equal percentage through when it brings a new status or upstream id, keeping the higher value', () => {
    const seen: EngineProgress[] = [];
    const report = monotonicProgress((p) => seen.push(p));
    report({ percentage: 30, status: 'running' });
    report({ percentage: 10, status: 'processing' });
    report({ percentage: 10, status: 'processing' });
    report({ percentage: 0, upstreamId: 'up-1' });
    expect(seen).toEqual([
      { percentage: 30, status: 'running' },
      { percentage: 30, status: 'processing' },
      { percentage: 30, upstreamId: 'up-1' },
    ]);
  });
});

describe('defineEngine', () => {
  it('filters an adapter that reports backwards and ends successful runs at 100', async () => {
    const engine = defineEngine({
      name: 'test',
      kinds: ['imagine'],
      async execute(_job, report) {
        for (const percentage of [10, 60, 40, 60, 90]) report({ percentage });
        return RESULT;
      },
    });
    const seen: number[] = [];
    await engine.run({ kind: 'imagine', prompt: 'x' }, (p) => seen.push(p.percentage), new AbortController().signal);
    expect(seen).toEqual([10, 60, 90, 100]);
  });

  it('settles at once on abort and forwards no progress afterwards', async () => {
    let lateReport: ((p: EngineProgress) => void) | undefined;
    const engine = defineEngine({
      name: 'test',
      kinds: ['imagine'],
      execute(_job, report) {
        lateReport = report;
        report({ percentage: 10 });
        return new Promise<EngineResult>(() => {}); // never finishes on its own
      },
    });
    const controller = new AbortController();
    const seen: number[] = [];
    const run = engine.run({ kind: 'imagine', prompt: 'x' }, (p) => seen.push(p.percentage), controller.signal);
    controller.abort(new Error('user cancelled'));
    await expect(run).rejects.toMatchObject({ name: 'EngineError', code: 'aborted', retryable: false });
    lateReport?.({ percentage: 80 });
    expect(seen).toEqual([10]);
  });

  it('refuses a run whose signal is already aborted without calling the adapter', async () => {
    let called = false;
    const engine = defineEngine({
      name: 'test',
      kinds: ['imagine'],
      async execute() {
        called = true;
        return RESULT;
      },
    });
    await expect(engine.run({ kind: 'imagine', prompt: 'x' }, () => {}, AbortSignal.abort())).rejects.toMatchObject({ code: 'aborted' });
    expect(called).toBe(false);
  });

  it('turns unknown errors into a generic EngineError that hides the internals', async () => {
    const engine = defineEngine({
      name: 'test',
      kinds: ['imagine'],
      execute() {
        throw new TypeError('secret internal detail');
      },
    });
    const error = await engine.run({ kind: 'imagine', prompt: 'x' }, () => {}, new AbortController().signal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect(error).toMatchObject({ code: 'internal', retryable: false, detail: 'secret internal detail' });
    expect((error as Error).message).not.toContain('secret');
  });

  it('keeps EngineErrors from the adapter as they are', async () => {
    const engine = defineEngine({
      name: 'test',
      kinds: ['imagine'],
      async execute() {
        throw new EngineError('upstream_busy', 'Busy.', { retryable: true });
      },
    });
    await expect(engine.run({ kind: 'imagine', prompt: 'x' }, () => {}, new AbortController().signal)).rejects.toMatchObject({
      code: 'upstream_busy',
      retryable: true,
      message: 'Busy.',
    });
  });

  it('refuses job kinds the adapter does not declare', async () => {
    const engine = defineEngine({ name: 'test', kinds: ['imagine'], execute: async () => RESULT });
    expect(engine.supports('flux-imagine')).toBe(false);
    await expect(engine.run({ kind: 'flux-imagine', prompt: 'x' }, () => {}, new AbortController().signal)).rejects.toMatchObject({
      code: 'unsupported',
    });
  });
});
