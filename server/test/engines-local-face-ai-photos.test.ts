import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EngineError,
  type EngineImage,
  type EngineProgress,
  type EngineResult,
  type ImageInput,
  isEngineError,
  type TrainedIdentity,
} from '../src/engines/engine.ts';
import { closeLocalFaceEngine, createLocalFaceEngine, embedLargestFace } from '../src/engines/local-face/index.ts';
import { facePhotos } from './support/face-photos.ts';

/** The part of a training's identity profile these tests read. */
interface StoredIdentity {
  kept: number;
  profile: { centroid: number[]; references: { photo: number; quality: number }[] };
}

const COLLINS = readFileSync(new URL('./fixtures/faces/eileen-collins.jpg', import.meta.url));
const HOPPER = readFileSync(new URL('./fixtures/faces/grace-hopper.jpg', import.meta.url));
const SUBJECT = { gender: 'female', ethnicity: 'white', age: 70 } as const;

const input = (data: Buffer): ImageInput => ({ url: 'https://example.test/photo', data, contentType: 'image/jpeg' });
const signal = () => new AbortController().signal;

function bytes(image: EngineImage | undefined): Buffer {
  if (image?.source !== 'buffer') throw new Error('expected a rendered image');
  return image.data;
}

const digest = (image: EngineImage) => createHash('sha256').update(bytes(image)).digest('hex');

function cosine(a: number[], b: number[]): number {
  const dot = a.reduce((sum, value, i) => sum + value * b[i], 0);
  return dot / (Math.hypot(...a) * Math.hypot(...b));
}

/** A smooth colour gradient: a picture with no face in it. */
function gradient(): Promise<Buffer> {
  const [width, height] = [320, 240];
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) data.set([(x * 255) / width, (y * 255) / height, 128], (y * width + x) * 3);
  }
  return sharp(data, { raw: { width, height, channels: 3 } })
    .jpeg()
    .toBuffer();
}

