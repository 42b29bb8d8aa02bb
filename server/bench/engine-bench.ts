/**
 * Local engine timings: imagine (4 procedural tiles + grid + encodes) and upscale 2x/4x of
 * one grid cell, each next to a baseline measured in the same run: a plain sharp lanczos
 * resize + PNG encode to the same output size, i.e. the floor any engine pays for those pixels.
 * Also the worst event-loop delay seen while the engine works (the loop must stay free).
 *
 *   npx tsx bench/engine-bench.ts [--iterations 3] [--cell 1024] [--threads 2]
 *
 * Prints one JSON document on stdout.
 */
import { availableParallelism, cpus } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import type { EngineImage, EngineJob } from '../src/engines/engine.ts';
import { createLocalEngine } from '../src/engines/local/index.ts';

const { values } = parseArgs({
  options: {
    iterations: { type: 'string', default: '3' },
    cell: { type: 'string', default: '1024' },
    threads: { type: 'string', default: String(Math.min(2, availableParallelism())) },
  },
});
const iterations = Math.max(1, Number(values.iterations));
const cell = Number(values.cell);
const threads = Number(values.threads);

const engine = createLocalEngine({ cellSize: cell, threads });
const signal = new AbortController().signal;
const PROMPT = 'a lighthouse on a cliff at sunset, ocean waves, cinematic';

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (v: number) => Math.round(v * 10) / 10;
  return {
    n: samples.length,
    minMs: round(sorted[0]),
    medianMs: round(sorted[Math.floor(sorted.length / 2)]),
    meanMs: round(samples.reduce((a, b) => a + b, 0) / samples.length),
    maxMs: round(sorted[sorted.length - 1]),
  };
}

async function time(fn: () => Promise<unknown>): Promise<number[]> {
  await fn(); // warm-up: first-use costs (librsvg, codec init) are not steady state
  const samples: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return samples;
}

function bytes(image: EngineImage | undefined): Buffer {
  if (image?.source !== 'buffer') throw new Error('expected a rendered image');
  return image.data;
}

const lanczosToPng = (input: Buffer, side: number) => sharp(input).resize(side, side, { kernel: 'lanczos3' }).png({ compressionLevel: 6 }).toBuffer();

async function main() {
  const first = await engine.run({ kind: 'imagine', prompt: PROMPT, seed: 1 }, () => {}, signal);
  const grid = bytes(first.image);
  const cellPng = bytes(first.images[0]);
  let seed = 100;

  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const imagine = await time(() => engine.run({ kind: 'imagine', prompt: PROMPT, seed: seed++ }, () => {}, signal));
  loopDelay.disable();

  const upscale = (type: '2x' | '4x') => {
    const job: EngineJob = { kind: 'upscale', index: 1, type, parent: { image: grid, layout: 'grid' } };
    return time(() => engine.run(job, () => {}, signal));
  };
  const results = {
    imagineGrid: {
      engine: stats(imagine),
      // the same output pixels (one 2×cell grid + four cells) made by plain resizes
      baseline: stats(await time(() => Promise.all([lanczosToPng(cellPng, 2 * cell), ...[0, 1, 2, 3].map(() => lanczosToPng(cellPng, cell))]))),
      eventLoopMaxDelayMs: Math.round(loopDelay.max / 1e5) / 10,
      eventLoopP99DelayMs: Math.round(loopDelay.percentile(99) / 1e5) / 10,
    },
    upscale2x: { engine: stats(await upscale('2x')), baseline: stats(await time(() => lanczosToPng(cellPng, 2 * cell))) },
    upscale4x: { engine: stats(await upscale('4x')), baseline: stats(await time(() => lanczosToPng(cellPng, 4 * cell))) },
  };

  const output = {
    bench: 'local-engine',
    at: new Date().toISOString(),
    node: process.version,
    sharp: sharp.versions.sharp,
    libvips: sharp.versions.vips,
    cpus: cpus().length,
    sharpThreads: sharp.concurrency(),
    uvThreadpool: process.env.UV_THREADPOOL_SIZE ?? '4 (default)',
    iterations,
    cellPx: cell,
    gridPx: 2 * cell,
    format: 'png',
    sizes: { gridBytes: grid.length, cellBytes: cellPng.length },
    results,
  };
  process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
}

await main();
