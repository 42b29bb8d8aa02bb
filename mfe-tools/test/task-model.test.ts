import { describe, expect, it } from 'vitest';
import {
  availableActions,
  downloadFileName,
  gridImages,
  isMidjourneyTask,
  primaryImage,
  resultLayout,
  seedText,
  type MidjourneyTask,
} from '../src/features/midjourney/task-model.ts';

const task = (over: Partial<MidjourneyTask> = {}): MidjourneyTask => ({
  id: 't1',
  type: 'imagine',
  status: 'success',
  percentage: 100,
  prompt: 'a cat',
  image_url: 'http://api/grid.png',
  image_urls: ['http://api/1.png', 'http://api/2.png', 'http://api/3.png', 'http://api/4.png'],
  seed: null,
  favorite: false,
  result: null,
  refund: 0,
  ...over,
});

describe('isMidjourneyTask', () => {
  it.each([
    ['imagine', true],
    ['reroll', true],
    ['variation-3', true],
    ['upscale#2', true],
    ['upscale-4x', true],
    ['outpaint-zoom-2x', true],
    ['pan-left', true],
    ['seed', true],
    ['faceswap', false],
    ['flux-imagine', false],
    ['ai-photo-train', false],
    ['', false],
  ])('%s -> %s', (type, expected) => expect(isMidjourneyTask(type)).toBe(expected));
});

describe('resultLayout (spec §4: grid for imagine, reroll, blend, variation, outpaint, pan; single for upscales)', () => {
  it.each([
    ['imagine', 'grid'],
    ['reroll', 'grid'],
    ['blend', 'grid'],
    ['inpaint', 'grid'],
    ['variation-1', 'grid'],
    ['variation-4', 'grid'],
    ['outpaint-1.5x', 'grid'],
    ['pan-up', 'grid'],
    ['pan-right', 'grid'],
    ['upscale#1', 'single'],
    ['upscale-creative', 'single'],
    ['upscale-subtle', 'single'],
    ['upscale-2x', 'single'],
    ['upscale-4x', 'single'],
    ['seed', 'none'],
    ['describe', 'none'],
    ['shorten', 'none'],
  ])('%s -> %s', (type, expected) => expect(resultLayout(type)).toBe(expected));
});

describe('gridImages: the four cells, else the composed grid picture', () => {
  it.each([
    ['four cells', task(), ['http://api/1.png', 'http://api/2.png', 'http://api/3.png', 'http://api/4.png'], null],
    ['more than four keeps four', task({ image_urls: ['1', '2', '3', '4', '5'] }), ['1', '2', '3', '4'], null],
    ['no cells: grid image', task({ image_urls: null }), [], 'http://api/grid.png'],
    ['empty strings are no cells', task({ image_urls: ['', '', '', ''] }), [], 'http://api/grid.png'],
    ['only one cell and no grid image', task({ image_url: null, image_urls: ['only'] }), [], 'only'],
    ['nothing', task({ image_url: null, image_urls: [] }), [], null],
  ])('%s', (_name, t, cells, composite) => expect(gridImages(t)).toEqual({ cells, composite }));
});

describe('primaryImage', () => {
  it.each([
    [task(), 'http://api/grid.png'],
    [task({ image_url: null }), 'http://api/1.png'],
    [task({ image_url: null, image_urls: null }), null],
  ])('%#', (t, expected) => expect(primaryImage(t)).toBe(expected));
});

describe('downloadFileName: named from the task id', () => {
  it.each([
    ['image/png', 'abc.png'],
    ['image/jpeg', 'abc.jpg'],
    ['image/webp; charset=binary', 'abc.webp'],
    ['IMAGE/GIF', 'abc.gif'],
    ['application/octet-stream', 'abc.png'],
    [null, 'abc.png'],
  ])('%s -> %s', (type, expected) => expect(downloadFileName('abc', type)).toBe(expected));
});

describe('seedText', () => {
  it.each([
    [null, null],
    [undefined, null],
    ['', null],
    ['  ', null],
    [1234, '1234'],
    [' 987 ', '987'],
  ])('%j -> %j', (seed, expected) => expect(seedText(seed)).toBe(expected));
});

describe('availableActions (spec §6: archived items hide Seed and Reroll)', () => {
  it.each([
    ['finished grid', task(), false, { cellActions: true, furtherUpscales: false, seed: true, reroll: true, favorite: true, download: true }],
    ['archived grid', task(), true, { cellActions: true, furtherUpscales: false, seed: false, reroll: false, favorite: true, download: true }],
    ['upscale', task({ type: 'upscale#2' }), false, { cellActions: false, furtherUpscales: true, seed: true, reroll: false, favorite: true, download: true }],
    [
      'archived upscale 2x',
      task({ type: 'upscale-2x' }),
      true,
      { cellActions: false, furtherUpscales: false, seed: false, reroll: false, favorite: true, download: true },
    ],
    [
      'running grid',
      task({ status: 'running' }),
      false,
      { cellActions: false, furtherUpscales: false, seed: false, reroll: false, favorite: false, download: false },
    ],
    [
      'failed grid',
      task({ status: 'failed' }),
      false,
      { cellActions: false, furtherUpscales: false, seed: false, reroll: false, favorite: false, download: false },
    ],
    [
      'finished without pictures',
      task({ image_url: null, image_urls: null }),
      false,
      { cellActions: true, furtherUpscales: false, seed: true, reroll: true, favorite: true, download: false },
    ],
    [
      'archived upscale#1',
      task({ type: 'upscale#1' }),
      true,
      { cellActions: false, furtherUpscales: true, seed: false, reroll: false, favorite: true, download: true },
    ],
    [
      'seed task',
      task({ type: 'seed', image_url: null, image_urls: null }),
      false,
      { cellActions: false, furtherUpscales: false, seed: false, reroll: false, favorite: true, download: false },
    ],
  ])('%s', (_name, t, archived, expected) => expect(availableActions(t, archived)).toEqual(expected));
});
