/**
 * Local face-swap timings on 1024 px pictures (the two face fixtures enlarged, as JPEG uploads):
 * one swap end to end (decode, detect both, warp, colour, blend, PNG encode), with and without
 * the identity re-detection, next to a baseline measured in the same run: one detection pass
 * over the same two pictures (decode + detect + embed each, through the same worker), i.e.
 * what any mesh-based swap pays before it moves a pixel. Also the worst event-loop delay seen
 * while swapping (the work runs in a worker thread; the loop must stay free).
 *
 * Then the quality of swaps on the real photos of the evaluation set (test/fixtures/face-eval,
 * CC BY 4.0): each person onto three others spread through the set (one photo each, alternating
 * neutral and smiling, so half the pairs put a smile, often open-mouthed, onto a neutral face), plus
 * full-figure targets built at run time: a set photo shrunk so its face is 60–90 px wide, placed
 * in a 1600–2000 px scene (sky, ground, a body in clothes below the photo). Per swap it measures
 * (swap-quality.ts): identity (the result's face embedding closer to the source's than to the
 * target's), the change outside the grown face box, the seam ratio along the face border and the
 * CIEDE2000 skin step at the border; each figure is printed with its target and targetMet.
 *
 *   npx tsx bench/faceswap-bench.ts [--iterations 5] [--size 1024] [--pairs-per-person 3] [--full-figure 8] [--look /tmp/swap-look]
 *
 * Prints one JSON document on stdout.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cpus } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import type { ImageInput } from '../src/engines/engine.ts';
import { analyseFaces, swapOnto } from '../src/engines/local-face/ai-photos/worker-calls.ts';
import { encodePng, prepareImage } from '../src/engines/local-face/images.ts';
import { closeLocalFaceEngine, createLocalFaceEngine, embedLargestFace } from '../src/engines/local-face/index.ts';
import type { FaceAnalysis, RgbImage } from '../src/engines/local-face/protocol.ts';
import { measureSwap, type SwapQuality } from '../src/engines/local-face/swap-quality.ts';

const { values } = parseArgs({
  options: {
    iterations: { type: 'string', default: '5' },
    size: { type: 'string', default: '1024' },
    'pairs-per-person': { type: 'string', default: '3' },
    'full-figure': { type: 'string', default: '8' },
    look: { type: 'string' },
  },
});
const iterations = Math.max(1, Number(values.iterations));
const size = Number(values.size);
const TARGET_MS = 1000;
const pairsPerPerson = Number(values['pairs-per-person']);
const fullFigureCount = Number(values['full-figure']);
/** The quality targets. */
const TARGETS = { identityShare: 0.95, seamRatio: 1.15, skinDeltaE: 5, backgroundMeanAbs: 0.5 };

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

const EVAL = new URL('../test/fixtures/face-eval/', import.meta.url);

interface EvalPhoto {
  person: string;
  file: string;
  expression: string;
  mouth: string;
  data: Buffer;
  pixels: RgbImage;
  face: FaceAnalysis;
  /** Identity embedding of a crop around the face (the same crop rule as the results'). */
  embedding: number[];
}

interface Manifest {
  people: { id: string; files: { file: string; expression: string; mouth: string }[] }[];
}

const signal = new AbortController().signal;

async function decode(data: Buffer): Promise<RgbImage> {
  return (await prepareImage(data, 'target', { maxPixels: 40_000_000, detectionSize: 1024 })).pixels;
}

async function analyse(data: Buffer): Promise<{ pixels: RgbImage; face?: FaceAnalysis }> {
  const prepared = await prepareImage(data, 'target', { maxPixels: 40_000_000, detectionSize: 1024 });
  const { faces } = await analyseFaces(prepared, undefined, signal);
  return { pixels: prepared.pixels, face: faces[0] };
}

/** The embedding of the face inside `face`'s box grown by half on each side (a small face in a big picture gets a fair detection). */
async function embedAround(image: RgbImage, face: FaceAnalysis): Promise<number[] | null> {
  const [x, y, w, h] = face.box;
  const left = Math.max(0, Math.floor(x - w / 2));
  const top = Math.max(0, Math.floor(y - h / 2));
  const width = Math.min(image.width, Math.ceil(x + w * 1.5)) - left;
  const height = Math.min(image.height, Math.ceil(y + h * 1.5)) - top;
  const crop = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } })
    .extract({ left, top, width, height })
    .png({ compressionLevel: 1 })
    .toBuffer();
  return embedLargestFace(crop);
}