/** Grace Hopper and Eileen Collins side by side, faces of about the same size. */
async function groupPhoto(): Promise<Buffer> {
  const collins = await sharp(COLLINS).extract({ left: 90, top: 0, width: 300, height: 351 }).resize(432, 506).toBuffer();
  return sharp({ create: { width: 864, height: 506, channels: 3, background: '#888' } })
    .composite([
      { input: HOPPER, left: 0, top: 0 },
      { input: collins, left: 432, top: 0 },
    ])
    .jpeg()
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

function expectRising(progress: EngineProgress[], stages: number): void {
  const values = progress.map((p) => p.percentage);
  expect(progress[0]).toMatchObject({ status: 'processing' });
  expect(values.at(-1)).toBe(100);
  for (let i = 1; i < values.length; i += 1) expect(values[i]).toBeGreaterThan(values[i - 1]);
  expect(values.length).toBeGreaterThanOrEqual(stages);
}

describe('local AI photos (real face models, CPU)', () => {
  const engine = createLocalFaceEngine();
  let photos: Buffer[];

  beforeAll(async () => {
    photos = await facePhotos(10);
  });

  afterAll(() => closeLocalFaceEngine());

  it('upload: a verdict per photo, with the reason for a no-face picture, a group photo, a duplicate and an unreadable file, and a low-resolution warning', async () => {
    // three photos of one person are enough here (a lower minimum keeps the test short)
    const lenient = createLocalFaceEngine({ aiPhotos: { minPhotos: 3 } });
    const progress: EngineProgress[] = [];
    const lowResolution = await sharp(photos[2]).resize(420).jpeg().toBuffer();
    expect((await sharp(lowResolution).metadata()).width).toBe(420);
    const images = [...photos.slice(0, 3), await gradient(), await groupPhoto(), photos[1], Buffer.from('not an image'), lowResolution];
    const result = await lenient.run({ kind: 'ai-photo-upload', images: images.map(input), subject: SUBJECT }, (p) => progress.push(p), signal());
    expect(result).toMatchObject({ engine: 'local-face', method: 'face-check', simulated: false, layout: 'none', images: [] });
    expect(result.data).toEqual({
      usable: 4,
      photos: [
        { index: 0, ok: true },
        { index: 1, ok: true },
        { index: 2, ok: true },
        { index: 3, ok: false, reason: 'no face found' },
        { index: 4, ok: false, reason: 'several people' },
        { index: 5, ok: false, reason: 'duplicate photo', duplicate_of: 1 },
        { index: 6, ok: false, reason: 'unreadable' },
        { index: 7, ok: true, warnings: ['low resolution (<512×512)'] },
      ],
    });
    expect(result.note).toMatch(/4 of 8 usable/);
    expectRising(progress, 8);
  });

  it('upload: fails saying how many photos are usable and why when fewer than 10 are', async () => {
    const small = await sharp(HOPPER).resize(130).jpeg().toBuffer();
    const error = await failure(
      engine.run({ kind: 'ai-photo-upload', images: [photos[0], await gradient(), small, Buffer.from('x')].map(input), subject: SUBJECT }, () => {}, signal()),
    );
    expect([error.code, error.retryable]).toEqual(['invalid_input', false]);
    expect(error.message).toBe(
      'Only 1 of 4 photos can be used; at least 10 photos showing one face at least 80 px wide are needed. Not usable: no face found: photo 2; face too small: photo 3; unreadable: photo 4.',
    );
  });

  describe('training and generation', () => {
    let trained: EngineResult;
    const trainProgress: EngineProgress[] = [];
    let identity: TrainedIdentity;

    beforeAll(async () => {
      // ten photos of Grace Hopper and, last, one of Eileen Collins
      trained = await engine.run(
        { kind: 'ai-photo-train', images: [...photos, COLLINS].map(input), subject: SUBJECT, triggerWord: 'gracehop' },
        (p) => trainProgress.push(p),
        signal(),
      );
      identity = {
        engine: 'local-face',
        triggerWord: 'gracehop',
        subject: SUBJECT,
        data: trained.data ?? {},
        images: trained.images.map((image) => input(bytes(image))),
      };
    }, 60_000);

    it("train: keeps the ten photos of one person as aligned reference crops and rejects the other person's photo, saying why", async () => {
      expect(trained).toMatchObject({ engine: 'local-face', method: 'identity-profile', simulated: false, layout: 'set', width: 512, height: 512 });
      expect(trained.note).toMatch(/^Identity profile from face analysis; no generative model was trained\. Kept 10 of 11 photos/);
      const { identity: stored, trigger_word } = trained.data as { identity: StoredIdentity; trigger_word: string };
      expect(trigger_word).toBe('gracehop');
      expect(stored).toMatchObject({
        kept: 10,
        rejected: [{ index: 10, reason: expect.stringMatching(/^different person \(similarity -?0\.[0-4]\d to the others, under 0\.45\)$/) }],
      });
      const { profile } = stored;
      expect(profile.centroid).toHaveLength(1024);
      expect(profile.centroid.every((value) => Number(value.toFixed(4)) === value)).toBe(true);
      // the references are the ten Hopper photos, best first, one crop each
      expect(profile.references.map((reference) => reference.photo).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(profile.references.map((reference) => reference.quality)).toEqual(
        [...profile.references.map((reference) => reference.quality)].sort((a, b) => b - a),
      );
      expect(trained.images).toHaveLength(10);
      const meta = await sharp(bytes(trained.images[0])).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 512, 512]);
      // a crop shows the same person as the photos
      const [crop, photo] = await Promise.all([embedLargestFace(bytes(trained.images[0])), embedLargestFace(photos[0])]);
      expect(cosine(crop ?? [], photo ?? [])).toBeGreaterThan(0.75);
      expectRising(trainProgress, 11);
    });

    it('train: fails clearly when too few photos of the same person remain, or too few are given', async () => {
      const small = createLocalFaceEngine({ aiPhotos: { minPhotos: 3 } });
      const tooFew = await failure(
        small.run(
          { kind: 'ai-photo-train', images: [photos[0], photos[1], COLLINS].map(input), subject: SUBJECT, triggerWord: 'gracehop' },
          () => {},
          signal(),
        ),
      );
      expect([tooFew.code, tooFew.message]).toEqual([
        'invalid_input',
        'Only 2 of 3 photos show the same person clearly; at least 3 are needed. Not used: different person: photo 3.',
      ]);
      const notEnough = await failure(
        engine.run({ kind: 'ai-photo-train', images: photos.slice(0, 9).map(input), subject: SUBJECT, triggerWord: 'gracehop' }, () => {}, signal()),
      );
      expect([notEnough.code, notEnough.message]).toEqual(['invalid_input', 'At least 10 photos of the same person are needed to train; 9 were given.']);
    });

    it('generate: count labelled photos of the asked size, the trained face swapped onto templates of other women, the same for a seed', async () => {
      const progress: EngineProgress[] = [];
      // a woman of 70: Grace Hopper's own portrait fits her best, and is skipped as already showing her
      const job = {
        kind: 'ai-photo-generate',
        identity,
        prompt: 'gracehop, film noir portrait in uniform',
        count: 4,
        width: 768,
        height: 1024,
        seed: 7,
      } as const;
      const result = await engine.run(job, (p) => progress.push(p), signal());
      expect(result).toMatchObject({ engine: 'local-face', method: 'template-faceswap', simulated: true, layout: 'set', seed: 7, width: 768, height: 1024 });
      expect(result.note).toMatch(/^Simulated, template-based: .*Not a generative model/);
      expect(result.images).toHaveLength(4);
      expect(result.image).toBe(result.images[0]);
      for (const image of result.images) {
        const meta = await sharp(bytes(image)).metadata();
        expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 768, 1024]);
      }
      const generation = result.data?.generation as {
        grade: string;
        template_ids: string[];
        templates: { gender: string; credit: string }[];
        skipped_templates: string[];
        identity_scores: { before: number; after: number }[];
      };
      expect(generation.grade).toBe('noir');
      expect(generation.skipped_templates).toEqual(['grace-hopper']);
      // four different templates, all of women, none mirrored, each credited
      expect(new Set(generation.template_ids).size).toBe(4);
      expect(generation.template_ids.some((id) => /mirror/.test(id))).toBe(false);
      for (const template of generation.templates) {
        expect(template.gender).toBe('female');
        expect(template.credit).toMatch(/CC BY 4\.0|Public domain/);
      }
      for (const score of generation.identity_scores) expect(score.after).toBeGreaterThan(score.before + 0.1);

      // measured independently: the delivered photo is nearer Grace Hopper than its template was
      const [person, template, delivered] = await Promise.all([
        embedLargestFace(photos[0]),
        embedLargestFace(readFileSync(new URL(`../assets/ai-photo-templates/${generation.template_ids[0]}.jpg`, import.meta.url))),
        embedLargestFace(bytes(result.images[0])),
      ]);
      if (!person || !template || !delivered) throw new Error('a face was not detected');
      expect(cosine(person, delivered)).toBeGreaterThan(cosine(person, template) + 0.1);

      // the visible label: a dark strip along the bottom with light text in it
      const strip = await sharp(bytes(result.images[0]))
        .extract({ left: 0, top: 1024 - 36, width: 768, height: 30 })
        .greyscale()
        .raw()
        .toBuffer();
      const light = strip.filter((value) => value > 200).length / strip.length;
      expect(light).toBeGreaterThan(0.03);
      expect(light).toBeLessThan(0.4);
      expectRising(progress, 8);

      // photo i depends on the seed and i only: a shorter run repeats the first photos byte for byte
      const again = await engine.run({ ...job, count: 2 }, () => {}, signal());
      expect(again.images.map(digest)).toEqual(result.images.slice(0, 2).map(digest));
    }, 90_000);

    it('generate: fails cleanly for a model trained by another engine or without an identity profile', async () => {
      const job = { kind: 'ai-photo-generate', prompt: 'portrait', count: 4, seed: 1 } as const;
      const elsewhere = await failure(engine.run({ ...job, identity: { ...identity, engine: 'replicate' } }, () => {}, signal()));
      expect([elsewhere.code, elsewhere.message]).toEqual([
        'invalid_input',
        'This model was trained by another engine (replicate); the local engine can only generate from models it trained.',
      ]);
      const empty = await failure(engine.run({ ...job, identity: { ...identity, data: {} } }, () => {}, signal()));
      expect([empty.code, empty.message]).toEqual(['invalid_input', 'This model has no identity profile to generate from; train it again.']);
      const noCrops = await failure(engine.run({ ...job, identity: { ...identity, images: [] } }, () => {}, signal()));
      expect(noCrops.message).toBe('The reference photos of this model are missing; train it again.');
    });
  });
});
