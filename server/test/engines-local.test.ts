import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EngineImage, EngineProgress, EngineResult } from '../src/engines/engine.ts';
import { createLocalEngine } from '../src/engines/local/index.ts';
import { captionBarHeight, tileSvg } from '../src/engines/local/procedural.ts';
import { rasteriseSvg } from '../src/engines/local/raster.ts';

const CELL = 256;
const PROMPT = 'a lighthouse on a cliff at sunset, ocean waves';
const engine = createLocalEngine({ cellSize: CELL });
const run = (job: Parameters<typeof engine.run>[0], onProgress: (p: EngineProgress) => void = () => {}) =>
  engine.run(job, onProgress, new AbortController().signal);

function bytes(image: EngineImage | undefined): Buffer {
  if (image?.source !== 'buffer') throw new Error('expected a rendered image');
  return image.data;
}

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

async function rgb(data: Buffer) {
  return sharp(data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
}

describe('local engine: imagine', () => {
  let first: EngineResult;
  const progress: EngineProgress[] = [];

  beforeAll(async () => {
    first = await run({ kind: 'imagine', prompt: PROMPT, seed: 1234 }, (p) => progress.push(p));
  });

  it('renders a 2×2 grid of four cells, labelled simulated, with the seed', async () => {
    expect(first).toMatchObject({ engine: 'local', layout: 'grid', simulated: true, method: 'procedural-svg', seed: 1234, width: 2 * CELL, height: 2 * CELL });
    expect(first.note).toMatch(/simulated/i);
    expect(first.images).toHaveLength(4);
    const meta = await sharp(bytes(first.image)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 2 * CELL, 2 * CELL]);
    for (const cell of first.images) expect(cell).toMatchObject({ source: 'buffer', contentType: 'image/png', width: CELL, height: CELL });
  });

  it('gives the same bytes for the same prompt and seed', async () => {
    const again = await run({ kind: 'imagine', prompt: PROMPT, seed: 1234 });
    expect(sha(bytes(again.image))).toBe(sha(bytes(first.image)));
    expect(again.images.map((i) => sha(bytes(i)))).toEqual(first.images.map((i) => sha(bytes(i))));
  });

  it('gives different bytes for another seed or another prompt', async () => {
    const otherSeed = await run({ kind: 'imagine', prompt: PROMPT, seed: 1235 });
    const otherPrompt = await run({ kind: 'imagine', prompt: `${PROMPT}, at night`, seed: 1234 });
    expect(sha(bytes(otherSeed.image))).not.toBe(sha(bytes(first.image)));
    expect(sha(bytes(otherPrompt.image))).not.toBe(sha(bytes(first.image)));
  });

  it('renders four distinct candidates', () => {
    expect(new Set(first.images.map((i) => sha(bytes(i)))).size).toBe(4);
  });

  it('composes the grid from exactly the four single images, row by row', async () => {
    const grid = bytes(first.image);
    for (const [i, cell] of first.images.entries()) {
      const quadrant = await sharp(grid)
        .extract({ left: (i % 2) * CELL, top: Math.floor(i / 2) * CELL, width: CELL, height: CELL })
        .raw()
        .toBuffer();
      expect((await rgb(bytes(cell))).data.equals(quadrant)).toBe(true);
    }
  });

  it('reports rising progress, ending at 100', () => {
    const values = progress.map((p) => p.percentage);
    expect(values.at(-1)).toBe(100);
    expect(values.length).toBeGreaterThan(3);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(progress[0].status).toBe('running');
  });

  it('picks and returns a seed when none is given', async () => {
    const result = await run({ kind: 'imagine', prompt: PROMPT });
    expect(Number.isInteger(result.seed)).toBe(true);
  });

  it('refuses an empty prompt', async () => {
    await expect(run({ kind: 'imagine', prompt: '   ' })).rejects.toMatchObject({ code: 'invalid_input', retryable: false });
  });

  it('draws the SIMULATED caption into the bottom strip of every tile', async () => {
    const spec = { prompt: PROMPT, seed: 7, variant: 0, width: CELL, height: CELL, style: 'midjourney' as const };
    const withCaption = await rasteriseSvg(tileSvg({ ...spec, caption: 'SIMULATED  SEED 7' }));
    const without = await rasteriseSvg(tileSvg({ ...spec, caption: null }));
    const strip = captionBarHeight(CELL) * CELL * 3;
    const split = withCaption.data.length - strip;
    expect(withCaption.data.subarray(0, split).equals(without.data.subarray(0, split))).toBe(true);
    expect(withCaption.data.subarray(split).equals(without.data.subarray(split))).toBe(false);
  });
});

