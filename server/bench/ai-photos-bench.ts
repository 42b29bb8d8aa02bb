/**
 * Local AI photo timings (local-face engine, ai-photos/): a training per photo (decode, detect,
 * measure, align, the identity work, JPEG crops) and a generation per photo (frame a template,
 * detect the chosen reference, swap, grade, label, encode, re-detect for the identity score),
 * next to a baseline measured in the same run: one detection pass per photo (decode + detect +
 * embed through the same worker), i.e. what any face analysis pays at least. Training photos
 * are the test-support variants of one public-domain portrait (test/support/face-photos.ts).
 * Also the worst event-loop delay seen meanwhile (the work runs in a worker thread).
 *
 *   npx tsx bench/ai-photos-bench.ts [--iterations 3] [--photos 12] [--count 4] [--size 1024]
 *
 * Prints one JSON document on stdout.
 */
import { cpus } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import type { EngineResult, ImageInput, TrainedIdentity } from '../src/engines/engine.ts';
import { closeLocalFaceEngine, createLocalFaceEngine, embedLargestFace } from '../src/engines/local-face/index.ts';
import { facePhotos } from '../test/support/face-photos.ts';

const { values } = parseArgs({
  options: {
    iterations: { type: 'string', default: '3' },
    photos: { type: 'string', default: '12' },
    count: { type: 'string', default: '4' },
    size: { type: 'string', default: '1024' },
  },
});
const iterations = Math.max(1, Number(values.iterations));
const photoCount = Math.max(10, Number(values.photos));
const count = Math.max(1, Number(values.count));
const size = Number(values.size);

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

/** Milliseconds per item of each run, after one warm-up run (model load, template analysis). */
async function timePerItem(items: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  await fn(0);
  const samples: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const start = performance.now();
    await fn(i);
    samples.push((performance.now() - start) / items);
  }
  return samples;
}

async function main() {
  const photos = await facePhotos(photoCount);
  const input = (data: Buffer): ImageInput => ({ url: 'bench', data, contentType: 'image/jpeg' });
  const subject = { gender: 'female', ethnicity: 'white', age: 70 } as const;
  const signal = new AbortController().signal;
  const engine = createLocalFaceEngine();

  const detectionPass = await timePerItem(photos.length, async () => {
    for (const photo of photos) if (!(await embedLargestFace(photo))) throw new Error('a bench photo shows no face');
  });
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  let trained: EngineResult | undefined;
  const train = await timePerItem(photos.length, async () => {
    trained = await engine.run({ kind: 'ai-photo-train', images: photos.map(input), subject, triggerWord: 'benchmark' }, () => {}, signal);
  });
  if (!trained) throw new Error('no training');
  const identity: TrainedIdentity = {
    engine: 'local-face',
    triggerWord: 'benchmark',
    subject,
    data: trained.data ?? {},
    images: trained.images.map((image) => input(image.source === 'buffer' ? image.data : Buffer.alloc(0))),
  };
  let generated: EngineResult | undefined;
  const generate = await timePerItem(count, async (i) => {
    generated = await engine.run(
      { kind: 'ai-photo-generate', identity, prompt: 'cinematic portrait', count, width: size, height: size, seed: i },
      () => {},
      signal,
    );
  });
  loopDelay.disable();
  await closeLocalFaceEngine();

  const baseline = stats(detectionPass);
  const ratio = (ms: number) => Math.round((ms / baseline.medianMs) * 100) / 100;
  const perTrainPhoto = stats(train);
  const perGeneratedPhoto = stats(generate);
  const output = {
    bench: 'local-ai-photos',
    at: new Date().toISOString(),
    node: process.version,
    sharp: sharp.versions.sharp,
    cpus: cpus().length,
    iterations,
    trainingPhotos: { count: photos.length, what: 'JPEG variants of one public-domain portrait, 640–880 px on the long side' },
    generated: { count, width: size, height: size, format: 'jpeg q90' },
    results: {
      baselineDetectionPerPhoto: { ...baseline, what: 'decode + detect + embed one training photo' },
      trainPerPhoto: { ...perTrainPhoto, ratioToBaseline: ratio(perTrainPhoto.medianMs), what: 'ai-photo-train end to end, divided by the photos' },
      generatePerPhoto: {
        ...perGeneratedPhoto,
        ratioToBaseline: ratio(perGeneratedPhoto.medianMs),
        what: 'ai-photo-generate end to end, divided by the photos (templates analysed once per process, in the warm-up)',
      },
      eventLoopMaxDelayMs: Math.round(loopDelay.max / 1e5) / 10,
      eventLoopP99DelayMs: Math.round(loopDelay.percentile(99) / 1e5) / 10,
    },
    lastIdentityScores: (generated?.data?.generation as { identity_scores?: unknown } | undefined)?.identity_scores,
  };
  process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
}

await main();
