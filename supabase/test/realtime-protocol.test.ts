import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../src/db/index.ts';
import { PUBLISHABLE_KEY } from '../src/gateway.ts';
import { signJwt } from '../src/keys.ts';
import { startLocalSupabase, testDatabaseKinds, type RunningLocalSupabase } from './support/index.ts';

const A = 'aaaaaaaa-1111-4111-8111-111111111111';
const B = 'bbbbbbbb-2222-4222-8222-222222222222';

// biome-ignore lint/suspicious/noExplicitAny: frames are read field by field in assertions
type Frame = [string | null, string | null, string, string, Record<string, any>];

async function waitFor<T>(probe: () => T | undefined | false, what: string, ms = 4000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A bare Phoenix client speaking vsn 2.0.0 (or 1.0.0) frames, recording everything received. */
class RawSocket {
  readonly frames: unknown[] = [];
  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (d) => this.frames.push(JSON.parse(d.toString())));
  }

  static open(url: string) {
    return new Promise<RawSocket>((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.once('open', () => resolve(new RawSocket(ws)));
      ws.once('error', reject);
    });
  }

  send(frame: unknown) {
    this.ws.send(JSON.stringify(frame));
  }

  /** The first received v2 frame matching the predicate. */
  next(match: (f: Frame) => boolean, what: string, ms?: number) {
    return waitFor(() => (this.frames as Frame[]).find((f) => Array.isArray(f) && match(f)), what, ms);
  }

  all(match: (f: Frame) => boolean) {
    return (this.frames as Frame[]).filter((f) => Array.isArray(f) && match(f));
  }

  close() {
    this.ws.terminate();
  }
}

function refusal(url: string) {
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on('open', () => reject(new Error('the upgrade was accepted')));
    ws.on('error', () => {});
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) }));
    });
  });
}

