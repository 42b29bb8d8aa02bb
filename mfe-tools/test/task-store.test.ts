// The task source every screen reads rows through: a row the API wrote as `success` (before it
// said finished) reaches the screens as `finished`, whether read or pushed by realtime.
import { describe, expect, it, vi } from 'vitest';
import { createTaskSource } from '../src/features/tasks/task-store.ts';

type Row = { id: string; status: string; percentage: number };

/** Just what createTaskSource calls of supabase-js: one table read and one realtime channel. */
function fakeSupabase(rows: Record<'tasks' | 'tasks_archive_1', Row[]>) {
  let push: ((payload: { new: Row }) => void) | undefined;
  const channel = {
    on: (_kind: string, _filter: unknown, listener: (payload: { new: Row }) => void) => {
      push = listener;
      return channel;
    },
    subscribe: (onStatus: (status: string) => void) => {
      onStatus('SUBSCRIBED');
      return channel;
    },
  };
  const client = {
    from: (table: 'tasks' | 'tasks_archive_1') => ({
      select: () => ({
        eq: (_column: string, id: string) => ({
          single: async () => {
            const row = rows[table].find((r) => r.id === id);
            return row ? { data: row, error: null } : { data: null, error: { code: 'PGRST116', message: 'no rows' } };
          },
        }),
      }),
    }),
    channel: () => channel,
    removeChannel: vi.fn(),
  };
  return { client: client as never, push: (row: Row) => push?.({ new: row }) };
}

describe('createTaskSource', () => {
  it.each([
    ['success', 'finished'],
    ['finished', 'finished'],
    ['running', 'running'],
    ['failed', 'failed'],
  ])('reads a live row that says %s as %s', async (stored, shown) => {
    const { client } = fakeSupabase({ tasks: [{ id: 't1', status: stored, percentage: 100 }], tasks_archive_1: [] });
    expect(await createTaskSource<Row>(client, 'test').readTask('t1')).toEqual({ task: { id: 't1', status: shown, percentage: 100 }, archived: false });
  });

  it('reads an archived success row as finished', async () => {
    const { client } = fakeSupabase({ tasks: [], tasks_archive_1: [{ id: 'old', status: 'success', percentage: 100 }] });
    expect(await createTaskSource<Row>(client, 'test').readTask('old')).toEqual({ task: { id: 'old', status: 'finished', percentage: 100 }, archived: true });
  });

  it('passes realtime updates on with success read as finished', () => {
    const { client, push } = fakeSupabase({ tasks: [], tasks_archive_1: [] });
    const seen: Row[] = [];
    const onLive = vi.fn();
    createTaskSource<Row>(client, 'test').watchTask('t1', (row) => seen.push(row), onLive);
    expect(onLive).toHaveBeenCalledOnce();
    push({ id: 't1', status: 'running', percentage: 50 });
    push({ id: 't1', status: 'success', percentage: 100 });
    expect(seen).toEqual([
      { id: 't1', status: 'running', percentage: 50 },
      { id: 't1', status: 'finished', percentage: 100 },
    ]);
  });
});