const dot = (a: readonly number[], b: readonly number[]) => a.reduce((sum, v, i) => sum + v * b[i], 0);

async function loadEvalSet(): Promise<EvalPhoto[]> {
  const manifest = JSON.parse(readFileSync(new URL('manifest.json', EVAL), 'utf8')) as Manifest;
  const photos: EvalPhoto[] = [];
  for (const person of manifest.people) {
    for (const file of person.files) {
      const data = readFileSync(new URL(file.file, EVAL));
      const { pixels, face } = await analyse(data);
      if (!face) throw new Error(`no face in ${file.file}`);
      const embedding = await embedAround(pixels, face);
      if (!embedding) throw new Error(`no face in the crop of ${file.file}`);
      photos.push({ person: person.id, file: file.file, expression: file.expression, mouth: file.mouth, data, pixels, face, embedding });
    }
  }
  return photos;
}

/**
 * A full-figure target: `photo` shrunk so its face is `faceWidth` px wide, placed in a
 * `side` × `side` scene (sky and ground gradients, a body in clothes below the photo).
 */
async function fullFigure(photo: EvalPhoto, side: number, faceWidth: number, k: number): Promise<Buffer> {
  const scale = faceWidth / photo.face.faceWidth;
  const w = Math.round(photo.pixels.width * scale);
  const h = Math.round(photo.pixels.height * scale);
  const left = Math.round(side / 2 - w / 2 + ((k % 3) - 1) * side * 0.2);
  const top = Math.round(side * (0.12 + (k % 4) * 0.03));
  const clothes = ['#2d3e63', '#6b2c2c', '#3d5a3a', '#55504a'][k % 4];
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${side}">
    <defs>
      <linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#8fb4d9"/><stop offset="1" stop-color="#dfe8ee"/></linearGradient>
      <linearGradient id="ground" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#9c8f6e"/><stop offset="1" stop-color="#5f5742"/></linearGradient>
    </defs>
    <rect width="${side}" height="${side}" fill="url(#sky)"/>
    <rect y="${Math.round(side * 0.62)}" width="${side}" height="${side}" fill="url(#ground)"/>
    <rect x="${left - w * 0.1}" y="${top + h * 0.85}" width="${w * 1.2}" height="${side * 0.55}" rx="${w * 0.25}" fill="${clothes}"/>
  </svg>`;
  const small = await sharp(photo.data).resize(w, h, { kernel: 'lanczos3' }).toBuffer();
  return sharp(Buffer.from(svg))
    .composite([{ input: small, left, top }])
    .flatten()
    .jpeg({ quality: 90, mozjpeg: true })
    .toBuffer();
}

type PairKind = 'portrait' | 'expression-mismatch' | 'full-figure';

interface PairResult extends SwapQuality {
  kind: PairKind;
  source: string;
  target: string;
  identityToSource: number;
  identityToTarget: number;
  identityMoved: boolean;
  ms: number;
}

interface QualityInput {
  kind: PairKind;
  source: EvalPhoto;
  target: { label: string; data: Buffer; pixels: RgbImage; face: FaceAnalysis; embedding: number[] };
}

async function swapAndMeasure(engine: ReturnType<typeof createLocalFaceEngine>, pair: QualityInput, look?: string): Promise<PairResult> {
  const input = (data: Buffer): ImageInput => ({ url: 'bench', data, contentType: 'image/jpeg' });
  const start = performance.now();
  let pixels: RgbImage;
  if (pair.kind === 'full-figure') {
    // end to end through the engine: detection on the downscaled copy, the face-resolution pass, PNG
    const result = await engine.run({ kind: 'faceswap', source: input(pair.source.data), target: input(pair.target.data) }, () => {}, signal);
    if (result.image?.source !== 'buffer') throw new Error('expected a rendered image');
    pixels = await decode(result.image.data);
  } else {
    // the same swap with the meshes already known (saves two detections a pair)
    const { source, target } = pair;
    pixels = await swapOnto({ source: source.pixels, sourceMesh: source.face.mesh, target: target.pixels, targetMesh: target.face.mesh }, signal);
  }
  const ms = performance.now() - start;
  const quality = measureSwap(pair.target.pixels, pixels, pair.target.face.mesh);
  const embedding = (await embedAround(pixels, pair.target.face)) ?? [];
  const identityToSource = embedding.length ? dot(embedding, pair.source.embedding) : 0;
  const identityToTarget = embedding.length ? dot(embedding, pair.target.embedding) : 1;
  if (look) {
    const name = `${pair.kind}-${path.basename(pair.source.file, '.jpg')}-${pair.source.person}-onto-${pair.target.label.replace(/^people\//, '').replace(/[/.]/g, '-')}.png`;
    writeFileSync(path.join(look, name), await encodePng(pixels));
  }
  return {
    kind: pair.kind,
    source: pair.source.file,
    target: pair.target.label,
    ...quality,
    identityToSource: Math.round(identityToSource * 1000) / 1000,
    identityToTarget: Math.round(identityToTarget * 1000) / 1000,
    identityMoved: identityToSource > identityToTarget,
    ms: Math.round(ms),
  };
}

const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN);
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
};
const r3 = (v: number) => Math.round(v * 1000) / 1000;