describe('local engine: reroll, variation, seed, flux, ideogram', () => {
  let parent: EngineResult;
  beforeAll(async () => {
    parent = await run({ kind: 'imagine', prompt: PROMPT, seed: 99 });
  });

  it('rerolls the parent prompt with a new seed', async () => {
    const reroll = await run({ kind: 'reroll', parent: { prompt: PROMPT, seed: 99 }, seed: 100 });
    const direct = await run({ kind: 'imagine', prompt: PROMPT, seed: 100 });
    expect(reroll).toMatchObject({ layout: 'grid', simulated: true, seed: 100 });
    expect(sha(bytes(reroll.image))).toBe(sha(bytes(direct.image)));
    expect(sha(bytes(reroll.image))).not.toBe(sha(bytes(parent.image)));
  });

  it('derives a variation deterministically from the parent image and the index', async () => {
    const job = { kind: 'variation' as const, index: 2 as const, parent: { image: bytes(parent.image), layout: 'grid' as const, prompt: PROMPT } };
    const a = await run(job);
    const b = await run(job);
    const otherIndex = await run({ ...job, index: 3 });
    expect(a).toMatchObject({ layout: 'grid', simulated: true, width: 2 * CELL, height: 2 * CELL });
    expect(a.images).toHaveLength(4);
    expect(sha(bytes(a.image))).toBe(sha(bytes(b.image)));
    expect(a.seed).toBe(b.seed);
    expect(sha(bytes(a.image))).not.toBe(sha(bytes(otherIndex.image)));
    expect(a.seed).not.toBe(otherIndex.seed);
  });

  it('fails a variation without a parent image as bad input', async () => {
    await expect(run({ kind: 'variation', index: 1, parent: { prompt: PROMPT } })).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(run({ kind: 'variation', index: 1, parent: { image: Buffer.from('not an image') } })).rejects.toMatchObject({
      code: 'invalid_input',
      message: 'The source image could not be read.',
    });
  });

  it('returns the parent seed for a seed job', async () => {
    expect(await run({ kind: 'seed', parent: { seed: 99 } })).toMatchObject({ layout: 'none', seed: 99, images: [] });
    await expect(run({ kind: 'seed', parent: {} })).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('renders flux as one image in the requested aspect ratio', async () => {
    const flux = await run({ kind: 'flux-imagine', prompt: PROMPT, seed: 5, aspectRatio: '16:9' });
    expect(flux).toMatchObject({ layout: 'single', simulated: true, seed: 5, width: CELL, height: 144 });
    expect(flux.images).toHaveLength(1);
    const meta = await sharp(bytes(flux.image)).metadata();
    expect([meta.width, meta.height]).toEqual([CELL, 144]);
  });

  it('renders ideogram as a grid that differs from the Midjourney render of the same prompt and seed', async () => {
    const ideogram = await run({ kind: 'ideogram-imagine', prompt: PROMPT, seed: 99 });
    expect(ideogram).toMatchObject({ layout: 'grid', simulated: true, width: 2 * CELL, height: 2 * CELL });
    expect(sha(bytes(ideogram.image))).not.toBe(sha(bytes(parent.image)));
  });
});

describe('local engine: upscale', () => {
  let grid: Buffer;
  beforeAll(async () => {
    grid = bytes((await run({ kind: 'imagine', prompt: PROMPT, seed: 3 })).image);
  });

  it.each([
    ['1x', CELL, 'crop'],
    ['subtle', 2 * CELL, 'lanczos3'],
    ['creative', 2 * CELL, 'lanczos3'],
    ['2x', 2 * CELL, 'lanczos3'],
    ['4x', 4 * CELL, 'lanczos3'],
  ] as const)('upscale %s of a grid cell gives %i px', async (type, side, method) => {
    const result = await run({ kind: 'upscale', index: 4, type, parent: { image: grid, layout: 'grid', seed: 3 } });
    expect(result).toMatchObject({ layout: 'single', simulated: false, method, width: side, height: side, seed: 3 });
    const meta = await sharp(bytes(result.image)).metadata();
    expect([meta.width, meta.height]).toEqual([side, side]);
  });

  it('upscale 1x returns the chosen cell unchanged', async () => {
    const result = await run({ kind: 'upscale', index: 2, type: '1x', parent: { image: grid, layout: 'grid' } });
    const cell = await sharp(grid).extract({ left: CELL, top: 0, width: CELL, height: CELL }).raw().toBuffer();
    expect((await rgb(bytes(result.image))).data.equals(cell)).toBe(true);
  });

  it('subtle and creative differ in finish', async () => {
    const parent = { image: grid, layout: 'grid' as const };
    const subtle = await run({ kind: 'upscale', index: 1, type: 'subtle', parent });
    const creative = await run({ kind: 'upscale', index: 1, type: 'creative', parent });
    expect(sha(bytes(subtle.image))).not.toBe(sha(bytes(creative.image)));
  });

  it('enlarges a single (already upscaled) image as a whole', async () => {
    const single = bytes((await run({ kind: 'upscale', index: 1, type: '1x', parent: { image: grid, layout: 'grid' } })).image);
    const result = await run({ kind: 'upscale', index: 1, type: '2x', parent: { image: single, layout: 'single' } });
    expect([result.width, result.height]).toEqual([2 * CELL, 2 * CELL]);
  });

  it('refuses an output beyond the pixel limit', async () => {
    const small = createLocalEngine({ cellSize: CELL, maxOutputPixels: 3 * CELL * 3 * CELL });
    await expect(
      small.run({ kind: 'upscale', index: 1, type: '4x', parent: { image: grid, layout: 'grid' } }, () => {}, new AbortController().signal),
    ).rejects.toMatchObject({ code: 'too_large', retryable: false });
  });

  it('refuses a parent image beyond the input pixel limit', async () => {
    const strict = createLocalEngine({ cellSize: CELL, maxInputPixels: CELL * CELL });
    await expect(
      strict.run({ kind: 'upscale', index: 1, type: '2x', parent: { image: grid, layout: 'grid' } }, () => {}, new AbortController().signal),
    ).rejects.toMatchObject({ code: 'too_large' });
  });
});

describe('local engine: abort', () => {
  it('stops a render when the signal aborts and reports nothing afterwards', async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    const running = engine.run(
      { kind: 'imagine', prompt: PROMPT, seed: 11 },
      (p) => {
        seen.push(p.percentage);
        if (p.percentage >= 5) controller.abort();
      },
      controller.signal,
    );
    await expect(running).rejects.toMatchObject({ code: 'aborted' });
    const countAtAbort = seen.length;
    await new Promise((resolve) => setTimeout(resolve, 200)); // let the in-flight libvips work finish
    expect(seen).toHaveLength(countAtAbort);
    expect(seen).not.toContain(100);
  });
});
