import { describe, expect, it } from 'vitest';
import { formatDelta, formatWhen, kindLabel, olderThan } from '../src/features/activity/history-rules.ts';
import { axisTicks, buildUsage, dayLabel, usageFamily } from '../src/features/activity/usage-rules.ts';

describe('usage families', () => {
  it.each([
    ['imagine', 'midjourney'],
    ['upscale#2', 'midjourney'],
    ['outpaint-zoom', 'midjourney'],
    ['flux-imagine', 'flux'],
    ['ideogram-remix', 'ideogram'],
    ['faceswap', 'faceswap'],
    ['ai-photo-train', 'ai-photo'],
    ['luma', 'video'],
    ['kling-video', 'video'],
    ['runway', 'video'],
    ['suno-ext', 'audio'],
    ['udio', 'audio'],
    ['something-new', 'other'],
  ])('%s counts as %s', (type, family) => {
    expect(usageFamily(type)).toBe(family);
  });
});

describe('buildUsage', () => {
  const rows = [
    { day: '2026-11-24', task_type: 'imagine', credits: 8 },
    { day: '2026-11-24', task_type: 'flux-imagine', credits: 2 },
    { day: '2026-11-20', task_type: 'kling-video', credits: 30 },
    { day: '2026-11-20', task_type: 'luma', credits: 10 },
    { day: '2026-10-01', task_type: 'imagine', credits: 99 }, // outside the 30 days
  ];

  it('gives every day of the period, oldest first, with day and family totals', () => {
    const usage = buildUsage(rows, '2026-11-24');
    expect(usage.days).toHaveLength(30);
    expect(usage.days[0].day).toBe('2026-10-26');
    expect(usage.days[29]).toMatchObject({ day: '2026-11-24', total: 10, byFamily: { midjourney: 8, flux: 2 } });
    expect(usage.days[25]).toMatchObject({ day: '2026-11-20', total: 40, byFamily: { video: 40 } });
    expect(usage.total).toBe(50);
    expect(usage.max).toBe(40);
    expect(usage.families).toEqual(['midjourney', 'flux', 'video']);
    expect(usage.totals).toMatchObject({ midjourney: 8, flux: 2, video: 40, audio: 0 });
  });

  it('crosses month ends and leap days', () => {
    expect(buildUsage([], '2028-03-01', 3).days.map((d) => d.day)).toEqual(['2028-02-28', '2028-02-29', '2028-03-01']);
  });

  it('is empty with nothing spent, the scale at least 1', () => {
    const usage = buildUsage([], '2026-11-24');
    expect(usage).toMatchObject({ total: 0, max: 1, families: [] });
  });

  it('names a bar by its date, total and parts', () => {
    const usage = buildUsage(rows, '2026-11-24');
    expect(dayLabel(usage.days[29])).toBe('Nov 24: 10 credits (Midjourney 8, Flux 2)');
    expect(dayLabel(usage.days[0])).toBe('Oct 26: 0 credits');
    expect(dayLabel({ ...usage.days[0], total: 1, byFamily: { ...usage.days[0].byFamily, audio: 1 } })).toBe('Oct 26: 1 credit (Audio 1)');
  });
});

describe('credit history rules', () => {
  it.each([
    ['plan', 'Plan credits'],
    ['topup', 'Top-up'],
    ['auto_topup', 'Auto top-up'],
    ['trial', 'Trial'],
    ['hold', 'Task hold'],
    ['refund', 'Refund'],
    ['adjustment', 'Adjustment'],
    ['future-kind', 'future-kind'],
  ])('labels %s as %s', (kind, label) => {
    expect(kindLabel(kind)).toBe(label);
  });

  it.each([
    [250, '+250'],
    [-4, '-4'],
    [12500, '+12,500'],
  ])('writes %d as %s', (delta, text) => {
    expect(formatDelta(delta)).toBe(text);
  });

  it('shows times in UTC', () => {
    expect(formatWhen('2026-11-24T07:05:09.123456+00:00')).toBe('2026-11-24 07:05:09 UTC');
  });

  it('asks for the rows after a cursor, microseconds quoted as sent', () => {
    expect(olderThan({ created_at: '2026-11-24T07:05:09.123456+00:00', id: 42 })).toBe('created_at.lt."2026-11-24T07:05:09.123456+00:00",id.lt.42');
  });
});

describe('the chart axis', () => {
  it.each([
    [1, [0, 1, 2, 3, 4]],
    [5, [0, 2, 4, 6, 8]],
    [8, [0, 2, 4, 6, 8]],
    [40, [0, 10, 20, 30, 40]],
    [41, [0, 20, 40, 60, 80]],
    [1234, [0, 500, 1000, 1500, 2000]],
  ])('gives round gridlines reaching %d: %j', (max, ticks) => {
    expect(axisTicks(max)).toEqual(ticks);
  });
});