function summarise(results: PairResult[]) {
  const seams = results.map((r) => r.seamRatio);
  const deltas = results.flatMap((r) => (r.skinDeltaE === null ? [] : [r.skinDeltaE]));
  const steps = results.flatMap((r) => (r.skinStepOutside === null ? [] : [r.skinStepOutside]));
  const naturals = results.flatMap((r) => (r.targetSkinStepOutside === null ? [] : [r.targetSkinStepOutside]));
  const background = results.map((r) => r.backgroundMeanAbs);
  const identityShare = results.filter((r) => r.identityMoved).length / results.length;
  return {
    pairs: results.length,
    identity: {
      share: r3(identityShare),
      target: `>= ${TARGETS.identityShare}`,
      targetMet: identityShare >= TARGETS.identityShare,
      meanCosineToSource: r3(mean(results.map((r) => r.identityToSource))),
      meanCosineToTarget: r3(mean(results.map((r) => r.identityToTarget))),
    },
    backgroundChange: {
      meanAbs: r3(mean(background)),
      maxAbs: r3(Math.max(...background)),
      meanChangedShare: r3(mean(results.map((r) => r.backgroundChangedShare))),
      target: `mean abs <= ${TARGETS.backgroundMeanAbs} (0-255) outside the face box grown 30 %`,
      targetMet: Math.max(...background) <= TARGETS.backgroundMeanAbs,
    },
    seamRatio: {
      mean: r3(mean(seams)),
      median: r3(percentile(seams, 0.5)),
      p90: r3(percentile(seams, 0.9)),
      target: `mean <= ${TARGETS.seamRatio}`,
      targetMet: mean(seams) <= TARGETS.seamRatio,
    },
    skinDeltaE2000: {
      measured: deltas.length,
      mean: r3(mean(deltas)),
      median: r3(percentile(deltas, 0.5)),
      p90: r3(percentile(deltas, 0.9)),
      stepToOutsideSkinMean: r3(mean(steps)),
      targetOwnStepToOutsideSkinMean: r3(mean(naturals)),
      target: `mean <= ${TARGETS.skinDeltaE}`,
      targetMet: mean(deltas) <= TARGETS.skinDeltaE,
    },
    msPerSwap: {
      median: Math.round(
        percentile(
          results.map((r) => r.ms),
          0.5,
        ),
      ),
      max: Math.max(...results.map((r) => r.ms)),
    },
  };
}

