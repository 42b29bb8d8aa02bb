import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type RealtimeChannel, type RealtimePostgresChangesPayload, type SupabaseClient } from '@supabase/supabase-js';
import { signJwt } from '../src/keys.ts';
import { startLocalSupabase, testDatabaseKinds, type RunningLocalSupabase } from './support/index.ts';

const A = 'aaaaaaaa-1111-4111-8111-111111111111';
const B = 'bbbbbbbb-2222-4222-8222-222222222222';

// biome-ignore lint/suspicious/noExplicitAny: rows are read field by field in assertions
type Row = Record<string, any>;
// the payload as the callbacks receive it, with `new`/`old` readable without narrowing
type Change = Omit<RealtimePostgresChangesPayload<Row>, 'new' | 'old'> & { new: Row; old: Row };

async function waitFor<T>(probe: () => T | undefined | false, what: string, ms = 4000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe.each(testDatabaseKinds())('realtime postgres_changes with supabase-js on %s', (kind) => {
  let running: RunningLocalSupabase;
  const clients: SupabaseClient[] = [];

  beforeAll(async () => {
    running = await startLocalSupabase(kind);
    await running.db.query(
      `insert into auth.users (id, email, aud, role) values
         ($1, 'a@example.com', 'authenticated', 'authenticated'), ($2, 'b@example.com', 'authenticated', 'authenticated')`,
      [A, B],
    );
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.removeAllChannels();
  });
  afterAll(async () => {
    await running?.stop();
  });

  const userJwt = (sub: string, ttlSeconds = 3600) =>
    signJwt(
      {
        sub,
        role: 'authenticated',
        aud: 'authenticated',
        email: sub === A ? 'a@example.com' : 'b@example.com',
        session_id: randomUUID(),
        exp: Math.floor(Date.now() / 1000) + ttlSeconds,
      },
      running.config.jwtSecret,
    );

  /** A client acting as a signed-in user; `token.current` is what its accessToken callback returns. */
  async function userClient(token: { current: string }) {
    const c = createClient(running.url, running.config.anonKey, {
      accessToken: async () => token.current,
      realtime: { transport: WebSocket as never },
    });
    clients.push(c);
    // supabase-js fetches the token asynchronously; a channel joined before that joins as anon
    await c.realtime.setAuth();
    return c;
  }

  function subscribed(channel: RealtimeChannel, statuses: string[] = []) {
    return new Promise<void>((resolve, reject) => {
      channel.subscribe((status, err) => {
        statuses.push(status);
        if (status === 'SUBSCRIBED') resolve();
        else if (status !== 'CLOSED') reject(err ?? new Error(status));
      });
    });
  }

  const listen = (channel: RealtimeChannel, filter: { event: '*' | 'INSERT' | 'UPDATE' | 'DELETE'; table: string; filter?: string }, into: Change[]) =>
    channel.on('postgres_changes' as never, { schema: 'public', ...filter } as never, (p: Change) => into.push(p));

  async function insertTask(userId: string, extra: Row = {}) {
    const { rows } = await running.db.query<{ id: string }>(
      `insert into public.tasks (user_id, email, type, prompt, image_urls, result) values ($1, $2, 'imagine', $3, $4, $5) returning id`,
      [userId, userId === A ? 'a@example.com' : 'b@example.com', extra.prompt ?? 'a cat', extra.image_urls ?? null, extra.result ?? null],
    );
    return rows[0].id;
  }

  it("delivers a credits change to its owner's filtered subscription, typed, and to nobody else (RLS)", async () => {
    const a = await userClient({ current: await userJwt(A) });
    const b = await userClient({ current: await userJwt(B) });
    const aEvents: Change[] = [];
    const bSpy: Change[] = [];
    const bOwn: Change[] = [];
    const aChannel = listen(a.channel('credits-a'), { event: 'UPDATE', table: 'mdusers', filter: `id=eq.${A}` }, aEvents);
    const bChannel = listen(b.channel('credits-b'), { event: 'UPDATE', table: 'mdusers', filter: `id=eq.${A}` }, bSpy);
    listen(bChannel, { event: 'UPDATE', table: 'mdusers', filter: `id=eq.${B}` }, bOwn);
    await Promise.all([subscribed(aChannel), subscribed(bChannel)]);

    await running.db.query(`select public.apply_credit($1, 25, $2, 'test')`, [A, `rt:${randomUUID()}`]);
    const [change] = await waitFor(() => aEvents.length === 1 && aEvents, "A's credits change");
    expect(change).toMatchObject({ schema: 'public', table: 'mdusers', eventType: 'UPDATE', errors: null });
    expect(change.new.credits).toBe(25);
    expect(change.new.id).toBe(A);
    expect(change.new.auto_topup).toBe(false);
    expect(change.old).toEqual({ id: A });
    expect(change.commit_timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    // B's own change comes later in commit order, so A's would have reached B before it
    await running.db.query(`select public.apply_credit($1, 7, $2, 'test')`, [B, `rt:${randomUUID()}`]);
    const [own] = await waitFor(() => bOwn.length === 1 && bOwn, "B's own credits change");
    expect(own.new).toMatchObject({ id: B, credits: 7 });
    expect(bSpy).toEqual([]);
    expect(aEvents).toHaveLength(1);
  });

  it('delivers task updates matching an id filter only', async () => {
    const a = await userClient({ current: await userJwt(A) });
    const watched = await insertTask(A);
    const other = await insertTask(A);
    const events: Change[] = [];
    const channel = listen(a.channel(`task-${watched}`), { event: 'UPDATE', table: 'tasks', filter: `id=eq.${watched}` }, events);
    await subscribed(channel);

    await running.db.query(`update public.tasks set status = 'running', percentage = 10 where id = $1`, [other]);
    await running.db.query(`update public.tasks set status = 'running', percentage = 40, image_urls = $2, result = $3 where id = $1`, [
      watched,
      ['https://cdn.example/1.png'],
      { seed: 7 },
    ]);
    const [change] = await waitFor(() => events.length > 0 && events, 'the task update');
    expect(events).toHaveLength(1);
    expect(change.new).toMatchObject({
      id: watched,
      status: 'running',
      percentage: 40,
      complete: false,
      image_urls: ['https://cdn.example/1.png'],
      result: { seed: 7 },
    });
    expect(change.old).toEqual({ id: watched });
  });

  it("delivers '*' events (INSERT, UPDATE, DELETE) for the user's own rows", async () => {
    const a = await userClient({ current: await userJwt(A) });
    const events: Change[] = [];
    const channel = listen(a.channel('all-tasks'), { event: '*', table: 'tasks' }, events);
    await subscribed(channel);

    await insertTask(B, { prompt: 'not yours' });
    const mine = await insertTask(A, { prompt: 'a dog' });
    await waitFor(() => events.length === 1, 'the INSERT');
    expect(events[0]).toMatchObject({ eventType: 'INSERT', table: 'tasks', old: {} });
    expect(events[0].new).toMatchObject({ id: mine, prompt: 'a dog', user_id: A, status: 'pending' });

    await running.db.query(`update public.tasks set favorite = true where id = $1`, [mine]);
    // the RLS check reads the row after commit (as Realtime does): let it exist while checked
    await waitFor(() => events.length === 2, 'the UPDATE');
    await running.db.query(`delete from public.tasks where id = $1`, [mine]);
    await waitFor(() => events.length === 3, 'the DELETE');
    expect(events[1]).toMatchObject({ eventType: 'UPDATE', new: { id: mine, favorite: true } });
    expect(events[2]).toMatchObject({ eventType: 'DELETE', new: {}, old: { id: mine } });
  });

  it('reports a table outside the publication and an unparsable filter as system errors', async () => {
    const a = await userClient({ current: await userJwt(A) });
    const system: Row[] = [];
    const notPublished = a
      .channel('payments')
      .on('postgres_changes' as never, { event: 'INSERT', schema: 'public', table: 'payments' } as never, () => {})
      .on('system', {}, (m: Row) => system.push(m));
    await subscribed(notPublished);
    const [err] = await waitFor(() => system.length > 0 && system, 'the system message');
    expect(err).toMatchObject({ extension: 'postgres_changes', status: 'error', channel: 'payments' });
    expect(err.message).toContain('Unable to subscribe to changes with given parameters');
    expect(err.message).toContain('table: payments');

    const badFilter: Row[] = [];
    const bad = a
      .channel('bad-filter')
      .on('postgres_changes' as never, { event: 'UPDATE', schema: 'public', table: 'tasks', filter: 'id=foo.1' } as never, () => {})
      .on('system', {}, (m: Row) => badFilter.push(m));
    await subscribed(bad);
    const [parseErr] = await waitFor(() => badFilter.length > 0 && badFilter, 'the parse error');
    expect(parseErr).toMatchObject({ status: 'error' });
    expect(parseErr.message).toContain('Error parsing `filter` params: [\\"foo\\", \\"1\\"]');

    const okSystem: Row[] = [];
    const fine = a
      .channel('fine')
      .on('postgres_changes' as never, { event: 'UPDATE', schema: 'public', table: 'tasks', filter: 'percentage=gte.50' } as never, () => {})
      .on('system', {}, (m: Row) => okSystem.push(m));
    await subscribed(fine);
    await waitFor(() => okSystem.length > 0, 'the ok system message');
    expect(okSystem[0]).toEqual({ extension: 'postgres_changes', status: 'ok', message: 'Subscribed to PostgreSQL', channel: 'fine' });
  });

  it('keeps delivering after an access_token push with a new token, and closes the channel on an expired one', async () => {
    const token = { current: await userJwt(A) };
    const a = await userClient(token);
    const events: Change[] = [];
    const system: Row[] = [];
    const statuses: string[] = [];
    const channel = listen(a.channel('token-refresh'), { event: 'UPDATE', table: 'mdusers', filter: `id=eq.${A}` }, events).on('system', {}, (m: Row) =>
      system.push(m),
    );
    await subscribed(channel, statuses);

    token.current = await userJwt(A);
    await a.realtime.setAuth();
    await running.db.query(`update public.mdusers set plan = 'basic' where id = $1`, [A]);
    await waitFor(() => events.length === 1, 'the change after the refresh');
    expect(events[0].new.plan).toBe('basic');

    token.current = await userJwt(A, -120);
    await a.realtime.setAuth();
    await waitFor(() => statuses.includes('CLOSED'), 'the channel to close');
    expect(system.at(-1)).toMatchObject({ extension: 'system', status: 'error', channel: 'token-refresh' });
    expect(system.at(-1)!.message).toMatch(/^Token has expired \d+ seconds ago$/);
  });

  it('leaves a channel: unsubscribe resolves ok, the status goes CLOSED and changes stop', async () => {
    const a = await userClient({ current: await userJwt(A) });
    const left: Change[] = [];
    const kept: Change[] = [];
    const statuses: string[] = [];
    const leaving = listen(a.channel('leaving'), { event: 'UPDATE', table: 'mdusers', filter: `id=eq.${A}` }, left);
    const staying = listen(a.channel('staying'), { event: 'UPDATE', table: 'mdusers', filter: `id=eq.${A}` }, kept);
    await Promise.all([subscribed(leaving, statuses), subscribed(staying)]);

    expect(await leaving.unsubscribe()).toBe('ok');
    await waitFor(() => statuses.includes('CLOSED'), 'CLOSED');
    await running.db.query(`update public.mdusers set onboarded = true where id = $1`, [A]);
    await waitFor(() => kept.length === 1, 'the change on the remaining channel');
    expect(left).toEqual([]);
  });

  it('refuses an invalid apikey at connect with a 401 JSON error', async () => {
    const wsUrl = `${running.url.replace(/^http/, 'ws')}/realtime/v1/websocket?vsn=2.0.0&apikey=not-a-jwt`;
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const ws = new WebSocket(wsUrl);
      ws.on('open', () => reject(new Error('connected with an invalid apikey')));
      ws.on('error', () => {});
      ws.on('unexpected-response', (_req, r) => {
        let body = '';
        r.on('data', (d) => (body += d));
        r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
      });
    });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toEqual({ error: 'The token provided is not a valid JWT' });
  });
});
