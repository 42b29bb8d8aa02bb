import { describe, expect, it } from 'vitest';
import {
  actionLabel,
  buildLineage,
  LINEAGE_LIMITS,
  type LineageNode,
  type LineageRow,
  lineageSize,
  lineageState,
  lineageThumbnail,
} from '../src/features/midjourney/lineage.ts';
import { createLineageReader } from '../src/features/midjourney/lineage-source.ts';

let clock = 0;
function row(id: string, type: string, parent: string | null, over: Partial<LineageRow> = {}): LineageRow {
  clock += 1;
  return {
    id,
    type,
    status: 'finished',
    parent_id: parent,
    image_url: `http://x/${id}.png`,
    image_urls: null,
    created_at: `2026-11-24T00:00:${String(clock).padStart(2, '0')}.000Z`,
    archived: false,
    ...over,
  };
}

/** The tree as nested [id, children] pairs, easy to compare. */
const shape = (node: LineageNode): unknown => (node.children.length ? [node.row.id, node.children.map(shape)] : node.row.id);

describe('buildLineage', () => {
  const family = [
    row('grid', 'imagine', null),
    row('up2', 'upscale#2', 'grid'),
    row('var3', 'variation-3', 'grid', { archived: true }),
    row('pan', 'pan-left', 'up2'),
    row('seed', 'seed', 'grid', { image_url: null }),
    row('zoom', 'outpaint-2x', 'up2'),
  ];

  it('roots the tree at the oldest ancestor, from whichever member is current, children oldest first', () => {
    for (const current of ['grid', 'up2', 'pan', 'var3']) {
      expect(shape(buildLineage(family, current)!), current).toEqual(['grid', [['up2', ['pan', 'zoom']], 'var3']]);
    }
    // the rows may come in any order
    expect(shape(buildLineage([...family].reverse(), 'zoom')!)).toEqual(['grid', [['up2', ['pan', 'zoom']], 'var3']]);
    expect(lineageSize(buildLineage(family, 'grid')!)).toBe(5);
  });

  it('leaves out tasks without pictures (a seed) unless one is the task on screen', () => {
    expect(JSON.stringify(shape(buildLineage(family, 'grid')!))).not.toContain('seed');
    expect(shape(buildLineage(family, 'seed')!)).toEqual(['grid', [['up2', ['pan', 'zoom']], 'var3', 'seed']]);
  });

  it('roots at the oldest ancestor read when the chain is cut (a parent not readable), and survives a cycle', () => {
    const orphan = [row('a', 'upscale#1', 'missing'), row('b', 'pan-up', 'a')];
    expect(shape(buildLineage(orphan, 'b')!)).toEqual(['a', ['b']]);
    const cycle = [row('x', 'reroll', 'y'), row('y', 'reroll', 'x')];
    expect(lineageSize(buildLineage(cycle, 'x')!)).toBe(2);
    expect(buildLineage(family, 'unknown')).toBeNull();
  });
});

describe('what a node shows', () => {
  it.each([
    ['imagine', 'Imagine'],
    ['reroll', 'Reroll'],
    ['upscale#2', 'Upscale 2'],
    ['upscale-subtle', 'Upscale (Subtle)'],
    ['upscale-4x', 'Upscale 4x'],
    ['variation-3', 'Variation 3'],
    ['variation-strong', 'Vary (Strong)'],
    ['pan-left', 'Pan left'],
    ['outpaint-2x', 'Zoom Out 2x'],
    ['outpaint-1.5x', 'Zoom Out 1.5x'],
    ['outpaint-custom', 'Custom Zoom'],
    ['inpaint', 'Vary (Region)'],
    ['blend', 'Blend'],
    ['something-new', 'something-new'],
  ])('%s is labelled %s', (type, label) => {
    expect(actionLabel(type)).toBe(label);
  });

  it('a thumbnail only for a finished task: its composed picture, else its first cell', () => {
    expect(lineageThumbnail({ status: 'finished', image_url: 'http://x/g.png', image_urls: ['http://x/1.png'] })).toBe('http://x/g.png');
    expect(lineageThumbnail({ status: 'finished', image_url: null, image_urls: ['', 'http://x/2.png'] })).toBe('http://x/2.png');
    expect(lineageThumbnail({ status: 'running', image_url: 'http://x/partial.png', image_urls: null })).toBeNull();
    expect(lineageThumbnail({ status: 'failed', image_url: null, image_urls: null })).toBeNull();
  });

  it.each([
    ['pending', false, 'pending'],
    ['queued', false, 'pending'],
    ['staged', false, 'pending'],
    ['running', false, 'running'],
    ['processing', false, 'running'],
    ['failed', false, 'failed'],
    ['finished', false, null],
    ['finished', true, 'archived'],
  ])('a %s task (archived: %s) says %s', (status, archived, state) => {
    expect(lineageState({ status, archived })).toBe(state);
  });
});

