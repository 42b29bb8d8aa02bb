import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineError, type EngineProgress, type EngineResult, type ImageInput, isEngineError } from '../src/engines/engine.ts';
import { analyseFaces } from '../src/engines/local-face/ai-photos/worker-calls.ts';
import { prepareImage } from '../src/engines/local-face/images.ts';
import { closeLocalFaceEngine, createLocalFaceEngine, embedLargestFace } from '../src/engines/local-face/index.ts';
import { mouthMask, mouthOpening, mouthsDiffer } from '../src/engines/local-face/mouth.ts';
import type { FaceAnalysis, RgbImage } from '../src/engines/local-face/protocol.ts';
import { deltaE2000, measureSwap } from '../src/engines/local-face/swap-quality.ts';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/faces/${name}`, import.meta.url));
const HOPPER = fixture('grace-hopper.jpg');
const COLLINS = fixture('eileen-collins.jpg');
/**
 * Eileen Collins' face in eileen-collins.jpg (512×512): roughly x 150–300, y 45–200 (hair to
 * chin). Everything outside this box grown by a quarter of its size must come out untouched.
 */
const COLLINS_FACE = { left: 150, top: 45, width: 150, height: 155 };

const input = (data: Buffer, contentType = 'image/jpeg'): ImageInput => ({ url: 'https://example.test/face', data, contentType });
const signal = () => new AbortController().signal;

function pngData(result: EngineResult): Buffer {
  if (result.image?.source !== 'buffer') throw new Error('expected a rendered image');
  return result.image.data;
}

const rgb = (data: Buffer) => sharp(data).removeAlpha().raw().toBuffer({ resolveWithObject: true });

function cosine(a: number[], b: number[]): number {
  const dot = a.reduce((sum, value, i) => sum + value * b[i], 0);
  return dot / (Math.hypot(...a) * Math.hypot(...b));
}

/** A smooth colour gradient: an image with no face in it. */
function gradientPng(): Promise<Buffer> {
  const [width, height] = [320, 240];
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) data.set([(x * 255) / width, (y * 255) / height, 128], (y * width + x) * 3);
  }
  return sharp(data, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

async function failure(run: Promise<unknown>): Promise<EngineError> {
  const error = await run.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isEngineError(error)) throw new Error(`expected an EngineError, got ${String(error)}`);
  return error;
}

describe('local face engine (real models, CPU)', () => {
  const engine = createLocalFaceEngine();
  const progress: EngineProgress[] = [];
  let swapped: EngineResult;

  beforeAll(async () => {
    // Grace Hopper's face onto Eileen Collins' portrait
    swapped = await engine.run({ kind: 'faceswap', source: input(HOPPER), target: input(COLLINS) }, (p) => progress.push(p), signal());
  }, 60_000);

  afterAll(() => closeLocalFaceEngine());

  it('answers a PNG of the target size, labelled a real (not simulated) swap', async () => {
    expect(swapped).toMatchObject({ engine: 'local-face', method: 'mesh-warp-classic', simulated: false, layout: 'single', width: 512, height: 512 });
    expect(swapped.images).toEqual([swapped.image]);
    expect(swapped.image).toMatchObject({ contentType: 'image/png', width: 512, height: 512 });
    const meta = await sharp(pngData(swapped)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 512, 512]);
    expect(swapped.note).toMatch(/Identity similarity to the source face .*: 0\.\d\d before, 0\.\d\d after/);
  });

  it('changes the face and leaves the picture well outside the face box as it was', async () => {
    const [before, after] = await Promise.all([rgb(COLLINS), rgb(pngData(swapped))]);
    const { width } = before.info;
    const grow = { x: COLLINS_FACE.width / 4, y: COLLINS_FACE.height / 4 };
    let outsideChanged = 0;
    let insideDiff = 0;
    let insideCount = 0;
    for (let y = 0; y < before.info.height; y += 1) {
      for (let x = 0; x < width; x += 1) {
        const at = (y * width + x) * 3;
        const diff = [0, 1, 2].reduce((sum, c) => sum + Math.abs(before.data[at + c] - after.data[at + c]), 0) / 3;
        const farOutside =
          x < COLLINS_FACE.left - grow.x ||
          x >= COLLINS_FACE.left + COLLINS_FACE.width + grow.x ||
          y < COLLINS_FACE.top - grow.y ||
          y >= COLLINS_FACE.top + COLLINS_FACE.height + grow.y;
        const central = Math.abs(x - (COLLINS_FACE.left + COLLINS_FACE.width / 2)) < 40 && Math.abs(y - (COLLINS_FACE.top + COLLINS_FACE.height / 2)) < 40;
        if (farOutside && diff > 0) outsideChanged += 1;
        if (central) {
          insideDiff += diff;
          insideCount += 1;
        }
      }
    }
    expect(outsideChanged).toBe(0);
    expect(insideDiff / insideCount).toBeGreaterThan(12);
  });

  it('moves the face toward the source identity (embeddings of a fresh detection)', async () => {
    const [source, target, result] = await Promise.all([embedLargestFace(HOPPER), embedLargestFace(COLLINS), embedLargestFace(pngData(swapped))]);
    if (!source || !target || !result) throw new Error('a face was not detected');
    const before = cosine(source, target);
    const after = cosine(source, result);
    expect(after).toBeGreaterThan(before + 0.1);
    // and the result is no longer the target's face
    expect(cosine(target, result)).toBeLessThan(0.9);
  });

  it('reports its stages as rising progress, ending at 100', () => {
    const values = progress.map((p) => p.percentage);
    expect(progress[0]).toMatchObject({ status: 'processing' });
    expect(values.at(-1)).toBe(100);
    for (let i = 1; i < values.length; i += 1) expect(values[i]).toBeGreaterThan(values[i - 1]);
    // detecting, warping and blending each report (a stage out of order would be filtered out)
    expect(values).toEqual(expect.arrayContaining([25, 40, 60, 85]));
  });

  it.each([
    ['source', 'No face found in the source image'],
    ['target', 'No face found in the target image'],
  ])('fails when the %s picture has no face: %s', async (which, message) => {
    const blank = input(await gradientPng(), 'image/png');
    const job = which === 'source' ? { source: blank, target: input(COLLINS) } : { source: input(HOPPER), target: blank };
    const error = await failure(engine.run({ kind: 'faceswap', ...job }, () => {}, signal()));
    expect([error.code, error.message, error.retryable]).toEqual(['invalid_input', message, false]);
  });

  it('refuses an unreadable picture and one over the pixel limit, before any detection', async () => {
    const unreadable = await failure(engine.run({ kind: 'faceswap', source: input(Buffer.from('not an image')), target: input(COLLINS) }, () => {}, signal()));
    expect([unreadable.code, unreadable.message, unreadable.retryable]).toEqual(['invalid_input', 'The source image could not be read', false]);

    const small = createLocalFaceEngine({ maxInputPixels: 250_000 });
    const tooLarge = await failure(small.run({ kind: 'faceswap', source: input(HOPPER), target: input(COLLINS) }, () => {}, signal()));
    expect(tooLarge.code).toBe('invalid_input');
    expect(tooLarge.message).toMatch(/^Image too large: the target image has 512×512 pixels/);
  });
});

/** Photos of the evaluation set (Face Research Lab London Set, CC BY 4.0; see fixtures/face-eval/README.md). */
const evalPhoto = (file: string) => readFileSync(new URL(`./fixtures/face-eval/people/${file}`, import.meta.url));

async function decodeWithFace(data: Buffer): Promise<{ pixels: RgbImage; face: FaceAnalysis }> {
  const prepared = await prepareImage(data, 'target', { maxPixels: 40_000_000, detectionSize: 1024 });
  const { faces } = await analyseFaces(prepared, undefined, signal());
  if (!faces[0]) throw new Error('no face in a fixture');
  return { pixels: prepared.pixels, face: faces[0] };
}

async function decoded(result: EngineResult): Promise<RgbImage> {
  const { data, info } = await rgb(pngData(result));
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

describe('seamless swaps on real photos (evaluation set)', () => {
  const engine = createLocalFaceEngine({ scoreIdentity: false });
  const swap = (source: Buffer, target: Buffer) => engine.run({ kind: 'faceswap', source: input(source), target: input(target) }, () => {}, signal());

  afterAll(() => closeLocalFaceEngine());

  it.each([
    ['frl-136/01.jpg', 'frl-003/02.jpg'],
    ['frl-038/02.jpg', 'frl-140/01.jpg'],
  ])(
    '%s onto %s: no seam along the face border, the border skin matches, nothing outside the face changes',
    async (source, target) => {
      const before = await decodeWithFace(evalPhoto(target));
      const after = await decoded(await swap(evalPhoto(source), evalPhoto(target)));
      const quality = measureSwap(before.pixels, after, before.face.mesh);
      expect(quality.backgroundMeanAbs).toBe(0);
      expect(quality.backgroundChangedShare).toBe(0);
      expect(quality.seamRatio).toBeLessThanOrEqual(1.15);
      expect(quality.skinDeltaE).not.toBeNull();
      expect(quality.skinDeltaE).toBeLessThanOrEqual(5);
    },
    30_000,
  );

  it('keeps the target mouth when an open smile goes onto closed lips', async () => {
    const [source, target] = [evalPhoto('frl-025/02.jpg'), evalPhoto('frl-087/01.jpg')];
    const [smile, closed] = await Promise.all([decodeWithFace(source), decodeWithFace(target)]);
    expect(mouthOpening(smile.face.mesh)).toBeGreaterThan(mouthOpening(closed.face.mesh) + 0.1);
    expect(mouthsDiffer(smile.face.mesh, closed.face.mesh)).toBe(true);
    const after = await decoded(await swap(source, target));
    // the lips (outline not grown) come out as the target's own: no teeth, no smeared smile
    const region = { x: 0, y: 0, width: after.width, height: after.height };
    const lips = mouthMask(closed.face.mesh, region, 0);
    let diff = 0;
    let count = 0;
    for (let i = 0; i < lips.length; i += 1) {
      if (!lips[i]) continue;
      for (let c = 0; c < 3; c += 1) diff += Math.abs(after.data[i * 3 + c] - closed.pixels.data[i * 3 + c]);
      count += 3;
    }
    expect(count).toBeGreaterThan(300);
    expect(diff / count).toBeLessThan(2);
    // while the rest of the face did change
    expect(measureSwap(closed.pixels, after, closed.face.mesh).skinDeltaE).toBeLessThanOrEqual(5);
  }, 30_000);

  it('swaps a small face in a large full-figure picture, keeping its size and everything around the face', async () => {
    // a set photo shrunk so its face is ~75 px wide, in a 1600 px scene
    const side = 1600;
    const photo = await sharp(evalPhoto('frl-087/01.jpg')).resize(220).toBuffer();
    const scene = await sharp({ create: { width: side, height: side, channels: 3, background: '#7fa3c8' } })
      .composite([
        { input: { create: { width: 300, height: 900, channels: 3, background: '#2d3e63' } }, left: 650, top: 520 },
        { input: photo, left: 690, top: 300 },
      ])
      .removeAlpha()
      .jpeg({ quality: 90 })
      .toBuffer();
    const before = await decodeWithFace(scene);
    expect(before.face.faceWidth).toBeGreaterThan(55);
    expect(before.face.faceWidth).toBeLessThan(100);
    const result = await swap(evalPhoto('frl-038/02.jpg'), scene);
    expect([result.width, result.height]).toEqual([side, side]);
    const after = await decoded(result);
    const quality = measureSwap(before.pixels, after, before.face.mesh);
    expect(quality.backgroundChangedShare).toBe(0);
    expect(quality.skinDeltaE ?? 0).toBeLessThanOrEqual(5);
    // the face itself changed: mean difference over the face's middle
    const [cx, cy] = [before.face.box[0] + before.face.box[2] / 2, before.face.box[1] + before.face.box[3] / 2];
    let diff = 0;
    let count = 0;
    for (let y = Math.round(cy - 12); y < cy + 12; y += 1) {
      for (let x = Math.round(cx - 12); x < cx + 12; x += 1) {
        for (let c = 0; c < 3; c += 1) diff += Math.abs(after.data[(y * side + x) * 3 + c] - before.pixels.data[(y * side + x) * 3 + c]);
        count += 3;
      }
    }
    expect(diff / count).toBeGreaterThan(4);
  }, 30_000);
});

describe('deltaE2000', () => {
  // pairs from Sharma, Wu & Dalal (2005), the CIEDE2000 test data
  it.each([
    [[50, 2.6772, -79.7751], [50, 0, -82.7485], 2.0425],
    [[50, 0, 0], [50, -1, 2], 2.3669],
    [[50, 2.5, 0], [73, 25, -18], 27.1492],
    [[2.0776, 0.0795, -1.135], [0.9033, -0.0636, -0.5514], 0.9082],
  ])('%j vs %j is %f', (a, b, expected) => {
    expect(deltaE2000(a, b)).toBeCloseTo(expected, 3);
  });
});
