// The Task Logs read through the real supabase-js client against the local Supabase services
// (PostgREST subset, row-level security) on PGlite: the filters the page offers become the
// query it claims to be. (The services themselves are tested on PGlite and PostgreSQL in the
// supabase package.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClient, type RunningLocalSupabase, signInWithMagicLink, startLocalSupabase } from '@aim/supabase/testing';
import { createApiClient, createTypedApi } from '@aim/shared-kit/api';
import { createTaskLogsGateway } from '../src/features/task-logs/gateway.ts';
import { type LogQuery, parseLogQuery } from '../src/features/task-logs/log-rules.ts';

const query = (over: Partial<LogQuery> = {}): LogQuery => ({ ...parseLogQuery(new URLSearchParams()), ...over });

describe('the Task Logs query against the local Supabase services', () => {
  let sb: RunningLocalSupabase;
  let alice: ReturnType<typeof makeClient>;
  let email: string;
  let bobEmail: string;
  /** Alice's tasks by type, newest first. */
  const ids: Record<string, string> = {};
  const order: string[] = [];

  beforeAll(async () => {
    sb = await startLocalSupabase('pglite', { captcha: { enabled: true, hmacKey: 'task-logs', maxNumber: 2000, expiresInSeconds: 60 } });
    alice = makeClient(sb.url, sb.config.anonKey);
    const bob = makeClient(sb.url, sb.config.anonKey);
    const stamp = Date.now();
    email = `alice-${stamp}@example.com`;
    bobEmail = `bob-${stamp}@example.com`;
    const a = (await signInWithMagicLink(alice, sb.url, email))!;
    const b = (await signInWithMagicLink(bob, sb.url, bobEmail))!;
    // oldest first: imagine … outpaint-1.5x is the newest; imagine and upscale#2 as the API wrote
    // them before it said finished
    const mine: [string, string, number][] = [
      ['imagine', 'success', 0],
      ['upscale#2', 'success', 0],
      ['flux-imagine', 'finished', 0],
      ['variation-3', 'failed', 4],
      ['ai-photo-train', 'processing', 0],
      ['pan-left', 'pending', 0],
      ['outpaint-1.5x', 'staged', 0],
    ];
    for (const [i, [type, status, refund]] of mine.entries()) {
      const { rows } = await sb.db.query<{ id: string }>(
        `insert into public.tasks (user_id, email, type, status, percentage, refund, result, created_at)
         values ($1, $2, $3, $4, $5, $6, $7, now() - make_interval(mins => $8)) returning id`,
        [a.user.id, email, type, status, status === 'failed' ? 40 : 100, refund, JSON.stringify({ n: i }), 100 - i],
      );
      ids[type] = rows[0].id;
      order.unshift(rows[0].id);
    }
    await sb.db.query(`insert into public.tasks (user_id, email, type, status) values ($1, $2, 'imagine', 'success')`, [b.user.id, bobEmail]);
  });
  afterAll(async () => {
    await sb?.stop();
  });

  // the list and the movements read through supabase-js only; the CSV export's API call is tested in the server
  const api = createTypedApi(createApiClient({ baseUrl: 'http://127.0.0.1:9', getApiKey: () => null }));
  const list = (q: Partial<LogQuery>, who = email) => createTaskLogsGateway(alice, api).list(who, query(q));

  it('reads a task’s own credit movements, hold then refund, with the balance each left; none of another user’s', async () => {
    const task = ids['variation-3'];
    const { rows } = await sb.db.query<{ user_id: string }>('select user_id from public.tasks where id = $1', [task]);
    await sb.db.query(`select public.apply_credit($1, 10, $2, 'test grant')`, [rows[0].user_id, `grant:${task}`]);
    await sb.db.query(`select public.apply_credit($1, -4, $2, 'hold variation-3', $3)`, [rows[0].user_id, `hold:${task}`, task]);
    await sb.db.query(`select public.apply_credit($1, 4, $2, 'refund variation-3', $3)`, [rows[0].user_id, `refund:${task}`, task]);
    const movements = await createTaskLogsGateway(alice, api).movements(task);
    expect(movements.map((m) => [m.kind, m.delta, m.balance_after])).toEqual([
      ['hold', -4, 6],
      ['refund', 4, 10],
    ]);
    const outsider = makeClient(sb.url, sb.config.anonKey);
    await signInWithMagicLink(outsider, sb.url, `carol-${Date.now()}@example.com`);
    expect(await createTaskLogsGateway(outsider, api).movements(task)).toEqual([]);
  });

  it('reads the caller’s tasks newest first with the columns of the log and the total', async () => {
    const page = await list({});
    expect(page.total).toBe(7);
    expect(page.rows.map((r) => r.id)).toEqual(order);
    expect(page.rows[3]).toEqual({
      id: ids['variation-3'],
      type: 'variation-3',
      status: 'failed',
      percentage: 40,
      refund: 4,
      result: { n: 3 },
      created_at: expect.any(String),
      api_key_id: null,
    });
  });

  it('filters by the API key that made the task: a named key, or the primary key (api_key_id null)', async () => {
    const { rows: owner } = await sb.db.query<{ user_id: string }>('select user_id from public.tasks where id = $1', [ids['flux-imagine']]);
    const { rows: key } = await sb.db.query<{ id: string }>(
      `insert into public.api_keys (user_id, name, key_hash, prefix, last4, scopes)
       values ($1, 'CI', sha256('ak_test'::bytea), 'ak_test0', 'abcd', array['generate']) returning id`,
      [owner[0].user_id],
    );
    const keyId = key[0].id;
    try {
      await sb.db.query('update public.tasks set api_key_id = $1 where id = any($2::uuid[])', [keyId, [ids['flux-imagine'], ids['pan-left']]]);
      const byKey = await list({ key: keyId });
      expect(byKey.total).toBe(2);
      expect(byKey.rows.map((r) => [r.type, r.api_key_id])).toEqual([
        ['pan-left', keyId],
        ['flux-imagine', keyId],
      ]);
      expect((await list({ key: 'primary' })).total).toBe(5);
      expect((await list({ key: 'primary', type: 'flux' })).total).toBe(0);
      expect((await list({ key: 'all' })).total).toBe(7);
    } finally {
      await sb.db.query('update public.tasks set api_key_id = null where api_key_id = $1', [keyId]);
    }
  });

  it('shows rows written as success (before v1 compatibility) as finished, like the filter names them', async () => {
    const page = await list({ status: 'finished' });
    expect(page.rows.map((r) => [r.type, r.status])).toEqual([
      ['flux-imagine', 'finished'],
      ['upscale#2', 'finished'],
      ['imagine', 'finished'],
    ]);
  });

  it.each([
    [{ status: 'failed' }, ['variation-3']],
    [{ status: 'finished' }, ['flux-imagine', 'upscale#2', 'imagine']],
    [{ status: 'staged' }, ['outpaint-1.5x']],
    [{ type: 'midjourney' }, ['outpaint-1.5x', 'pan-left', 'variation-3', 'upscale#2', 'imagine']],
    [{ type: 'ai-photos' }, ['ai-photo-train']],
    [{ type: 'flux' }, ['flux-imagine']],
    [{ type: 'suno' }, []],
    [{ type: 'midjourney', status: 'finished' }, ['upscale#2', 'imagine']],
  ] as [Partial<LogQuery>, string[]][])('filters %j', async (filter, types) => {
    const page = await list(filter);
    expect(page.rows.map((r) => r.type)).toEqual(types);
    expect(page.total).toBe(types.length);
  });

  it('pages with the total of all pages; a page past the end is empty, with the total', async () => {
    const { rows } = await sb.db.query<{ user_id: string }>('select user_id from public.tasks where email = $1 limit 1', [email]);
    for (let i = 0; i < 6; i++) {
      await sb.db.query(`insert into public.tasks (user_id, email, type, status, created_at) values ($1, $2, 'seed', 'success', now() - interval '1 day')`, [
        rows[0].user_id,
        email,
      ]);
    }
    const first = await list({ pageSize: 10 });
    expect(first.total).toBe(13);
    expect(first.rows.map((r) => r.id).slice(0, 7)).toEqual(order);
    const second = await list({ pageSize: 10, page: 2 });
    expect(second).toMatchObject({ total: 13 });
    expect(second.rows.map((r) => r.type)).toEqual(['seed', 'seed', 'seed']);
    expect(await list({ pageSize: 10, page: 3 })).toEqual({ rows: [], total: 13 });
  });

  it('finds one task by id, and never another user’s', async () => {
    expect((await list({ taskId: ids['flux-imagine'] })).rows.map((r) => r.type)).toEqual(['flux-imagine']);
    const { rows } = await sb.db.query<{ id: string }>('select id from public.tasks where email = $1', [bobEmail]);
    expect(await list({ taskId: rows[0].id })).toEqual({ rows: [], total: 0 });
    expect(await list({}, bobEmail)).toEqual({ rows: [], total: 0 });
  });
});
