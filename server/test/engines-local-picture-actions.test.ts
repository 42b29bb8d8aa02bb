/**
 * The local engine's Midjourney actions and Ideogram jobs, by their real properties: pan and
 * zoom out keep the parent's pixels exactly at the right offset of a canvas of the right
 * size; vary region leaves every pixel outside the mask unchanged; blend answers the shape
 * asked for and really mixes its inputs; describe's prompts follow the picture (a red one vs
 * a blue one); shorten is shorter and deterministic; every stand-in says so.
 */
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EngineImage, EngineJob, EngineResult, ImageInput, ParentRef } from '../src/engines/engine.ts';
import { createLocalEngine } from '../src/engines/local/index.ts';
import { shortenPrompt } from '../src/engines/local/shorten.ts';

const engine = createLocalEngine({ cellSize: 64 });
const run = (job: EngineJob) => engine.run(job, () => {}, new AbortController().signal);

interface Rgb {
  data: Buffer;
  width: number;
  height: number;
}

async function rgbOf(image: EngineImage | Buffer): Promise<Rgb> {
  const bytes = Buffer.isBuffer(image) ? image : image.source === 'buffer' ? image.data : Buffer.alloc(0);
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** A picture no procedural render reproduces: seeded noise. */
function noise(width: number, height: number, seed: number): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 3);
  let state = seed;
  for (let i = 0; i < data.length; i += 1) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    data[i] = state >> 23;
  }
  return sharp(data, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

const solid = (width: number, height: number, r: number, g: number, b: number) =>
  sharp({ create: { width, height, channels: 3, background: { r, g, b } } })
    .png()
    .toBuffer();

const input = (data: Buffer): ImageInput => ({ url: 'https://images.example.com/x.png', data, contentType: 'image/png' });

/** True when `part` appears in `whole` at (left, top), byte for byte. */
function containsAt(whole: Rgb, part: Rgb, left: number, top: number): boolean {
  for (let y = 0; y < part.height; y += 1) {
    const from = ((top + y) * whole.width + left) * 3;
    if (!whole.data.subarray(from, from + part.width * 3).equals(part.data.subarray(y * part.width * 3, (y + 1) * part.width * 3))) return false;
  }
  return true;
}

const meanAbsDiff = (a: Rgb, b: Rgb) => {
  let sum = 0;
  for (let i = 0; i < a.data.length; i += 1) sum += Math.abs(a.data[i] - b.data[i]);
  return sum / a.data.length;
};

function expectGridOfFour(result: EngineResult, cell: { width: number; height: number }) {
  expect(result.layout).toBe('grid');
  expect(result.images).toHaveLength(4);
  for (const image of result.images) expect(image).toMatchObject(cell);
  expect(result.image).toMatchObject({ width: cell.width * 2, height: cell.height * 2 });
}

describe('local engine: pan and zoom out keep the parent exactly on a larger canvas', () => {
  let parentPng: Buffer;
  let parent: Rgb;
  const single = (): ParentRef => ({ image: parentPng, layout: 'single', prompt: 'a harbour at dusk' });

  beforeAll(async () => {
    parentPng = await noise(60, 40, 7);
    parent = await rgbOf(parentPng);
  });

  it.each([
    ['left', { width: 90, height: 40 }, [30, 0]],
    ['right', { width: 90, height: 40 }, [0, 0]],
    ['up', { width: 60, height: 60 }, [0, 20]],
    ['down', { width: 60, height: 60 }, [0, 0]],
  ] as const)('pan %s: a %j canvas with the parent at %j in every candidate, labelled', async (direction, canvas, [left, top]) => {
    const result = await run({ kind: 'pan', parent: single(), direction });
    expectGridOfFour(result, canvas);
    expect(result).toMatchObject({ engine: 'local', simulated: true, method: 'canvas-extend' });
    expect(result.note).toMatch(/pixel for pixel/);
    const cells = await Promise.all(result.images.map(rgbOf));
    for (const cell of cells) {
      expect(containsAt(cell, parent, left, top)).toBe(true);
      // anywhere else the parent is not (the new area is not a copy of it)
      expect(containsAt(cell, parent, left === 0 && canvas.width > 60 ? 30 : 0, top === 0 && canvas.height > 40 ? 20 : 0)).toBe(false);
    }
    // four different candidates
    expect(new Set(cells.map((c) => c.data.toString('base64'))).size).toBe(4);
  });

  it.each([
    [2, undefined, { width: 120, height: 80 }, [30, 20]],
    [1.5, undefined, { width: 90, height: 60 }, [15, 10]],
    [1, '1:1' as const, { width: 60, height: 60 }, [0, 10]],
    [1, '16:9' as const, { width: 71, height: 40 }, [5, 0]],
    [2, '16:9' as const, { width: 142, height: 80 }, [41, 20]],
  ])('zoom out %s (aspect %s): a %j canvas with the parent at %j', async (zoom, aspectRatio, canvas, [left, top]) => {
    const result = await run({ kind: 'outpaint', parent: single(), zoom, ...(aspectRatio ? { aspectRatio } : {}) });
    expectGridOfFour(result, canvas);
    for (const cell of await Promise.all(result.images.map(rgbOf))) expect(containsAt(cell, parent, left, top)).toBe(true);
  });

  it('works on one cell of a grid parent when given its index', async () => {
    const cells = await Promise.all([1, 2, 3, 4].map((i) => noise(40, 40, i)));
    const grid = await sharp({ create: { width: 80, height: 80, channels: 3, background: '#000' } })
      .composite(cells.map((input, i) => ({ input, left: (i % 2) * 40, top: Math.floor(i / 2) * 40 })))
      .png()
      .toBuffer();
    const result = await run({ kind: 'pan', parent: { image: grid, layout: 'grid', prompt: 'x' }, index: 3, direction: 'right' });
    const third = await rgbOf(cells[2]);
    for (const cell of await Promise.all(result.images.map(rgbOf))) expect(containsAt(cell, third, 0, 0)).toBe(true);
    await expect(run({ kind: 'pan', parent: { image: grid, layout: 'grid' }, direction: 'right' })).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('refuses a canvas over the output budget before rendering', async () => {
    const small = createLocalEngine({ cellSize: 64, maxOutputPixels: 60 * 40 * 3 });
    await expect(small.run({ kind: 'outpaint', parent: single(), zoom: 2 }, () => {}, new AbortController().signal)).rejects.toMatchObject({
      code: 'too_large',
    });
  });
});

describe('local engine: vary region respects the mask', () => {
  it('changes pixels only inside the mask (white on black), in every candidate', async () => {
    const parentPng = await noise(64, 48, 3);
    const parent = await rgbOf(parentPng);
    // the left 24 columns selected
    const mask = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#000' } })
      .composite([{ input: await solid(24, 48, 255, 255, 255), left: 0, top: 0 }])
      .png()
      .toBuffer();
    const result = await run({ kind: 'inpaint', parent: { image: parentPng, layout: 'single' }, mask: input(mask), prompt: 'a red balloon' });
    expectGridOfFour(result, { width: 64, height: 48 });
    expect(result).toMatchObject({ simulated: true, method: 'mask-repaint' });
    for (const cell of await Promise.all(result.images.map(rgbOf))) {
      let changedInside = 0;
      for (let y = 0; y < 48; y += 1) {
        for (let x = 0; x < 64; x += 1) {
          const at = (y * 64 + x) * 3;
          const same = cell.data.subarray(at, at + 3).equals(parent.data.subarray(at, at + 3));
          if (x >= 24) expect(same, `pixel ${x},${y} outside the mask`).toBe(true);
          else if (!same) changedInside += 1;
        }
      }
      expect(changedInside).toBeGreaterThan(24 * 48 * 0.9);
    }
  });

  it('reads a transparent mask with white strokes, scales a mask of another size, and refuses an empty one', async () => {
    const parentPng = await noise(40, 40, 5);
    const parent = await rgbOf(parentPng);
    // 80×80 transparent with the bottom half painted: after scaling, rows 20–39 of the picture
    const stroke = await sharp({ create: { width: 80, height: 40, channels: 4, background: { r: 255, g: 255, b: 255, alpha: 1 } } })
      .png()
      .toBuffer();
    const mask = await sharp({ create: { width: 80, height: 80, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .composite([{ input: stroke, left: 0, top: 40 }])
      .png()
      .toBuffer();
    const result = await run({ kind: 'inpaint', parent: { image: parentPng, layout: 'single' }, mask: input(mask), prompt: 'grass' });
    const cell = await rgbOf(result.images[0]);
    expect(cell.data.subarray(0, 40 * 20 * 3).equals(parent.data.subarray(0, 40 * 20 * 3))).toBe(true);
    expect(cell.data.subarray(40 * 20 * 3).equals(parent.data.subarray(40 * 20 * 3))).toBe(false);

    const black = await solid(40, 40, 0, 0, 0);
    await expect(run({ kind: 'inpaint', parent: { image: parentPng, layout: 'single' }, mask: input(black), prompt: 'x' })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/selects no region/),
    });
  });
});

describe('local engine: vary, blend, describe, shorten', () => {
  it('vary subtle stays closer to the parent than vary strong', async () => {
    const parentPng = await noise(64, 64, 11);
    const parent = await rgbOf(parentPng);
    const distance = async (type: 'subtle' | 'strong') => {
      const result = await run({ kind: 'vary', parent: { image: parentPng, layout: 'single', prompt: 'a fox' }, type });
      expectGridOfFour(result, { width: 64, height: 64 });
      const cells = await Promise.all(result.images.map(rgbOf));
      return cells.reduce((sum, cell) => sum + meanAbsDiff(cell, parent), 0) / 4;
    };
    expect(await distance('subtle')).toBeLessThan(await distance('strong'));
  });

  it.each([
    ['square', { width: 64, height: 64 }],
    ['portrait', { width: 42, height: 64 }],
    ['landscape', { width: 64, height: 42 }],
  ] as const)('blend %s answers four %j composites of the inputs', async (dimension, cell) => {
    const images = [input(await solid(30, 50, 255, 0, 0)), input(await solid(80, 20, 0, 0, 255))];
    const result = await run({ kind: 'blend', images, dimension });
    expectGridOfFour(result, cell);
    expect(result).toMatchObject({ simulated: true, method: 'pixel-composite' });
    // the even mix of red and blue is purple (above the caption bar)
    const even = await rgbOf(result.images[0]);
    expect([...even.data.subarray(0, 3)]).toEqual([128, 0, 128]);
    // a band mix: red on one side, blue on the other
    const bands = await rgbOf(result.images[1]);
    expect(bands.data[0]).toBeGreaterThan(bands.data[2]);
    const lastOfRow = (cell.width - 1) * 3;
    expect(bands.data[lastOfRow + 2]).toBeGreaterThan(bands.data[lastOfRow]);
  });

  it('describes a red and a blue picture with four prompts each that follow the picture', async () => {
    const red = await run({ kind: 'describe', image: input(await solid(96, 64, 220, 20, 30)) });
    const blue = await run({ kind: 'describe', image: input(await solid(96, 64, 20, 40, 220)) });
    for (const result of [red, blue]) {
      expect(result).toMatchObject({ layout: 'none', simulated: true, method: 'image-statistics', images: [] });
      expect(result.texts).toHaveLength(4);
      expect(new Set(result.texts).size).toBe(4);
      for (const text of result.texts ?? []) expect(text).toMatch(/--ar 3:2$/);
    }
    expect(red.texts?.join(' ')).toMatch(/\bred\b/);
    expect(blue.texts?.join(' ')).toMatch(/\bblue\b/);
    expect(red.texts?.join(' ')).not.toMatch(/\bblue\b/);
    expect(red.texts).not.toEqual(blue.texts);
    expect(red.data?.statistics).toMatchObject({ width: 96, height: 64, orientation: 'landscape', palette: [{ name: 'red', share: 1 }] });
    // deterministic
    expect((await run({ kind: 'describe', image: input(await solid(96, 64, 220, 20, 30)) })).texts).toEqual(red.texts);
  });

  it('counts faces through the configured counter, and describes without them when it fails', async () => {
    const withFaces = createLocalEngine({ cellSize: 64, faces: async () => 3 });
    const failing = createLocalEngine({ cellSize: 64, faces: async () => Promise.reject(new Error('no models')) });
    const image = input(await solid(40, 60, 200, 180, 150));
    const counted = await withFaces.run({ kind: 'describe', image }, () => {}, new AbortController().signal);
    expect(counted.texts?.[0]).toMatch(/^a group portrait of 3 people/);
    expect(counted.data?.statistics).toMatchObject({ faces: 3, orientation: 'portrait' });
    const without = await failing.run({ kind: 'ideogram-describe', image }, () => {}, new AbortController().signal);
    expect(without.texts).toHaveLength(1);
    expect(without.data?.statistics).not.toHaveProperty('faces');
  });

  it('shortens a prompt: every candidate shorter, fillers and repeats gone, parameters kept, deterministic', async () => {
    const prompt =
      'a beautiful stunning photograph of a lighthouse on a cliff, a lighthouse on a cliff, dramatic waves crashing, golden hour light, highly detailed, 8k, masterpiece --ar 16:9';
    const result = await run({ kind: 'shorten', prompt });
    expect(result).toMatchObject({ simulated: false, method: 'rule-based', layout: 'none' });
    const texts = result.texts ?? [];
    expect(texts.length).toBeGreaterThanOrEqual(3);
    let previous = prompt.length;
    for (const text of texts) {
      expect(text.length).toBeLessThan(previous);
      previous = text.length;
      expect(text).toMatch(/--ar 16:9$/);
      expect(text).not.toMatch(/beautiful|stunning|8k|masterpiece/);
    }
    expect(texts[0].match(/lighthouse/g)).toHaveLength(1);
    expect(result.data?.full_content).toMatch(/## Important tokens\nlighthouse/);
    expect(shortenPrompt(prompt)).toEqual(shortenPrompt(prompt));
    // nothing to take out: the prompt itself
    expect(shortenPrompt('cat').prompts).toEqual(['cat']);
  });
});

describe('local engine: imagine shapes, Flux and Ideogram jobs', () => {
  it('renders an imagine in the aspect ratio asked for, and a reroll with a new prompt', async () => {
    const wide = await run({ kind: 'imagine', prompt: 'a valley', aspectRatio: '16:9', seed: 1 });
    expectGridOfFour(wide, { width: 64, height: 36 });
    const rerolled = await run({ kind: 'reroll', parent: { prompt: 'old' }, prompt: 'a new valley', seed: 1 });
    const same = await run({ kind: 'imagine', prompt: 'a new valley', seed: 1 });
    expect((rerolled.image as { data: Buffer }).data.equals((same.image as { data: Buffer }).data)).toBe(true);
  });

  it('renders Flux at the exact size asked, and mixes in the image prompt', async () => {
    const plain = await run({ kind: 'flux-imagine', prompt: 'a red fox', size: { width: 96, height: 64 }, seed: 5, model: 'flux-dev', steps: 28 });
    expect(plain).toMatchObject({ layout: 'single', width: 96, height: 64, seed: 5, simulated: true });
    const white = input(await solid(10, 10, 255, 255, 255));
    const mixed = await run({
      kind: 'flux-imagine',
      prompt: 'a red fox',
      size: { width: 96, height: 64 },
      seed: 5,
      imagePrompt: white,
      imagePromptStrength: 0.9,
    });
    const [a, b] = await Promise.all([rgbOf(plain.images[0]), rgbOf(mixed.images[0])]);
    const mean = (img: Rgb) => img.data.reduce((s, v) => s + v, 0) / img.data.length;
    expect(mean(b)).toBeGreaterThan(mean(a) + 40);
  });

  it('renders Ideogram at an exact resolution, and keeps a negative prompt out', async () => {
    const result = await run({
      kind: 'ideogram-imagine',
      prompt: 'a tower by the sea',
      resolution: { width: 80, height: 48 },
      negativePrompt: 'tower',
      seed: 2,
    });
    expectGridOfFour(result, { width: 80, height: 48 });
    const without = await run({ kind: 'ideogram-imagine', prompt: 'a by the sea', resolution: { width: 80, height: 48 }, seed: 2 });
    expect((result.image as { data: Buffer }).data.equals((without.image as { data: Buffer }).data)).toBe(true);
  });

  it('remixes by image weight, upscales 2x for real, and describes in one paragraph', async () => {
    const green = await solid(50, 50, 0, 200, 0);
    const kept = await run({ kind: 'ideogram-remix', image: input(green), prompt: 'a castle', imageWeight: 100, seed: 3 });
    expect(kept).toMatchObject({ layout: 'single', simulated: true, width: 64, height: 64 });
    const keptRgb = await rgbOf(kept.images[0]);
    expect([...keptRgb.data.subarray(0, 3)]).toEqual([0, 200, 0]);

    const upscaled = await run({ kind: 'ideogram-upscale', image: input(await noise(30, 20, 1)), resemblance: 80, detail: 20 });
    expect(upscaled).toMatchObject({ layout: 'single', simulated: false, method: 'lanczos3', width: 60, height: 40 });

    const described = await run({ kind: 'ideogram-describe', image: input(green) });
    expect(described.texts).toHaveLength(1);
    expect(described.texts?.[0]).toMatch(/green/);
  });

  it('names honestly what it only simulates', () => {
    expect([...(engine.simulatedKinds ?? [])].sort()).toEqual(
      [
        'imagine',
        'reroll',
        'variation',
        'flux-imagine',
        'ideogram-imagine',
        'blend',
        'describe',
        'pan',
        'outpaint',
        'inpaint',
        'vary',
        'ideogram-remix',
        'ideogram-describe',
      ].sort(),
    );
    for (const real of ['upscale', 'seed', 'shorten', 'ideogram-upscale'] as const) expect(engine.supports(real)).toBe(true);
  });
});
