import { describe, expect, it } from 'vitest';
import { galleryTypes, HIDDEN_TYPES, searchPattern, toolLinkOf } from '../src/features/images/gallery-rules.ts';

describe('what the Images gallery shows', () => {
  it('All shows every picture-making type of the image families, never the hidden ones or video and audio', () => {
    const { types, prefixes } = galleryTypes('All', 'Everything');
    expect(types).toEqual(expect.arrayContaining(['imagine', 'upscale#1', 'variation-4', 'flux-imagine', 'ideogram-remix', 'ai-photo-generate', 'faceswap']));
    for (const hidden of HIDDEN_TYPES) expect(types).not.toContain(hidden);
    for (const other of ['luma', 'kling-video', 'runway', 'suno', 'udio']) expect(types).not.toContain(other);
    expect(prefixes).toEqual(['outpaint-']);
  });

  it.each([
    ['Midjourney', 'Variations', ['variation-1', 'variation-2', 'variation-3', 'variation-4', 'variation-strong', 'variation-subtle'], []],
    ['Midjourney', 'Upscales', ['upscale#1', 'upscale#2', 'upscale#3', 'upscale#4', 'upscale-creative', 'upscale-subtle', 'upscale-2x', 'upscale-4x'], []],
    ['Ideogram', 'Everything', ['ideogram-imagine', 'ideogram-remix', 'ideogram-upscale'], []],
    ['Ideogram', 'Upscales', ['ideogram-upscale'], []],
    ['AI Photos', 'Everything', ['ai-photo-generate'], []],
    ['Flux', 'Generations', ['flux-imagine'], []],
    ['Flux', 'Variations', [], []],
    ['Faceswap', 'Favorites', ['faceswap'], []],
  ] as const)('%s + %s → %j', (tab, filter, types, prefixes) => {
    expect(galleryTypes(tab, filter)).toEqual({ types, prefixes });
  });

  it('Generations of Midjourney are the first pictures: no variation, no upscale, outpaints included', () => {
    const { types, prefixes } = galleryTypes('Midjourney', 'Generations');
    expect(types).toEqual(['imagine', 'reroll', 'blend', 'inpaint', 'pan-up', 'pan-down', 'pan-left', 'pan-right']);
    expect(prefixes).toEqual(['outpaint-']);
  });
});

describe('prompt search', () => {
  it.each([
    ['', null],
    ['   ', null],
    [' lighthouse ', '%lighthouse%'],
    ['100% cotton_shirt', '%100\\% cotton\\_shirt%'],
    ['back\\slash', '%back\\\\slash%'],
  ])('%j → %j', (search, pattern) => {
    expect(searchPattern(search)).toBe(pattern);
  });
});

describe('reopening a picture in its tool', () => {
  it.each([
    [{ id: 't1', type: 'imagine' }, '/dashboard/tools/midjourney?taskId=t1'],
    [{ id: 't2', type: 'upscale#3' }, '/dashboard/tools/midjourney?taskId=t2'],
    [{ id: 't3', type: 'flux-imagine' }, null],
    [{ id: 't4', type: 'faceswap' }, '/dashboard/tools/faceswap?taskId=t4'],
    [{ id: 't5', type: 'ai-photo-generate' }, '/dashboard/tools/ai-photos?taskId=t5'],
    [{ id: 't6', type: 'ideogram-imagine' }, null],
  ])('%j → %s', (task, link) => {
    expect(toolLinkOf(task)).toBe(link);
  });
});
