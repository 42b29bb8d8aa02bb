/**
 * Local AI photo timings (local-face engine, ai-photos/): a training per photo (decode, detect,
 * measure, align, the identity work, JPEG crops) and a generation per photo (frame a template,
 * detect the chosen reference, swap, grade, label, encode, re-detect for the identity score),
 * next to a baseline measured in the same run: one detection pass per photo (decode + detect +
 * embed through the same worker), i.e. what any face analysis pays at least. Training photos
 * are the test-support variants of one public-domain portrait (test/support/face-photos.ts).
 * Also the worst event-loop delay seen meanwhile (the work runs in a worker thread).
 *
 * Then the identity calibration on the real photos of test/fixtures/face-eval (issue 22): the
 * same-person and different-person distributions of the engine's identity similarity (cosine
 * less the population mean), held out: every comparison takes away a mean made WITHOUT the
 * people it compares (the engine ships the mean of all of them, population-mean.ts); the plain
 * cosine's beside it for reference. The threshold they give (the lowest 0.01 step at which
 * ≤ 1 % of other people's photos of the same self-reported ethnicity reach it against a
 * person's set, i.e. the engine's per-photo median rule) next to the engine's
 * SAME_PERSON_THRESHOLD, and the engine's rule (findConsistentSet) run on sets: each person's
 * real photos, each person's set grown to 8 with simulated variation, that set with 2 photos of
 * another person mixed in (false accepts), and 5 + 5 photos of two people (refusals). Most
 * people have 2 photos from one sitting, so the same-person figures are optimistic.
 *
 *   npx tsx bench/ai-photos-bench.ts [--iterations 3] [--photos 12] [--count 4] [--size 1024] [--variants 3] [--skip-timing]
 *   npx tsx bench/ai-photos-bench.ts --skip-timing --write-population-mean   (regenerates population-mean.ts)
 *
 * Prints one JSON document on stdout.
 */
import { cpus } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import type { EngineResult, ImageInput, TrainedIdentity } from '../src/engines/engine.ts';
import { writeFileSync } from 'node:fs';
import { findConsistentSet, identitySimilarity, SAME_PERSON_THRESHOLD } from '../src/engines/local-face/ai-photos/identity.ts';
import { closeLocalFaceEngine, createLocalFaceEngine, embedLargestFace } from '../src/engines/local-face/index.ts';
import { evalPeople, pairSimilarities, variant } from '../test/support/face-eval.ts';
import { facePhotos } from '../test/support/face-photos.ts';

const { values } = parseArgs({
  options: {
    iterations: { type: 'string', default: '3' },
    photos: { type: 'string', default: '12' },
    count: { type: 'string', default: '4' },
    size: { type: 'string', default: '1024' },
    variants: { type: 'string', default: '3' },
    'skip-timing': { type: 'boolean', default: false },
    'write-population-mean': { type: 'boolean', default: false },
  },
});
const iterations = Math.max(1, Number(values.iterations));
const photoCount = Math.max(10, Number(values.photos));
const count = Math.max(1, Number(values.count));
const size = Number(values.size);
const variantsPerPhoto = Math.max(0, Number(values.variants));

/** Targets of issue 22: same-person photos rejected, other people's photos accepted. */
const TARGET_FRR = 0.05;
const TARGET_FAR = 0.01;
/** Added to the lowest step meeting TARGET_FAR: the evaluation set is 58 people. */
const CALIBRATION_MARGIN = 0.03;

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

const round3 = (value: number) => Math.round(value * 1000) / 1000;
const percent = (part: number, whole: number) => (whole === 0 ? null : Math.round((part / whole) * 10000) / 100);

function quantile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(p * (sorted.length - 1))))];
}

