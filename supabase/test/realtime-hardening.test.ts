import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type RealtimeChannel, type SupabaseClient } from '@supabase/supabase-js';
import { defaultLocalConfig } from '../src/config.ts';
import { signJwt } from '../src/keys.ts';
import { filterProbe } from '../src/realtime/filters.ts';
import { DEFAULT_REALTIME_LIMITS, realtimeLimits } from '../src/realtime/limits.ts';
import { startLocalSupabase, testDatabaseKinds, type RunningLocalSupabase } from './support/index.ts';

const A = 'aaaaaaaa-1111-4111-8111-111111111111';
const B = 'bbbbbbbb-2222-4222-8222-222222222222';
const EVIL = '^(([a-z ])+)+[0-9]$';

// biome-ignore lint/suspicious/noExplicitAny: rows are read field by field in assertions
type Row = Record<string, any>;

async function waitFor<T>(probe: () => T | undefined | false, what: string, ms = 4000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The first subscribe status other than SUBSCRIBED-pending: SUBSCRIBED, or CHANNEL_ERROR with its message. */
function subscribeOutcome(channel: RealtimeChannel) {
  return new Promise<{ status: string; message?: string }>((resolve) => {
    channel.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') resolve({ status });
      else if (status !== 'CLOSED') resolve({ status, message: err?.message });
    });
  });
}

async function subscribed(channel: RealtimeChannel) {
  const r = await subscribeOutcome(channel);
  if (r.status !== 'SUBSCRIBED') throw new Error(`${r.status}: ${r.message}`);
}

describe('realtime limits config', () => {
  it('defaults to 100 channels per connection and 20 connections per user, and reads config.realtime', () => {
    expect(DEFAULT_REALTIME_LIMITS).toEqual({ maxChannelsPerClient: 100, maxConnectionsPerUser: 20 });
    expect(realtimeLimits(defaultLocalConfig({ publicUrl: 'http://127.0.0.1:1' }))).toEqual(DEFAULT_REALTIME_LIMITS);
    expect(realtimeLimits(defaultLocalConfig({ publicUrl: 'http://127.0.0.1:1', realtime: { maxChannelsPerClient: 5 } }))).toEqual({
      maxChannelsPerClient: 5,
      maxConnectionsPerUser: 20,
    });
    // nonsense falls back to the default rather than disabling the cap
    expect(realtimeLimits(defaultLocalConfig({ publicUrl: 'http://127.0.0.1:1', realtime: { maxConnectionsPerUser: 0, maxChannelsPerClient: 1.5 } }))).toEqual(
      DEFAULT_REALTIME_LIMITS,
    );
  });
});

