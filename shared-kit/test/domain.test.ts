import { describe, expect, it } from 'vitest';
import {
  isTerminalStatus,
  normalizeTaskStatus,
  planLabel,
  scaleImagesDaily,
  scalePlanForSlider,
  TASK_FAMILIES,
  TASK_TYPES,
  taskFamily,
  withNormalizedStatus,
} from '../src/domain.ts';

// Prices, credits and top-up amounts are the server's catalog (GET /billing/config), tested in
// the server and in mfe-billing's screens; only the pure plan rules remain here.
describe('plans', () => {
  it.each([
    ['zero', 'free'],
    [null, 'free'],
    ['growth', 'growth'],
  ])('planLabel(%s) -> %s', (plan, label) => expect(planLabel(plan)).toBe(label));

  it.each([
    [0.5, 'scale1', 500],
    [1, 'scale1', 1000],
    [1.01, 'scale2', 1010],
    [2, 'scale2', 2000],
    [2.01, 'scale3', 2010],
    [4, 'scale3', 4000],
    [0.3, 'scale1', 500],
  ])('slider %f -> %s, %i images daily', (value, plan, daily) => {
    expect(scalePlanForSlider(value)).toBe(plan);
    expect(scaleImagesDaily(value)).toBe(daily);
  });
});

describe('task types', () => {
  it.each([
    ['imagine', 'midjourney'],
    ['upscale#3', 'midjourney'],
    ['outpaint-2x', 'midjourney'],
    ['ai-photo-train', 'ai-photo'],
    ['ideogram-remix', 'ideogram'],
    ['flux-imagine', 'flux'],
    ['kling-video', 'kling'],
    ['kling-tryon', 'kling'],
    ['imagine-video-extend', 'midjourney'],
    ['luma-ext', 'luma'],
    ['suno-lyrics', 'suno'],
    ['udio', 'udio'],
    ['runway', 'runway'],
    ['faceswap', 'faceswap'],
    ['unknown', null],
  ])('%s belongs to %s', (type, family) => expect(taskFamily(type)).toBe(family));

  it('every listed type has a family, and every family has a type', () => {
    const families = new Set(TASK_TYPES.map(taskFamily));
    expect(families.has(null)).toBe(false);
    expect([...families].sort()).toEqual([...TASK_FAMILIES].sort());
  });

  it.each([
    ['success', true],
    ['finished', true],
    ['failed', true],
    ['running', false],
    ['staged', false],
  ])('%s terminal=%s', (status, terminal) => expect(isTerminalStatus(status)).toBe(terminal));

  it.each([
    ['success', 'finished'],
    ['finished', 'finished'],
    ['failed', 'failed'],
    ['running', 'running'],
    ['queued', 'queued'],
  ])('the status %s reads as %s', (status, shown) => expect(normalizeTaskStatus(status)).toBe(shown));

  it('normalizes a row only when its status is the older success', () => {
    const old = { id: 't1', status: 'success', percentage: 100 };
    expect(withNormalizedStatus(old)).toEqual({ id: 't1', status: 'finished', percentage: 100 });
    expect(old.status).toBe('success');
    const current = { id: 't2', status: 'finished' };
    expect(withNormalizedStatus(current)).toBe(current);
    const other = { id: 't3', status: 'running' };
    expect(withNormalizedStatus(other)).toBe(other);
  });
});
