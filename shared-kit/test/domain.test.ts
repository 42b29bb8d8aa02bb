import { describe, expect, it } from 'vitest';
import { PLANS, TASK_FAMILIES, TASK_TYPES, TOP_UPS, isTerminalStatus, planLabel, scaleImagesDaily, scalePlanForSlider, taskFamily } from '../src/domain.ts';

describe('plans', () => {
  it.each([
    ['basic', 39, 1000],
    ['starter', 199, 5500],
    ['growth', 399, 11000],
    ['scale1', 2499, 120000],
    ['scale2', 4999, 240000],
    ['scale3', 9999, 480000],
    ['scale-c1', 3100, 156000],
  ])('%s costs $%i for %i credits', (id, price, credits) => {
    expect(PLANS.find((p) => p.id === id)).toMatchObject({ priceUsd: price, credits });
  });

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

describe('top-ups', () => {
  it.each([
    [10, 250],
    [20, 500],
    [50, 1250],
    [100, 2500],
    [200, 5000],
    [500, 12500],
  ])('$%i buys %i credits', (usd, credits) => expect(TOP_UPS.find((t) => t.usd === usd)?.credits).toBe(credits));
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
});