describe.each(testDatabaseKinds())('realtime hardening (filter grammar, visibility first, caps) on %s', (kind) => {
  let running: RunningLocalSupabase;
  const clients: SupabaseClient[] = [];

  beforeAll(async () => {
    running = await startLocalSupabase(kind, { realtime: { maxChannelsPerClient: 3, maxConnectionsPerUser: 2 } });
    await running.db.query(
      `insert into auth.users (id, email, aud, role) values
         ($1, 'a@example.com', 'authenticated', 'authenticated'), ($2, 'b@example.com', 'authenticated', 'authenticated')`,
      [A, B],
    );
  });
  afterEach(async () => {
    filterProbe.onEvaluate = undefined;
    for (const c of clients.splice(0)) {
      await c.removeAllChannels();
      c.realtime.disconnect();
    }
    // let the server see the sockets go before the next test counts connections
    await sleep(100);
  });
  afterAll(async () => {
    await running?.stop();
  });

  const userJwt = (sub: string) =>
    signJwt(
      {
        sub,
        role: 'authenticated',
        aud: 'authenticated',
        email: sub === A ? 'a@example.com' : 'b@example.com',
        session_id: randomUUID(),
        exp: Math.floor(Date.now() / 1000) + 3600,
      },
      running.config.jwtSecret,
    );

  async function userClient(sub: string) {
    const token = await userJwt(sub);
    const c = createClient(running.url, running.config.anonKey, { accessToken: async () => token, realtime: { transport: WebSocket as never } });
    clients.push(c);
    await c.realtime.setAuth();
    return c;
  }

  /** A client holding nothing but the public anon key. */
  function anonClient() {
    const c = createClient(running.url, running.config.anonKey, {
      auth: { persistSession: false, autoRefreshToken: false },
      realtime: { transport: WebSocket as never },
    });
    clients.push(c);
    return c;
  }

  async function insertTask(userId: string, prompt = 'a cat') {
    const { rows } = await running.db.query<{ id: string }>(
      `insert into public.tasks (user_id, email, type, prompt) values ($1, $2, 'imagine', $3) returning id`,
      [userId, userId === A ? 'a@example.com' : 'b@example.com', prompt],
    );
    return rows[0].id;
  }

  /** A channel with one postgres_changes binding on tasks and a system listener. */
  function tasksChannel(c: SupabaseClient, name: string, filter: string, events: Row[], system: Row[], event: '*' | 'INSERT' | 'UPDATE' | 'DELETE' = '*') {
    return c
      .channel(name)
      .on('postgres_changes' as never, { event, schema: 'public', table: 'tasks', filter } as never, (p: Row) => events.push(p))
      .on('system', {}, (m: Row) => system.push(m));
  }

  it('refuses the catastrophic-backtracking `match` filter at subscribe, and the process keeps answering', async () => {
    const anon = anonClient();
    const system: Row[] = [];
    const events: Row[] = [];
    const channel = tasksChannel(anon, 'redos', `prompt=match.${EVIL}`, events, system, 'UPDATE');
    await subscribed(channel);
    const [err] = await waitFor(() => system.length > 0 && system, 'the refusal');
    expect(err).toEqual({
      extension: 'postgres_changes',
      status: 'error',
      message: `{:error, ${JSON.stringify(`Error parsing \`filter\` params: ${JSON.stringify(['match', EVIL]).replace(/","/g, '", "')}`)}}`,
      channel: 'redos',
    });

    // a task's progress write with the prompt that would backtrack for minutes
    const task = await insertTask(A, `${'a'.repeat(40)}!`);
    await running.db.query(`update public.tasks set status = 'running', percentage = 30 where id = $1`, [task]);
    const bearer = await userJwt(A);
    const started = performance.now();
    const res = await fetch(`${running.url}/rest/v1/tasks?select=id&id=eq.${task}`, {
      headers: { apikey: running.config.anonKey, authorization: `Bearer ${bearer}` },
    });
    const elapsed = performance.now() - started;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([{ id: task }]);
    // with the regex run on the write, this request waited for minutes
    expect(elapsed).toBeLessThan(1000);
    await sleep(100);
    expect(events).toEqual([]);
  });

  it.each([
    ['match', `prompt=match.${EVIL}`, ['match', EVIL]],
    ['imatch', 'prompt=imatch.^a', ['imatch', '^a']],
    ['like', 'prompt=like.a%', ['like', 'a%']],
    ['ilike', 'prompt=ilike.A%', ['ilike', 'A%']],
    ['is', 'prompt=is.null', ['is', 'null']],
    ['isdistinct', 'prompt=isdistinct.x', ['isdistinct', 'x']],
    ['an unknown operator', 'prompt=foo.x', ['foo', 'x']],
    ['a negation', 'percentage=not.eq.1', ['not', 'eq.1']],
    ['a missing operator', 'percentage', ['percentage']],
  ])('refuses %s with Realtime’s parse error, through supabase-js', async (_name, filter, parts) => {
    const a = await userClient(A);
    const system: Row[] = [];
    const events: Row[] = [];
    await subscribed(tasksChannel(a, `refused-${randomUUID()}`, filter, events, system));
    const [err] = await waitFor(() => system.length > 0 && system, 'the refusal');
    expect(err.status).toBe('error');
    const inspected = `[${(parts as string[]).map((p) => JSON.stringify(p)).join(', ')}]`;
    expect(err.message).toBe(`{:error, ${JSON.stringify(`Error parsing \`filter\` params: ${inspected}`)}}`);
    await insertTask(A, 'a');
    await sleep(150);
    expect(events).toEqual([]);
  });

  it('refuses an `in` list over 100 values and a column the role may not select', async () => {
    const a = await userClient(A);
    const system: Row[] = [];
    const many = `status=in.(${Array.from({ length: 101 }, (_, i) => `s${i}`).join(',')})`;
    await subscribed(tasksChannel(a, 'in-cap', many, [], system));
    const [err] = await waitFor(() => system.length > 0 && system, 'the in-list refusal');
    expect(err.status).toBe('error');
    expect(err.message).toContain('Unable to subscribe to changes with given parameters');
    expect(err.message).toContain('too many values for `in` filter. Maximum 100');

    const hundred = `status=in.(running,${Array.from({ length: 99 }, (_, i) => `s${i}`).join(',')})`;
    const okSystem: Row[] = [];
    await subscribed(tasksChannel(a, 'in-100', hundred, [], okSystem));
    await waitFor(() => okSystem.length > 0, 'the 100-value subscription');
    expect(okSystem[0]).toMatchObject({ status: 'ok', message: 'Subscribed to PostgreSQL' });

    const noColumn: Row[] = [];
    await subscribed(tasksChannel(a, 'no-column', 'no_such_column=eq.1', [], noColumn));
    await waitFor(() => noColumn.length > 0, 'the column refusal');
    expect(noColumn[0].message).toContain('invalid column for filter no_such_column');
  });

  it('delivers with each allowed operator (eq, neq, lt, lte, gt, gte, in) through supabase-js', async () => {
    const a = await userClient(A);
    const task = await insertTask(A);
    const other = await insertTask(A);
    const filters: Record<string, string> = {
      eq: `id=eq.${task}`,
      eqNo: `id=eq.${other}`,
      neq: 'status=neq.pending',
      neqNo: 'status=neq.running',
      lt: 'percentage=lt.41',
      ltNo: 'percentage=lt.40',
      lte: 'percentage=lte.40',
      lteNo: 'percentage=lte.39',
      gt: 'percentage=gt.39',
      gtNo: 'percentage=gt.40',
      gte: 'percentage=gte.40',
      gteNo: 'percentage=gte.41',
      in: 'status=in.(queued,running)',
      inNo: 'status=in.(failed,success)',
      and: `id=eq.${task},percentage=gte.40,status=in.(running)`,
      andNo: `id=eq.${task},percentage=gte.40,status=in.(failed)`,
    };
    const got: Record<string, Row[]> = Object.fromEntries(Object.keys(filters).map((k) => [k, []]));
    // a channel holds at most 3 joins here (maxChannelsPerClient: 3): one channel, many bindings
    const system: Row[] = [];
    let channel = a.channel('ops').on('system', {}, (m: Row) => system.push(m));
    for (const [k, filter] of Object.entries(filters)) {
      channel = channel.on('postgres_changes' as never, { event: 'UPDATE', schema: 'public', table: 'tasks', filter } as never, (p: Row) => got[k].push(p));
    }
    await subscribed(channel);
    await waitFor(() => system.length > 0, 'the subscription');
    expect(system[0]).toMatchObject({ status: 'ok' });

    await running.db.query(`update public.tasks set status = 'running', percentage = 40 where id = $1`, [task]);
    await waitFor(() => got.eq.length === 1 && got.and.length === 1, 'the update');
    await sleep(150);
    for (const k of Object.keys(filters)) {
      expect([k, got[k].length]).toEqual([k, k.endsWith('No') ? 0 : 1]);
    }
    expect(got.in[0].new).toMatchObject({ id: task, status: 'running', percentage: 40 });
  });

  it("never evaluates a filter on another tenant's row (visibility first)", async () => {
    const seen: { column: string; row: Row }[] = [];
    filterProbe.onEvaluate = (column, row) => void seen.push({ column, row: { ...row } });
    const b = await userClient(B);
    const anon = anonClient();
    const bEvents: Row[] = [];
    const anonEvents: Row[] = [];
    // B and an anon-key client try to watch A's tasks by filter
    await subscribed(tasksChannel(b, 'spy-b', `user_id=eq.${A}`, bEvents, []));
    await subscribed(tasksChannel(anon, 'spy-anon', 'percentage=gte.0', anonEvents, []));
    await sleep(100);

    const aTask = await insertTask(A, 'secret prompt');
    await running.db.query(`update public.tasks set percentage = 50, status = 'running' where id = $1`, [aTask]);
    await running.db.query(`delete from public.tasks where id = $1`, [aTask]);
    // B's own row comes later in commit order: once its filter ran, A's changes have been dispatched
    const bTask = await insertTask(B, 'mine');
    await waitFor(() => seen.some((s) => s.row.id === bTask), "the filter run on B's own row");
    await sleep(100);

    expect(seen.filter((s) => s.row.user_id === A || s.row.prompt === 'secret prompt')).toEqual([]);
    // the DELETE (not RLS-checked, as in Realtime) reaches the filter only as what B is sent: the key
    const onDelete = seen.filter((s) => s.row.id === aTask);
    for (const s of onDelete) expect(Object.keys(s.row).filter((k) => k !== 'id')).toEqual([]);
    expect(bEvents.filter((e) => e.new?.user_id === A || e.old?.user_id === A)).toEqual([]);
    expect(anonEvents.filter((e) => e.eventType !== 'DELETE')).toEqual([]);
  });

  it('caps channels per connection: the next join is refused with ChannelRateLimitReached', async () => {
    const a = await userClient(A);
    for (let i = 0; i < 3; i++) await subscribed(tasksChannel(a, `cap-${i}`, `user_id=eq.${A}`, [], []));
    const fourth = tasksChannel(a, 'cap-3', `user_id=eq.${A}`, [], []);
    expect(await subscribeOutcome(fourth)).toEqual({ status: 'CHANNEL_ERROR', message: 'ChannelRateLimitReached: Too many channels' });
    await a.removeChannel(fourth);

    // leaving one makes room again
    await a.removeChannel(a.getChannels().find((ch) => ch.topic === 'realtime:cap-0')!);
    await subscribed(tasksChannel(a, 'cap-4', `user_id=eq.${A}`, [], []));
  });

  it('caps concurrent connections per user: the next socket is refused with ConnectionRateLimitReached', async () => {
    const first = await userClient(A);
    const second = await userClient(A);
    await subscribed(tasksChannel(first, 'conn-1', `user_id=eq.${A}`, [], []));
    await subscribed(tasksChannel(second, 'conn-2', `user_id=eq.${A}`, [], []));
    // more channels on a counted socket are fine
    await subscribed(tasksChannel(second, 'conn-2b', `user_id=eq.${A}`, [], []));

    const third = await userClient(A);
    const refused = tasksChannel(third, 'conn-3', `user_id=eq.${A}`, [], []);
    expect(await subscribeOutcome(refused)).toEqual({ status: 'CHANNEL_ERROR', message: 'ConnectionRateLimitReached: Too many connected users' });
    await third.removeChannel(refused);
    third.realtime.disconnect();

    // another user is not affected
    const b = await userClient(B);
    await subscribed(tasksChannel(b, 'conn-b', `user_id=eq.${B}`, [], []));

    // a closed socket frees its place
    await first.removeAllChannels();
    first.realtime.disconnect();
    await sleep(200);
    const fourth = await userClient(A);
    await subscribed(tasksChannel(fourth, 'conn-4', `user_id=eq.${A}`, [], []));
  });
});