type Query = { table: string; column: string; values: string[] };

/** A supabase-js stand-in: `from(t).select(c).in(col, values).order(..).limit(n)` over in-memory tables, every query recorded. */
function fakeSupabase(tables: Record<string, Omit<LineageRow, 'archived'>[]>, fail?: string) {
  const queries: Query[] = [];
  const client = {
    from: (table: string) => ({
      select: () => ({
        in: (column: 'id' | 'parent_id', values: string[]) => ({
          order: () => ({
            limit: async (n: number) => {
              queries.push({ table, column, values });
              if (fail === table) return { data: null, error: { message: 'permission denied' } };
              const data = (tables[table] ?? []).filter((r) => values.includes(r[column] as string)).slice(0, n);
              return { data, error: null };
            },
          }),
        }),
      }),
    }),
  };
  return { client: client as unknown as Parameters<typeof createLineageReader>[0], queries };
}

describe('createLineageReader', () => {
  const strip = ({ archived: _archived, ...rest }: LineageRow) => rest;

  it('walks up to the first task, then down level by level, reading live and archived rows (success read as finished)', async () => {
    const grid = strip(row('grid', 'imagine', null, { status: 'success' }));
    const up = strip(row('up', 'upscale#1', 'grid'));
    const archivedVar = strip(row('var', 'variation-1', 'grid'));
    const pan = strip(row('pan', 'pan-up', 'up'));
    const zoom = strip(row('zoom', 'outpaint-2x', 'up'));
    const { client, queries } = fakeSupabase({ tasks: [grid, up, pan, zoom], tasks_archive_1: [archivedVar, { ...up, status: 'finished' }] });
    const rows = await createLineageReader(client)('pan');
    expect(rows.map((r) => [r.id, r.archived, r.status])).toEqual([
      ['pan', false, 'finished'],
      ['up', false, 'finished'],
      ['grid', false, 'finished'],
      ['var', true, 'finished'],
      // a sibling of the task on screen: found going down again from its parent
      ['zoom', false, 'finished'],
    ]);
    // up: pan, up, grid (each in both tables); down: grid's children, then theirs, then pan's (none)
    expect(queries.filter((q) => q.table === 'tasks').map((q) => `${q.column}:${q.values.join('+')}`)).toEqual([
      'id:pan',
      'id:up',
      'id:grid',
      'parent_id:grid',
      'parent_id:up+var',
      'parent_id:pan+zoom',
    ]);
    expect(queries.filter((q) => q.table === 'tasks_archive_1')).toHaveLength(6);
  });

  it('answers nothing for a task it cannot read, stops at the limits, and throws when a read fails', async () => {
    expect(await createLineageReader(fakeSupabase({ tasks: [] }).client)('nope')).toEqual([]);
    const many = Array.from({ length: 100 }, (_, i) => strip(row(`c${i}`, 'reroll', 'root')));
    const { client } = fakeSupabase({ tasks: [strip(row('root', 'imagine', null)), ...many] });
    expect(await createLineageReader(client)('root')).toHaveLength(LINEAGE_LIMITS.tasks);
    await expect(createLineageReader(fakeSupabase({ tasks: [] }, 'tasks_archive_1').client)('x')).rejects.toThrow('permission denied');
  });
});