/** Every ordered pair of different people, one photo each (alternating), then full-figure targets. */
async function qualityRun(look?: string) {
  const photos = await loadEvalSet();
  const people = [...new Set(photos.map((p) => p.person))];
  const photosOf = (person: string) => photos.filter((p) => p.person === person);
  const pairs: QualityInput[] = [];
  // each person is the source of `pairsPerPerson` swaps onto people spread through the set
  // (offsets 1, 7, 19, …), and so also the target of as many; `--pairs-per-person 0` takes every pair
  const offsets = pairsPerPerson > 0 ? [1, 7, 19, 31, 43, 3, 11, 23].slice(0, pairsPerPerson) : people.map((_, d) => d).slice(1);
  for (let i = 0; i < people.length; i += 1) {
    for (const offset of new Set(offsets.map((d) => d % people.length).filter((d) => d > 0))) {
      const j = (i + offset) % people.length;
      const [sources, targets] = [photosOf(people[i]), photosOf(people[j])];
      // alternate neutral and smiling (photo 01 / 02) so half the pairs put a smile onto a neutral face
      const source = sources[(i + j) % 2] ?? sources[0];
      const target = targets[(i + j + 1) % 2] ?? targets[0];
      const openOntoClosed = source.mouth === 'open' && target.mouth === 'closed';
      pairs.push({
        kind: openOntoClosed ? 'expression-mismatch' : 'portrait',
        source,
        target: { label: target.file, data: target.data, pixels: target.pixels, face: target.face, embedding: target.embedding },
      });
    }
  }
  const portraitPairs = pairs;
  // full figure: neutral photos of the set shrunk into scenes; smiling sources (several open-mouthed)
  const frl = people.filter((p) => p.startsWith('frl-'));
  for (let k = 0; k < Math.min(fullFigureCount, frl.length); k += 1) {
    const photo = photosOf(frl[k])[0];
    const side = [1600, 1800, 2000][k % 3];
    const faceWidth = [62, 76, 90][Math.floor(k / 3) % 3];
    const data = await fullFigure(photo, side, faceWidth, k);
    const { pixels, face } = await analyse(data);
    if (!face) throw new Error(`no face found in the full-figure scene of ${photo.file}`);
    const embedding = await embedAround(pixels, face);
    if (!embedding) throw new Error(`no face in the crop of the full-figure scene of ${photo.file}`);
    const source = photosOf(frl[(k + 3) % frl.length])[1];
    portraitPairs.push({
      kind: 'full-figure',
      source,
      target: { label: `full-figure-${side}px-face${faceWidth}-${photo.person}`, data, pixels, face, embedding },
    });
  }
  const engine = createLocalFaceEngine({ scoreIdentity: false });
  const results: PairResult[] = [];
  for (const pair of portraitPairs) results.push(await swapAndMeasure(engine, pair, look));
  const byKind = (kind: PairKind) => results.filter((r) => r.kind === kind);
  const worst = [...results].sort((a, b) => b.seamRatio - a.seamRatio).slice(0, 3);
  return {
    evaluationSet: `test/fixtures/face-eval (${photos.length} photos, ${people.length} people, CC BY 4.0)`,
    pairs: `each person onto ${pairsPerPerson > 0 ? pairsPerPerson : 'every'} other people spread through the set (so each is also a target as often), one photo each alternating neutral/smiling; expression-mismatch = an open-mouthed smile onto closed lips; these swap with the meshes of a prior detection (the worker's swap-onto), full-figure targets run end to end through the engine`,
    fullFigure: `${byKind('full-figure').length} targets generated at run time with sharp: a set photo shrunk to a 62-90 px face in a 1600-2000 px scene (sky, ground, body)`,
    measures:
      "identity: cosine of faceres embeddings (crop around the face), result closer to source than to target; background: mean abs diff outside the face box grown 30 %; seam ratio: max over rings r 0.85-1.1 of the mesh hull (the blend border) of mean |d luma / d normal| (luma blurred at face width / 50) result / target; skin ΔE: CIEDE2000 between the result and the target in the skin ring just inside the face border (r 0.75-0.95), per sector with skin on both sides of the border (also the step from that ring to the skin just outside, r 1.04-1.16, next to the target's own step)",
    all: summarise(results),
    portrait: summarise(byKind('portrait')),
    expressionMismatch: summarise(byKind('expression-mismatch')),
    fullFigureTargets: { ...summarise(byKind('full-figure')), keptSize: true },
    worstSeams: worst.map(({ source, target, seamRatio, skinDeltaE }) => ({ source, target, seamRatio, skinDeltaE })),
  };
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
  const look = values.look;
  if (look) mkdirSync(look, { recursive: true });
  const qualityStart = performance.now();
  const quality = await qualityRun(look);
  const qualitySeconds = Math.round((performance.now() - qualityStart) / 100) / 10;
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
    quality: { ...quality, seconds: qualitySeconds },
    targetMet: {
      identity: quality.all.identity.targetMet,
      seamRatio: quality.all.seamRatio.targetMet,
      skinDeltaE: quality.all.skinDeltaE2000.targetMet,
      background: quality.all.backgroundChange.targetMet,
      msPer1024Swap: withIdentity.medianMs <= TARGET_MS,
    },
  };
  process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
}

await main();
