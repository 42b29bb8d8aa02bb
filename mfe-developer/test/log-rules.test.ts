import { describe, expect, it } from 'vitest';
import {
  exportFilters,
  formatCreatedAt,
  formatMovement,
  formatRefund,
  isTaskId,
  logSearch,
  pageCount,
  parseLogQuery,
  statusesOf,
  typesOf,
} from '../src/features/task-logs/log-rules.ts';

const q = (search: string) => parseLogQuery(new URLSearchParams(search));

describe('task log query in the URL', () => {
  it.each([
    ['', { status: 'all', type: 'all', taskId: '', page: 1, pageSize: 20, key: 'all' }],
    ['status=failed&type=flux&page=3&size=50', { status: 'failed', type: 'flux', taskId: '', page: 3, pageSize: 50, key: 'all' }],
    ['status=success&type=dalle&page=0&size=7', { status: 'all', type: 'all', taskId: '', page: 1, pageSize: 20, key: 'all' }],
    ['page=2.5&size=500&id=%20abc%20', { status: 'all', type: 'all', taskId: 'abc', page: 1, pageSize: 500, key: 'all' }],
    ['type=ai-photos&status=processing', { status: 'processing', type: 'ai-photos', taskId: '', page: 1, pageSize: 20, key: 'all' }],
  ])('%j reads as %j', (search, expected) => {
    expect(q(search)).toEqual(expected);
  });

  it.each(['', 'status=failed', 'type=midjourney&page=2', 'size=10', 'id=0b8e6f1c-1234-4abc-9def-000000000001&size=100'])(
    '%j survives a round trip and leaves defaults out',
    (search) => {
      expect(logSearch(q(search))).toBe(search);
    },
  );
});

describe('what a filter matches', () => {
  it.each([
    ['all', null],
    ['staged', ['staged']],
    ['pending', ['pending']],
    ['processing', ['processing']],
    ['finished', ['success', 'finished']],
    ['failed', ['failed']],
  ] as const)('status %s → %j', (filter, statuses) => {
    expect(statusesOf(filter)).toEqual(statuses);
  });

  it('midjourney covers its whole group, upscales and outpaints included', () => {
    const { types, prefixes } = typesOf('midjourney')!;
    expect(types).toEqual(expect.arrayContaining(['imagine', 'reroll', 'variation-3', 'upscale#2', 'upscale-4x', 'pan-left', 'seed', 'describe']));
    expect(types).not.toContain('flux-imagine');
    expect(prefixes).toEqual(['outpaint-']);
  });

  it.each([
    ['ai-photos', ['ai-photo-upload', 'ai-photo-train', 'ai-photo-generate']],
    ['flux', ['flux-imagine']],
    ['ideogram', ['ideogram-imagine', 'ideogram-remix', 'ideogram-upscale', 'ideogram-describe']],
    ['faceswap', ['faceswap']],
    ['kling', ['kling-video', 'kling-tryon']],
    ['suno', ['suno', 'suno-ext', 'suno-lyrics', 'suno-upload']],
  ] as const)('type %s → %j', (filter, types) => {
    expect(typesOf(filter)).toEqual({ types, prefixes: [] });
  });

  it('all matches every type', () => {
    expect(typesOf('all')).toBeNull();
  });
});

describe('how a row reads', () => {
  it.each([
    [0, ''],
    [null, ''],
    [undefined, ''],
    [4, '+4'],
    [12, '+12'],
  ])('refund %j → %j', (refund, text) => {
    expect(formatRefund(refund)).toBe(text);
  });

  it('shows Created At in UTC, or in the local time zone', () => {
    const iso = '2026-11-22T23:05:09.123Z';
    expect(formatCreatedAt(iso, true)).toBe('2026-11-22 23:05:09 UTC');
    const tz = process.env.TZ;
    process.env.TZ = 'Asia/Kolkata'; // UTC+05:30, the next day here
    try {
      expect(formatCreatedAt(iso, false)).toBe('2026-11-23 04:35:09');
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
    expect(formatCreatedAt('not a date', true)).toBe('not a date');
  });

  it.each([
    ['0b8e6f1c-1234-4abc-9def-000000000001', true],
    [' 0B8E6F1C-1234-4ABC-9DEF-000000000001 ', true],
    ['0b8e6f1c', false],
    ['0b8e6f1c-1234-4abc-9def-00000000000z', false],
  ])('%j is a task id: %s', (value, yes) => {
    expect(isTaskId(value)).toBe(yes);
  });

  it.each([
    [0, 20, 1],
    [20, 20, 1],
    [21, 20, 2],
    [501, 500, 2],
  ])('%i tasks at %i a page → %i pages', (total, size, pages) => {
    expect(pageCount(total, size)).toBe(pages);
  });
});

describe('the CSV export of a view', () => {
  it.each([
    [{}, {}],
    [{ status: 'finished' }, { statuses: ['success', 'finished'] }],
    [
      { status: 'failed', type: 'flux' },
      { statuses: ['failed'], types: ['flux-imagine'], prefixes: [] },
    ],
    [{ taskId: '0b8e0000-0000-4000-8000-000000000001' }, { task_id: '0b8e0000-0000-4000-8000-000000000001' }],
  ] as const)('sends the filters of %j as %j', (over, filters) => {
    expect(exportFilters({ ...parseLogQuery(new URLSearchParams()), ...over })).toEqual(filters);
  });

  it('sends the midjourney group with its open-ended outpaint prefix', () => {
    const f = exportFilters({ ...parseLogQuery(new URLSearchParams()), type: 'midjourney' });
    expect(f.types).toContain('upscale#2');
    expect(f.prefixes).toEqual(['outpaint-']);
  });
});

describe('a task’s credit movements', () => {
  it.each([
    [{ kind: 'hold', delta: -4, balance_after: 496 }, 'Held 4 credits · balance after 496'],
    [{ kind: 'refund', delta: 1, balance_after: 1500 }, 'Refunded 1 credit · balance after 1,500'],
  ])('reads %j as %s', (m, text) => {
    expect(formatMovement(m)).toBe(text);
  });
});
