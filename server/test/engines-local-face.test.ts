import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineError, type EngineProgress, type EngineResult, type ImageInput, isEngineError } from '../src/engines/engine.ts';
import { closeLocalFaceEngine, createLocalFaceEngine, embedLargestFace } from '../src/engines/local-face/index.ts';

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