function distribution(samples: readonly number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  // counts per 0.1 band of cosine, e.g. "0.6-0.7": 12
  const histogram: Record<string, number> = {};
  for (let band = 0; band < 10; band += 1) {
    const n = sorted.filter((v) => v >= band / 10 && (v < (band + 1) / 10 || band === 9)).length;
    if (n > 0) histogram[`${(band / 10).toFixed(1)}-${((band + 1) / 10).toFixed(1)}`] = n;
  }
  const negative = sorted.filter((v) => v < 0).length;
  if (negative > 0) histogram['<0'] = negative;
  return {
    count: sorted.length,
    min: round3(sorted[0]),
    p1: round3(quantile(sorted, 0.01)),
    p5: round3(quantile(sorted, 0.05)),
    p50: round3(quantile(sorted, 0.5)),
    p95: round3(quantile(sorted, 0.95)),
    p99: round3(quantile(sorted, 0.99)),
    max: round3(sorted[sorted.length - 1]),
    histogram,
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Every choice of `k` of `items`, in order. */
function subsets<T>(items: readonly T[], k: number): T[][] {
  if (k === 0) return [[]];
  return items.flatMap((item, i) => subsets(items.slice(i + 1), k - 1).map((rest) => [item, ...rest]));
}

async function embed(photo: Buffer): Promise<number[]> {
  const embedding = await embedLargestFace(photo);
  if (!embedding) throw new Error('an evaluation photo shows no face');
  return embedding;
}

async function identityCalibration() {
  const people = await evalPeople();
  const start = performance.now();
  const real = new Map<string, number[][]>();
  const grown = new Map<string, number[][]>();
  let embedded = 0;
  for (const person of people) {
    const photos = await Promise.all(person.photos.map(embed));
    real.set(person.id, photos);
    // a set of 8: the real photos, then variants of them (none for a person with 8 real photos)
    const extra: number[][] = [];
    for (let i = 0; photos.length + extra.length < 8 && i < variantsPerPhoto * person.photos.length; i += 1) {
      extra.push(await embed(await variant(person.photos[i % person.photos.length], Math.floor(i / person.photos.length))));
    }
    grown.set(person.id, [...photos, ...extra]);
    embedded += photos.length + extra.length;
  }
  const embedMs = (performance.now() - start) / embedded;
  const ids = people.map((person) => person.id);
  const ethnicity = new Map(people.map((person) => [person.id, person.ethnicity]));
  const alike = (a: string, b: string) => ethnicity.get(a) !== null && ethnicity.get(a) === ethnicity.get(b);

  // The population mean: the mean of the people's means (each person counts once, however many
  // photos they have). Without some people: what the comparisons of those people take away (held out).
  const dimensions = real.get(ids[0])?.[0]?.length ?? 0;
  const sumOf = (list: readonly (readonly number[])[]) => list.reduce((sum, e) => sum.map((v, i) => v + e[i]), new Array<number>(dimensions).fill(0));
  const personMean = new Map(ids.map((id) => [id, sumOf(real.get(id) ?? []).map((v) => v / (real.get(id)?.length ?? 1))]));
  const total = sumOf([...personMean.values()]);
  const heldOut = new Map<string, number[]>();
  const meanWithout = (...who: string[]) => {
    const left = [...new Set(who)].sort();
    const key = left.join('|');
    let mean = heldOut.get(key);
    if (!mean) {
      const removed = sumOf(left.map((id) => personMean.get(id) ?? []));
      mean = total.map((v, i) => (v - removed[i]) / (ids.length - left.length));
      heldOut.set(key, mean);
    }
    return mean;
  };
  if (values['write-population-mean']) {
    // the single-sitting people only: the person photographed in several sessions, on whom the
    // identity tests and the AI Photos journey train, stays out of the engine's mean
    const single = people.filter((person) => person.occasions === 1).map((person) => person.id);
    const mean = meanWithout(...ids.filter((id) => !single.includes(id)));
    writePopulationMean(
      mean,
      single.reduce((n, id) => n + (real.get(id)?.length ?? 0), 0),
      single.length,
    );
  }

  // pairs of real photos: the engine's similarity held out, and the plain cosine for reference
  const pairs = { same: [] as number[], different: [] as number[] };
  const labelled = ids.flatMap((person) => (real.get(person) ?? []).map((embedding) => ({ person, embedding })));
  for (const [i, a] of labelled.entries()) {
    for (const b of labelled.slice(i + 1)) {
      (a.person === b.person ? pairs.same : pairs.different).push(identitySimilarity(a.embedding, b.embedding, meanWithout(a.person, b.person)));
    }
  }
  const rawPairs = pairSimilarities(labelled);
  // the engine's per-photo statistic for a stranger: median similarity of a photo to another person's (real) set
  const strangerMedians: number[] = [];
  const alikeStrangerMedians: number[] = [];
  for (const person of ids) {
    for (const other of ids) {
      if (other === person) continue;
      const mean = meanWithout(person, other);
      for (const photo of real.get(other) ?? []) {
        const value = median((real.get(person) ?? []).map((own) => identitySimilarity(photo, own, mean)));
        strangerMedians.push(value);
        if (alike(person, other)) alikeStrangerMedians.push(value);
      }
    }
  }
  /** The lowest 0.01 step at which at most TARGET_FAR of `medians` reach it. */
  const lowestStep = (medians: readonly number[]) => {
    let step = 100;
    while (step > -100 && medians.filter((v) => v >= (step - 1) / 100).length / medians.length <= TARGET_FAR) step -= 1;
    return step / 100;
  };
  // the overall target's step, plus a margin for the sampling error of 58 people (and for the
  // same-person side, measured on single sittings): the engine's threshold
  const calibrated = Math.round((lowestStep(strangerMedians) + CALIBRATION_MARGIN) * 100) / 100;
  const threshold = SAME_PERSON_THRESHOLD;

  const run = (sets: [string, number[][]][]) => sets.map(([id, set]) => findConsistentSet(set, threshold, meanWithout(id)));
  // false rejects: each person's real photos alone, and the set grown to 8
  const realSets = run(ids.map((id) => [id, real.get(id) ?? []]));
  const realTotal = ids.reduce((sum, id) => sum + (real.get(id)?.length ?? 0), 0);
  const realDropped = realSets.reduce((sum, result) => sum + result.dropped.length, 0);
  const grownSets = run(ids.map((id) => [id, grown.get(id) ?? []]));
  const grownTotal = ids.reduce((sum, id) => sum + (grown.get(id)?.length ?? 0), 0);
  const grownDropped = grownSets.reduce((sum, result) => sum + result.dropped.length, 0);
  // false accepts: every person's set of 8 with 2 real photos of every other person mixed in
  let strangersIn = 0;
  let strangersKept = 0;
  let ownIn = 0;
  let ownDropped = 0;
  let mixedRefused = 0;
  let mixedSets = 0;
  // the same among people of one self-reported ethnicity, where this model's strangers score highest
  let alikeIn = 0;
  let alikeKept = 0;
  for (const id of ids) {
    const own = grown.get(id) ?? [];
    for (const other of ids) {
      if (other === id) continue;
      const strangers = (real.get(other) ?? []).slice(0, 2);
      const result = findConsistentSet([...own, ...strangers], threshold, meanWithout(id, other));
      mixedSets += 1;
      if (result.twoPeople) mixedRefused += 1;
      strangersIn += strangers.length;
      const kept = result.kept.filter((member) => member >= own.length).length;
      strangersKept += kept;
      if (alike(id, other)) {
        alikeIn += strangers.length;
        alikeKept += kept;
      }
      ownIn += own.length;
      ownDropped += result.dropped.filter(({ member }) => member < own.length).length;
    }
  }
  // two people equally often: 5 + 5 photos, every pair of people
  let halves = 0;
  let halvesRefused = 0;
  for (const [i, id] of ids.entries()) {
    for (const other of ids.slice(i + 1)) {
      const a = (grown.get(id) ?? []).slice(0, 5);
      const b = (grown.get(other) ?? []).slice(0, 5);
      if (a.length < 5 || b.length < 5) continue;
      halves += 1;
      if (findConsistentSet([...a, ...b], threshold, meanWithout(id, other)).twoPeople) halvesRefused += 1;
    }
  }
  // real photos from two sessions (one person): every set of k + k photos, one session each
  const twoSessions = people
    .filter((person) => new Set(person.occasion).size === 2)
    .map((person) => {
      const [first] = person.occasion;
      const embeddings = real.get(person.id) ?? [];
      const a = embeddings.filter((_, i) => person.occasion[i] === first);
      const b = embeddings.filter((_, i) => person.occasion[i] !== first);
      const bySize: Record<string, { sets: number; droppedPercent: number | null }> = {};
      for (const k of [2, 3]) {
        let total = 0;
        let dropped = 0;
        let sets = 0;
        for (const left of subsets(a, k)) {
          for (const right of subsets(b, k)) {
            sets += 1;
            total += 2 * k;
            dropped += findConsistentSet([...left, ...right], threshold, meanWithout(person.id)).dropped.length;
          }
        }
        bySize[`${k}+${k}`] = { sets, droppedPercent: percent(dropped, total) };
      }
      return { person: person.id, ...bySize };
    });
  const frr = percent(realDropped, realTotal);
  const far = percent(strangersKept, strangersIn);
  return {
    evaluationSet: {
      people: ids.length,
      realPhotos: realTotal,
      multiSessionPeople: people.filter((person) => person.occasions > 1).map((person) => person.id),
      caveat:
        "Same-person pairs are mostly one studio sitting (neutral + smiling); one person has 2 sessions. No openly licensed set of people photographed on several occasions was reachable: the same-person figures are optimistic and the issue's multi-occasion target stays open.",
      simulatedVariantsPerPhoto: variantsPerPhoto,
      embedMsPerPhoto: Math.round(embedMs),
    },
    distributions: {
      what: 'identity similarity (cosine less the population mean), held out: each comparison takes away a mean made without the people compared',
      samePersonPairs: distribution(pairs.same),
      differentPersonPairs: distribution(pairs.different),
      strangerMedianToAPersonsSet: distribution(strangerMedians),
      sameEthnicityStrangerMedianToAPersonsSet: distribution(alikeStrangerMedians),
      plainCosineForReference: { samePersonPairs: distribution(rawPairs.same), differentPersonPairs: distribution(rawPairs.different) },
    },
    threshold: {
      engine: threshold,
      calibrated,
      lowestStepMeetingTarget: lowestStep(strangerMedians),
      lowestStepMeetingTargetSameEthnicity: lowestStep(alikeStrangerMedians),
      rule: `lowest 0.01 step at which at most 1 % of other people's photos have a median similarity to a person's set at or above it (the engine keeps a photo whose median similarity to the other kept photos is at or above the threshold), plus ${CALIBRATION_MARGIN}; the same-ethnicity step for reference`,
      matchesEngine: Math.abs(calibrated - threshold) < 1e-9,
      samePersonMarginAtP5: round3(
        quantile(
          [...pairs.same].sort((a, b) => a - b),
          0.05,
        ) - threshold,
      ),
      samePersonPairsBelow: percent(pairs.same.filter((v) => v < threshold).length, pairs.same.length),
      differentPersonPairsAtOrAbove: percent(pairs.different.filter((v) => v >= threshold).length, pairs.different.length),
    },
    falseRejectRate: {
      percent: frr,
      target: TARGET_FRR * 100,
      targetMet: frr !== null && frr <= TARGET_FRR * 100,
      what: "same-person photos dropped when each person's real photos (2 from one sitting; 8 from 2 sessions for one person) are a training set, engine rule",
      withSimulatedVariationPercent: percent(grownDropped, grownTotal),
      twoSessionSubsets: twoSessions,
      inMixedSetsPercent: percent(ownDropped, ownIn),
    },
    falseAcceptRate: {
      percent: far,
      target: TARGET_FAR * 100,
      targetMet: far !== null && far <= TARGET_FAR * 100,
      what: "photos of another person kept when 2 of them are mixed into a person's set of 8 (every ordered pair of people), engine rule",
      stranger_photos: strangersIn,
      mixedSetsRefusedAsTwoPeople: percent(mixedRefused, mixedSets),
      sameEthnicityPercent: percent(alikeKept, alikeIn),
      sameEthnicityStrangerPhotos: alikeIn,
    },
    twoPeopleEquallyOften: { sets: halves, refusedPercent: percent(halvesRefused, halves), what: '5 + 5 photos of two people: refused, not one picked' },
  };
}

/** Writes src/engines/local-face/ai-photos/population-mean.ts: the mean embedding of the evaluation set's real photos. */
function writePopulationMean(mean: readonly number[], photos: number, people: number) {
  const file = new URL('../src/engines/local-face/ai-photos/population-mean.ts', import.meta.url);
  const numbers = mean.map((v) => Number(v.toFixed(5)));
  const rows: string[] = [];
  for (let i = 0; i < numbers.length; i += 16) rows.push(`  ${numbers.slice(i, i + 16).join(', ')},`);
  writeFileSync(
    file,
    [
      '// Generated by `npx tsx bench/ai-photos-bench.ts --write-population-mean` (server/), then biome format:',
      `// the mean faceres embedding of the ${people} people of test/fixtures/face-eval photographed in one`,
      `// sitting (each person's mean over their real photos, ${photos} in all, counted once); the person`,
      '// photographed in two sessions, on whom the identity tests and the AI Photos journey train, is left out.',
      '// Do not edit by hand. identity.ts takes it away from every embedding before comparing two.',
      'export const POPULATION_MEAN: readonly number[] = [',
      ...rows,
      '];',
      '',
    ].join('\n'),
  );
  process.stderr.write(`wrote ${file.pathname}\n`);
}

async function timings() {
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

  const baseline = stats(detectionPass);
  const ratio = (ms: number) => Math.round((ms / baseline.medianMs) * 100) / 100;
  const perTrainPhoto = stats(train);
  const perGeneratedPhoto = stats(generate);
  return {
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
}

async function main() {
  const timing = values['skip-timing'] ? undefined : await timings();
  const identity = await identityCalibration();
  await closeLocalFaceEngine();
  const output = {
    bench: 'local-ai-photos',
    at: new Date().toISOString(),
    node: process.version,
    sharp: sharp.versions.sharp,
    cpus: cpus().length,
    ...timing,
    identity,
  };
  process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
}

await main();
