import { describe, expect, it } from 'vitest';
import {
  availableActions,
  describedImage,
  downloadFileName,
  gridImages,
  isEditableUpscale,
  isMidjourneyTask,
  primaryImage,
  promptChoices,
  recordedSize,
  resultLayout,
  seedText,
  zoomRatioOf,
  type MidjourneyTask,
} from '../src/features/midjourney/task-model.ts';

const task = (over: Partial<MidjourneyTask> = {}): MidjourneyTask => ({
  id: 't1',
  type: 'imagine',
  status: 'finished',
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
    ['describe', true],
    ['shorten', true],
    ['blend', true],
    ['inpaint', true],
    ['variation-strong', true],
    ['variation-subtle', true],
    ['outpaint-1.5x', true],
    ['upscale-subtle', true],
    ['faceswap', false],
    ['variation', false],
    ['pan-', false],
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
    ['variation-strong', 'grid'],
    ['variation-subtle', 'grid'],
    ['outpaint-2x', 'grid'],
    ['seed', 'none'],
    ['describe', 'prompts'],
    ['shorten', 'prompts'],
  ])('%s -> %s', (type, expected) => expect(resultLayout(type)).toBe(expected));
});

describe('promptChoices: the prompts a describe or shorten task answered', () => {
  it.each([
    ['four prompts', { prompts: ['a', 'b', 'c', 'd'] }, ['a', 'b', 'c', 'd']],
    ['trimmed, blanks and non-strings dropped', { prompts: [' a ', '', '  ', 7, null, 'b'] }, ['a', 'b']],
    ['not a list', { prompts: 'a cat' }, []],
    ['no prompts', { message: 'x' }, []],
    ['no result', null, []],
  ])('%s', (_name, result, expected) => expect(promptChoices(task({ result: result as MidjourneyTask['result'] }))).toEqual(expected));
});

describe('describedImage and recordedSize', () => {
  it.each([
    [{ image_url: 'http://x/a.png' }, 'http://x/a.png'],
    [{ image_url: '' }, null],
    [{ image_url: 3 }, null],
    [null, null],
    [undefined, null],
  ])('describedImage(%j) -> %j', (input, expected) => expect(describedImage(task({ input_data: input }))).toBe(expected));

  it.each([
    [
      { width: 1024, height: 768 },
      { width: 1024, height: 768 },
    ],
    [
      { width: 1023.6, height: 767.4 },
      { width: 1024, height: 767 },
    ],
    [{ width: 0, height: 768 }, null],
    [{ width: '1024', height: 768 }, null],
    [{ message: 'x' }, null],
    [null, null],
  ])('recordedSize(%j) -> %j', (result, expected) => expect(recordedSize(task({ result: result as MidjourneyTask['result'] }))).toEqual(expected));
});

describe('zoomRatioOf: a Custom Zoom slider value as the API takes it (1–2, on the 0.1 grid)', () => {
  it.each([
    [1.2000000000000002, 1.2],
    [1.55, 1.6],
    [0.9, 1],
    [2.3, 2],
    [1.5, 1.5],
  ])('%s -> %s', (value, expected) => expect(zoomRatioOf(value)).toBe(expected));
});

describe('isEditableUpscale: the upscaled images that pan, zoom out, vary and vary a region', () => {
  it.each([
    ['upscale#1', true],
    ['upscale#4', true],
    ['upscale-subtle', true],
    ['upscale-creative', true],
    ['upscale-2x', false],
    ['upscale-4x', false],
    ['upscale#5', false],
    ['imagine', false],
  ])('%s -> %s', (type, expected) => expect(isEditableUpscale(type)).toBe(expected));
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

describe('availableActions (spec §6: archived items hide Seed, Reroll and the edits)', () => {
  const none = {
    cellActions: false,
    furtherUpscales: false,
    imageEdits: false,
    promptChoices: false,
    seed: false,
    reroll: false,
    favorite: false,
    download: false,
  };
  it.each([
    ['finished grid', task(), false, { ...none, cellActions: true, seed: true, reroll: true, favorite: true, download: true }],
    ['archived grid', task(), true, { ...none, favorite: true, download: true }],
    ['upscale#2', task({ type: 'upscale#2' }), false, { ...none, furtherUpscales: true, imageEdits: true, seed: true, favorite: true, download: true }],
    ['upscale-creative', task({ type: 'upscale-creative' }), false, { ...none, imageEdits: true, seed: true, favorite: true, download: true }],
    ['upscale-subtle', task({ type: 'upscale-subtle' }), false, { ...none, imageEdits: true, seed: true, favorite: true, download: true }],
    ['upscale-2x', task({ type: 'upscale-2x' }), false, { ...none, seed: true, favorite: true, download: true }],
    ['archived upscale 2x', task({ type: 'upscale-2x' }), true, { ...none, favorite: true, download: true }],
    ['archived upscale#1', task({ type: 'upscale#1' }), true, { ...none, favorite: true, download: true }],
    ['upscale#1 without a picture', task({ type: 'upscale#1', image_url: null, image_urls: null }), false, { ...none, seed: true, favorite: true }],
    ['running grid', task({ status: 'running' }), false, none],
    ['running upscale', task({ type: 'upscale#1', status: 'running' }), false, none],
    ['failed grid', task({ status: 'failed' }), false, none],
    [
      'finished (v1 status) pan',
      task({ type: 'pan-left', status: 'finished' }),
      false,
      { ...none, cellActions: true, seed: true, reroll: true, favorite: true, download: true },
    ],
    ['finished without pictures', task({ image_url: null, image_urls: null }), false, { ...none, cellActions: true, seed: true, reroll: true, favorite: true }],
    ['seed task', task({ type: 'seed', image_url: null, image_urls: null }), false, { ...none, favorite: true }],
    ['describe', task({ type: 'describe', image_url: 'http://x/d.png' }), false, { ...none, promptChoices: true, favorite: true }],
    ['archived shorten', task({ type: 'shorten', image_url: null, image_urls: null }), true, { ...none, promptChoices: true, favorite: true }],
    ['running describe', task({ type: 'describe', status: 'processing' }), false, none],
  ])('%s', (_name, t, archived, expected) => expect(availableActions(t, archived)).toEqual(expected));
});