describe.each(testDatabaseKinds())('realtime wire protocol on %s', (kind) => {
  let running: RunningLocalSupabase;
  let wsBase: string;
  const sockets: RawSocket[] = [];
  let nextRef = 1;
  const ref = () => String(nextRef++);

  beforeAll(async () => {
    running = await startLocalSupabase(kind);
    wsBase = `${running.url.replace(/^http/, 'ws')}/realtime/v1/websocket`;
    await running.db.query(`insert into auth.users (id, email) values ($1, 'a@example.com'), ($2, 'b@example.com')`, [A, B]);
  });
  afterEach(() => {
    for (const s of sockets.splice(0)) s.close();
  });
  afterAll(async () => {
    await running?.stop();
  });

  const jwt = (claims: Record<string, unknown>, secret = running.config.jwtSecret) =>
    signJwt({ aud: 'authenticated', role: 'authenticated', session_id: randomUUID(), exp: Math.floor(Date.now() / 1000) + 3600, ...claims }, secret);

  async function open(query = `apikey=${running.config.anonKey}&vsn=2.0.0`) {
    const s = await RawSocket.open(`${wsBase}?${query}`);
    sockets.push(s);
    return s;
  }

  async function join(s: RawSocket, topic: string, postgresChanges: unknown[], accessToken?: string) {
    const joinRef = ref();
    s.send([joinRef, joinRef, topic, 'phx_join', { config: { postgres_changes: postgresChanges }, ...(accessToken ? { access_token: accessToken } : {}) }]);
    const reply = await s.next((f) => f[1] === joinRef && f[3] === 'phx_reply', `the join reply on ${topic}`);
    return { joinRef, reply };
  }

  it('answers heartbeats in both framings', async () => {
    const v2 = await open();
    v2.send([null, '41', 'phoenix', 'heartbeat', {}]);
    expect(await v2.next((f) => f[1] === '41', 'the v2 heartbeat reply')).toEqual([null, '41', 'phoenix', 'phx_reply', { status: 'ok', response: {} }]);

    const v1 = await open(`apikey=${running.config.anonKey}&vsn=1.0.0`);
    v1.send({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: '42' });
    await waitFor(() => v1.frames.length > 0, 'the v1 heartbeat reply');
    expect(v1.frames[0]).toEqual({ topic: 'phoenix', event: 'phx_reply', payload: { status: 'ok', response: {} }, ref: '42' });
  });

  it('accepts the publishable key and refuses missing, invalid or expired keys with 401 JSON', async () => {
    const s = await open(`apikey=${PUBLISHABLE_KEY}&vsn=2.0.0`);
    s.send([null, '1', 'phoenix', 'heartbeat', {}]);
    await s.next((f) => f[1] === '1', 'a heartbeat reply on the publishable-key socket');

    expect(await refusal(`${wsBase}?vsn=2.0.0`)).toEqual({ status: 401, body: { error: 'No api key provided' } });
    const forged = await jwt({ role: 'anon' }, 'another-secret-that-is-at-least-32-characters');
    expect(await refusal(`${wsBase}?apikey=${forged}&vsn=2.0.0`)).toEqual({ status: 401, body: { error: 'Failed to validate JWT signature' } });
    const noExp = await signJwt({ role: 'anon' }, running.config.jwtSecret);
    expect(await refusal(`${wsBase}?apikey=${noExp}&vsn=2.0.0`)).toEqual({ status: 401, body: { error: 'Fields `role` and `exp` are required in JWT' } });
    const expired = await jwt({ role: 'anon', exp: Math.floor(Date.now() / 1000) - 100 });
    const res = await refusal(`${wsBase}?apikey=${expired}&vsn=2.0.0`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: expect.stringMatching(/^Token has expired \d+ seconds ago$/) });
  });

  it('echoes bindings with distinct ids, confirms the subscription and sends changes on the fast lane', async () => {
    const s = await open();
    const topic = 'realtime:account';
    const bindings = [
      { event: 'UPDATE', schema: 'public', table: 'mdusers', filter: `id=eq.${A}` },
      { event: '*', schema: 'public', table: 'tasks' },
      { event: 'UPDATE', schema: 'public', table: 'mdusers' },
    ];
    const { joinRef, reply } = await join(s, topic, bindings, await jwt({ sub: A }));
    expect(reply[4].status).toBe('ok');
    const echoed = reply[4].response.postgres_changes as Record<string, unknown>[];
    expect(echoed.map(({ id: _id, ...rest }) => rest)).toEqual(bindings);
    const ids = echoed.map((b) => b.id);
    expect(ids.every((id) => typeof id === 'number')).toBe(true);
    expect(new Set(ids).size).toBe(3);
    expect(await s.next((f) => f[3] === 'system', 'the system message')).toEqual([
      joinRef,
      null,
      topic,
      'system',
      { extension: 'postgres_changes', status: 'ok', message: 'Subscribed to PostgreSQL', channel: 'account' },
    ]);

    await running.db.query(`select public.apply_credit($1, 30, $2, 'test')`, [A, `rt:${randomUUID()}`]);
    const change = await s.next((f) => f[3] === 'postgres_changes', 'the change');
    expect(change.slice(0, 4)).toEqual([null, null, topic, 'postgres_changes']);
    const { ids: matched, data } = change[4];
    // both mdusers bindings match, grouped into one message
    expect([...matched].sort()).toEqual([ids[0], ids[2]].sort());
    expect(data).toMatchObject({ schema: 'public', table: 'mdusers', type: 'UPDATE', errors: null, old_record: { id: A } });
    expect(data.commit_timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(data.columns.slice(0, 4)).toEqual([
      { name: 'id', type: 'uuid' },
      { name: 'email', type: 'text' },
      { name: 'api_key', type: 'text' },
      { name: 'credits', type: 'int4' },
    ]);
    expect(data.record).toMatchObject({ id: A, credits: 30, email: 'a@example.com', plan: 'zero' });
  });

  it('limits columns to the role, honours replica identity and RLS, carries large rows, follows publication changes', async () => {
    await running.db.exec(`
      create table public.rt_notes (id bigint generated always as identity primary key, owner uuid not null, body text, secret text);
      alter table public.rt_notes replica identity full;
      alter table public.rt_notes enable row level security;
      create policy "own notes" on public.rt_notes for select to authenticated using (owner = auth.uid());
      revoke all on public.rt_notes from anon, authenticated;
      grant select (id, owner, body) on public.rt_notes to authenticated;
      alter publication supabase_realtime add table public.rt_notes;
    `);
    const s = await open();
    const { reply } = await join(s, 'realtime:notes', [{ event: '*', schema: 'public', table: 'rt_notes' }], await jwt({ sub: A }));
    expect(reply[4].status).toBe('ok');
    await s.next((f) => f[3] === 'system' && f[4].status === 'ok', 'the subscription');

    const big = 'x'.repeat(20_000); // well past NOTIFY's 8000-byte payload limit
    await running.db.query(`insert into public.rt_notes (owner, body, secret) values ($1, 'for B', 's')`, [B]);
    await running.db.query(`insert into public.rt_notes (owner, body, secret) values ($1, $2, 's')`, [A, big]);
    const insert = (await s.next((f) => f[3] === 'postgres_changes', 'the insert'))[4].data;
    expect(s.all((f) => f[3] === 'postgres_changes')).toHaveLength(1);
    expect(insert.columns).toEqual([
      { name: 'id', type: 'int8' },
      { name: 'owner', type: 'uuid' },
      { name: 'body', type: 'text' },
    ]);
    expect(insert.record).toEqual({ id: expect.any(Number), owner: A, body: big });
    expect(insert.old_record).toEqual({});

    await running.db.query(`update public.rt_notes set body = 'short' where id = $1`, [insert.record.id]);
    await waitFor(() => s.all((f) => f[3] === 'postgres_changes').length === 2, 'the update');
    const update = s.all((f) => f[3] === 'postgres_changes')[1][4].data;
    expect(update.record).toEqual({ id: insert.record.id, owner: A, body: 'short' });
    expect(update.old_record).toEqual({ id: insert.record.id, owner: A, body: big });

    await running.db.query(`delete from public.rt_notes where id = $1`, [insert.record.id]);
    await waitFor(() => s.all((f) => f[3] === 'postgres_changes').length === 3, 'the delete');
    const del = s.all((f) => f[3] === 'postgres_changes')[2][4].data;
    expect(del).toMatchObject({ type: 'DELETE', record: {}, old_record: { id: insert.record.id } });
    expect(Object.keys(del.old_record)).toEqual(['id']);

    // re-running the local SQL (every start does) keeps exactly one capture trigger per table
    await migrate(running.db, { local: true });
    const triggers = await running.db.query<{ rel: string; n: number }>(
      `select p.schemaname || '.' || p.tablename as rel,
         (select count(*)::int from pg_trigger t where t.tgname = '_realtime_local_capture'
            and t.tgrelid = format('%I.%I', p.schemaname, p.tablename)::regclass) as n
       from pg_publication_tables p where p.pubname = 'supabase_realtime' order by 1`,
    );
    expect(triggers.rows.map((r) => r.rel)).toEqual(expect.arrayContaining(['public.mdusers', 'public.rt_notes', 'public.tasks']));
    expect(triggers.rows.every((r) => r.n === 1)).toBe(true);
    await running.db.exec(`alter publication supabase_realtime drop table public.rt_notes`);
    const left = await running.db.query(`select 1 from pg_trigger where tgname = '_realtime_local_capture' and tgrelid = 'public.rt_notes'::regclass`);
    expect(left.rows).toHaveLength(0);
  });

  it('re-applies the claims of an access_token push without replying', async () => {
    const s = await open();
    const { joinRef } = await join(s, 'realtime:tasks', [{ event: 'INSERT', schema: 'public', table: 'tasks' }], await jwt({ sub: A }));
    await s.next((f) => f[3] === 'system', 'the subscription');
    const pushRef = ref();
    s.send([joinRef, pushRef, 'realtime:tasks', 'access_token', { access_token: await jwt({ sub: B }) }]);
    s.send([null, ref(), 'phoenix', 'heartbeat', {}]);
    await s.next((f) => f[2] === 'phoenix', 'the heartbeat reply after the push');
    expect(s.all((f) => f[1] === pushRef)).toEqual([]);

    const insert = (user: string) => running.db.query(`insert into public.tasks (user_id, email, type) values ($1, 'x@example.com', 'imagine')`, [user]);
    await insert(A);
    await insert(B);
    const got = await s.next((f) => f[3] === 'postgres_changes', 'the change');
    expect(got[4].data.record.user_id).toBe(B);
    expect(s.all((f) => f[3] === 'postgres_changes')).toHaveLength(1);
  });

  it('refuses joins with bad tokens and roles', async () => {
    const s = await open();
    const reason = async (token: string) => (await join(s, `realtime:bad-${ref()}`, [], token)).reply[4];
    expect(await reason(await jwt({ sub: A, exp: Math.floor(Date.now() / 1000) - 60 }))).toEqual({
      status: 'error',
      response: { reason: expect.stringMatching(/^InvalidJWTToken: Token has expired \d+ seconds ago$/) },
    });
    expect(await reason(await jwt({ sub: A }, 'another-secret-that-is-at-least-32-characters'))).toEqual({
      status: 'error',
      response: { reason: 'JwtSignatureError: Failed to validate JWT signature' },
    });
    expect((await reason(await jwt({ sub: A, role: 'postgres' }))).response.reason).toMatch(/^Unauthorized: /);
    // an sb_ key as access_token means "the socket's token" (anon here): accepted
    expect((await reason(PUBLISHABLE_KEY)).status).toBe('ok');
  });

  it('handles unmatched topics, duplicate joins and leaves', async () => {
    const s = await open();
    s.send([null, '900', 'realtime:nowhere', 'access_token', { access_token: 'x' }]);
    expect(await s.next((f) => f[1] === '900', 'the unmatched reply')).toEqual([
      null,
      '900',
      'realtime:nowhere',
      'phx_reply',
      { status: 'error', response: { reason: 'unmatched topic' } },
    ]);

    const first = await join(s, 'realtime:dup', []);
    const second = await join(s, 'realtime:dup', []);
    expect(s.all((f) => f[3] === 'phx_close')).toEqual([[first.joinRef, first.joinRef, 'realtime:dup', 'phx_close', {}]]);
    expect(second.reply[4]).toEqual({ status: 'ok', response: { postgres_changes: [] } });

    s.send([second.joinRef, '901', 'realtime:dup', 'phx_leave', {}]);
    expect(await s.next((f) => f[1] === '901', 'the leave reply')).toEqual([
      second.joinRef,
      '901',
      'realtime:dup',
      'phx_reply',
      { status: 'ok', response: {} },
    ]);
    await s.next((f) => f[3] === 'phx_close' && f[0] === second.joinRef, 'the close');
    s.send([second.joinRef, '902', 'realtime:dup', 'phx_leave', {}]);
    expect((await s.next((f) => f[1] === '902', 'the reply after leaving'))[4].response).toEqual({ reason: 'unmatched topic' });
  });

  it('closes a channel when its token expires', async () => {
    const s = await open();
    const { joinRef } = await join(s, 'realtime:short', [], await jwt({ sub: A, exp: Math.floor(Date.now() / 1000) + 1 }));
    const system = await s.next((f) => f[3] === 'system', 'the expiry', 3000);
    expect(system).toEqual([
      joinRef,
      null,
      'realtime:short',
      'system',
      { extension: 'system', status: 'error', message: expect.stringMatching(/^Token has expired/), channel: 'short' },
    ]);
    await s.next((f) => f[3] === 'phx_close', 'the close');
  });
});
