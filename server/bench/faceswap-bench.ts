/**
 * Local face-swap timings on 1024 px pictures (the two face fixtures enlarged, as JPEG uploads):
 * one swap end to end (decode, detect both, warp, colour, blend, PNG encode), with and without
 * the identity re-detection, next to a baseline measured in the same run: one detection pass
 * over the same two pictures (decode + detect + embed each, through the same worker), i.e.
 * what any mesh-based swap pays before it moves a pixel. Also the worst event-loop delay seen
 * while swapping (the work runs in a worker thread; the loop must stay free).
 *
 *   npx tsx bench/faceswap-bench.ts [--iterations 5] [--size 1024]
 *
 * Prints one JSON document on stdout.
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import type { ImageInput } from '../src/engines/engine.ts';
import { closeLocalFaceEngine, createLocalFaceEngine, embedLargestFace } from '../src/engines/local-face/index.ts';

const { values } = parseArgs({
  options: {
    iterations: { type: 'string', default: '5' },
    size: { type: 'string', default: '1024' },
  },
});
const iterations = Math.max(1, Number(values.iterations));
const size = Number(values.size);
const TARGET_MS = 1000;

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

async function time(fn: (i: number) => Promise<unknown>): Promise<number[]> {
  await fn(0); // warm-up: model load and first-use costs are not steady state
  const samples: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const start = performance.now();
    await fn(i);
    samples.push(performance.now() - start);
  }
  return samples;
}

/** A fixture enlarged so its longest side is `size`, as a JPEG upload. */
async function picture(name: string): Promise<{ data: Buffer; width: number; height: number }> {
  const file = readFileSync(new URL(`../test/fixtures/faces/${name}`, import.meta.url));
  const { data, info } = await sharp(file)
    .resize(size, size, { fit: 'inside', kernel: 'lanczos3' })
    .jpeg({ quality: 90, mozjpeg: true })
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

async function main() {
  const hopper = await picture('grace-hopper.jpg');
  const collins = await picture('eileen-collins.jpg');
  const input = (data: Buffer): ImageInput => ({ url: 'bench', data, contentType: 'image/jpeg' });
  // alternate the direction so both pictures serve as source and as target
  const pairs = [
    { source: input(hopper.data), target: input(collins.data) },
    { source: input(collins.data), target: input(hopper.data) },
  ];
  const signal = new AbortController().signal;
  const scored = createLocalFaceEngine();
  const unscored = createLocalFaceEngine({ scoreIdentity: false });
  let note = '';

  const detectionPass = await time(async () => {
    const [a, b] = [await embedLargestFace(hopper.data), await embedLargestFace(collins.data)];
    if (!a || !b) throw new Error('a fixture face was not detected');
  });
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const swap = await time(async (i) => {
    note = (await scored.run({ kind: 'faceswap', ...pairs[i % 2] }, () => {}, signal)).note ?? '';
  });
  loopDelay.disable();
  const swapUnscored = await time((i) => unscored.run({ kind: 'faceswap', ...pairs[i % 2] }, () => {}, signal));
  await closeLocalFaceEngine();

  const baseline = stats(detectionPass);
  const withIdentity = stats(swap);
  const withoutIdentity = stats(swapUnscored);
  const ratio = (ms: number) => Math.round((ms / baseline.medianMs) * 100) / 100;
  const output = {
    bench: 'local-face-swap',
    at: new Date().toISOString(),
    node: process.version,
    sharp: sharp.versions.sharp,
    cpus: cpus().length,
    iterations,
    pictures: { source: `${hopper.width}x${hopper.height}`, target: `${collins.width}x${collins.height}`, format: 'jpeg q90' },
    targetMsPerSwap: TARGET_MS,
    results: {
      baselineDetectionPass: { ...baseline, what: 'decode + detect + embed both pictures once' },
      swap: {
        ...withIdentity,
        ratioToBaseline: ratio(withIdentity.medianMs),
        underTarget: withIdentity.medianMs < TARGET_MS,
        what: 'end to end, with the identity re-detection (the default)',
      },
      swapWithoutIdentityScore: {
        ...withoutIdentity,
        ratioToBaseline: ratio(withoutIdentity.medianMs),
        underTarget: withoutIdentity.medianMs < TARGET_MS,
        what: 'end to end, scoreIdentity: false',
      },
      eventLoopMaxDelayMs: Math.round(loopDelay.max / 1e5) / 10,
      eventLoopP99DelayMs: Math.round(loopDelay.percentile(99) / 1e5) / 10,
    },
    lastNote: note,
  };
  process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
}

await main();
