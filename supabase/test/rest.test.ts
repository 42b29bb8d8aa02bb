import { randomUUID } from 'node:crypto';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLISHABLE_KEY, SECRET_KEY } from '../src/gateway.ts';
import { signJwt } from '../src/keys.ts';
import { invalidateSchemaCache } from '../src/rest/index.ts';
import { makeClient, startLocalSupabase, testDatabaseKinds, type RunningLocalSupabase } from './support/index.ts';

interface TestUser {
  id: string;
  email: string;
  jwt: string;
  client: SupabaseClient;
}

describe.each(testDatabaseKinds())('local PostgREST with supabase-js on %s', (kind) => {
  let running: RunningLocalSupabase;
  let anon: SupabaseClient;
  let service: SupabaseClient;
  let a: TestUser;
  let b: TestUser;
  const aTasks: string[] = [];
  let bTask: string;

  const userJwt = (id: string, email: string, expIn = 3600) =>
    signJwt({ sub: id, role: 'authenticated', aud: 'authenticated', email, exp: Math.floor(Date.now() / 1000) + expIn }, running.config.jwtSecret);

  /** A signed-in user without the auth service: an auth.users row (the trigger makes mdusers) and a JWT. */
  async function makeUser(email: string): Promise<TestUser> {
    const id = randomUUID();
    await running.db.query(
      `insert into auth.users (id, email, aud, role, created_at, updated_at) values ($1, $2, 'authenticated', 'authenticated', now(), now())`,
      [id, email],
    );
    const jwt = await userJwt(id, email);
    const client = createClient(running.url, running.config.anonKey, {
      accessToken: async () => jwt,
      realtime: { transport: WebSocket as never },
    });
    return { id, email, jwt, client };
  }

  async function addTask(
    user: { id: string; email: string },
    fields: { prompt: string; status: string; percentage?: number; note?: string | null; minutesAgo: number },
  ) {
    const r = await running.db.query<{ id: string }>(
      `insert into public.tasks (user_id, email, type, status, prompt, percentage, note, created_at)
       values ($1, $2, 'imagine', $3, $4, $5, $6, now() - make_interval(mins => $7::int)) returning id`,
      [user.id, user.email, fields.status, fields.prompt, fields.percentage ?? 0, fields.note ?? null, fields.minutesAgo],
    );
    return r.rows[0].id;
  }

  /** A raw request, for what supabase-js does not show (headers, hostile URLs). */
  function rest(path: string, init: { method?: string; token?: string; headers?: Record<string, string>; body?: string } = {}) {
    const headers: Record<string, string> = { apikey: running.config.anonKey, ...init.headers };
    if (init.token) headers.Authorization = `Bearer ${init.token}`;
    return fetch(`${running.url}/rest/v1/${path}`, { method: init.method ?? 'GET', headers, body: init.body });
  }

  beforeAll(async () => {
    running = await startLocalSupabase(kind);
    anon = makeClient(running.url, running.config.anonKey);
    service = makeClient(running.url, running.config.serviceRoleKey);
    a = await makeUser('alice@example.com');
    b = await makeUser('bob@example.com');
    aTasks.push(await addTask(a, { prompt: 'a cat, 100% fluffy', status: 'finished', percentage: 100, minutesAgo: 50 }));
    aTasks.push(await addTask(a, { prompt: 'A Foo Bar castle', status: 'failed', percentage: 10, note: 'oops', minutesAgo: 40 }));
    aTasks.push(await addTask(a, { prompt: 'a,b', status: 'pending', minutesAgo: 30 }));
    aTasks.push(await addTask(a, { prompt: 'a dog', status: 'processing', percentage: 60, minutesAgo: 20 }));
    aTasks.push(await addTask(a, { prompt: 'foo barn', status: 'finished', percentage: 100, minutesAgo: 10 }));
    bTask = await addTask(b, { prompt: 'bob task', status: 'finished', percentage: 100, minutesAgo: 5 });
    await running.db.query(`insert into public.payments (user_id, email, plan_name, amount) values ($1, $2, 'basic', 39)`, [a.id, a.email]);
  });

  afterAll(async () => {
    await running?.stop();
  });

  it('selects with eq, order, range and an exact count (206 partial)', async () => {
    const r = await a.client
      .from('tasks')
      .select('id,prompt,status', { count: 'exact' })
      .eq('email', a.email)
      .order('created_at', { ascending: false })
      .range(0, 1);
    expect(r.error).toBeNull();
    expect(r.status).toBe(206);
    expect(r.count).toBe(5);
    expect(r.data).toEqual([
      { id: aTasks[4], prompt: 'foo barn', status: 'finished' },
      { id: aTasks[3], prompt: 'a dog', status: 'processing' },
    ]);
    const all = await a.client.from('tasks').select('id', { count: 'exact' }).order('created_at').order('id', { ascending: false });
    expect(all.status).toBe(200);
    expect(all.data?.map((t) => t.id)).toEqual(aTasks);
  });

  it('exposes Content-Range to browsers (CORS) and answers preflights', async () => {
    const pre = await fetch(`${running.url}/rest/v1/tasks?select=*`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://localhost:3000',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'apikey,authorization,prefer,accept-profile',
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(pre.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('prefer');
    const res = await rest('tasks?select=id&offset=1&limit=2', { token: a.jwt, headers: { Origin: 'http://localhost:3000', Prefer: 'count=exact' } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe('1-2/5');
    expect(res.headers.get('access-control-expose-headers')?.toLowerCase()).toContain('content-range');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('counts with HEAD, without a body, and 416s beyond the end', async () => {
    const head = await a.client.from('tasks').select('*', { count: 'exact', head: true });
    expect(head.error).toBeNull();
    expect(head.count).toBe(5);
    expect(head.data).toBeNull();
    const raw = await rest('tasks?select=*', { method: 'HEAD', token: a.jwt, headers: { Prefer: 'count=planned' } });
    expect(raw.headers.get('content-range')).toBe('0-4/5');
    expect(await raw.text()).toBe('');
    const beyond = await a.client.from('tasks').select('id', { count: 'exact' }).range(10, 12);
    expect(beyond.status).toBe(416);
    expect(beyond.error?.code).toBe('PGRST103');
    const range = await rest('tasks?select=id&order=created_at', { token: a.jwt, headers: { Range: '3-3', 'Range-Unit': 'items' } });
    expect(await range.json()).toEqual([{ id: aTasks[3] }]);
  });

  it('ilike with a space and %, and literal values with commas', async () => {
    const r = await a.client.from('tasks').select('prompt').ilike('prompt', '%foo bar%').order('prompt');
    expect(r.error).toBeNull();
    expect(r.data).toEqual([{ prompt: 'A Foo Bar castle' }, { prompt: 'foo barn' }]);
    const star = await a.client.from('tasks').select('prompt').like('prompt', '*100%*');
    expect(star.data).toEqual([{ prompt: 'a cat, 100% fluffy' }]);
    const comma = await a.client.from('tasks').select('prompt').eq('prompt', 'a,b');
    expect(comma.data).toEqual([{ prompt: 'a,b' }]);
  });

  it('or / in / is / not, nested trees with quoted values', async () => {
    const prompts = async (q: PromiseLike<{ data: { prompt: string }[] | null; error: unknown }>) => {
      const r = await q;
      expect(r.error).toBeNull();
      return r.data?.map((t) => t.prompt).sort();
    };
    const t = () => a.client.from('tasks').select('prompt');
    expect(await prompts(t().or('status.eq.failed,percentage.gt.50'))).toEqual(['A Foo Bar castle', 'a cat, 100% fluffy', 'a dog', 'foo barn']);
    expect(await prompts(t().in('status', ['pending', 'processing']))).toEqual(['a dog', 'a,b']);
    expect(await prompts(t().in('prompt', ['a,b', 'a cat, 100% fluffy']))).toEqual(['a cat, 100% fluffy', 'a,b']);
    expect(await prompts(t().is('note', null).eq('status', 'finished'))).toEqual(['a cat, 100% fluffy', 'foo barn']);
    expect(await prompts(t().not('note', 'is', null))).toEqual(['A Foo Bar castle']);
    expect(await prompts(t().not('status', 'in', '(finished,failed)'))).toEqual(['a dog', 'a,b']);
    expect(await prompts(t().or('and(status.eq.finished,prompt.ilike.*barn*),prompt.eq."a,b"'))).toEqual(['a,b', 'foo barn']);
    expect(await prompts(t().or('status.eq.pending,status.not.in.(finished,pending,failed)'))).toEqual(['a dog', 'a,b']);
    expect(await prompts(t().filter('status', 'match', '^fin').isDistinct('percentage', 100))).toEqual([]);
    expect(await prompts(t().gte('percentage', 60).lt('percentage', 100))).toEqual(['a dog']);
  });

  it('select aliases, casts and JSON paths are serialized by Postgres', async () => {
    await running.db.query(`update public.tasks set result = '{"message":"boom","songs":[{"audio_url":"u1"}]}' where id = $1`, [aTasks[1]]);
    const r = await a.client
      .from('tasks')
      .select('p:percentage::text,result->>message,url:result->songs->0->>audio_url,result->songs')
      .eq('id', aTasks[1])
      .single();
    expect(r.error).toBeNull();
    expect(r.data).toEqual({ p: '10', message: 'boom', url: 'u1', songs: [{ audio_url: 'u1' }] });
    const filtered = await a.client.from('tasks').select('id').eq('result->>message', 'boom');
    expect(filtered.data).toEqual([{ id: aTasks[1] }]);
  });

  it('.single() with no rows is 406 PGRST116; with one row an object', async () => {
    const none = await a.client.from('tasks').select('*').eq('id', bTask).single();
    expect(none.status).toBe(406);
    expect(none.data).toBeNull();
    expect(none.error).toMatchObject({ code: 'PGRST116', details: 'The result contains 0 rows', message: 'Cannot coerce the result to a single JSON object' });
    const one = await a.client.from('tasks').select('id,favorite').eq('id', aTasks[0]).single();
    expect(one.error).toBeNull();
    expect(one.data).toEqual({ id: aTasks[0], favorite: false });
    const raw = await rest(`tasks?id=eq.${aTasks[0]}`, { token: a.jwt, headers: { Accept: 'application/vnd.pgrst.object+json' } });
    expect(raw.headers.get('content-type')).toBe('application/vnd.pgrst.object+json; charset=utf-8');
    const many = await a.client.from('tasks').select('id').single();
    expect(many.error?.details).toBe('The result contains 5 rows');
  });

  it('.maybeSingle() gives null for no rows and the object for one', async () => {
    const none = await a.client.from('mdusers').select('*').eq('email', b.email).maybeSingle();
    expect(none).toMatchObject({ data: null, error: null, status: 200 });
    const own = await a.client.from('mdusers').select('id,email,credits,plan').eq('email', a.email).maybeSingle();
    expect(own.error).toBeNull();
    expect(own.data).toEqual({ id: a.id, email: a.email, credits: 0, plan: 'zero' });
  });

  it("rpc toggle_favorite toggles the caller's own task and does nothing to another user's", async () => {
    const on = await a.client.rpc('toggle_favorite', { task_id: aTasks[2], email: a.email });
    expect(on).toMatchObject({ data: true, error: null, status: 200 });
    const off = await a.client.rpc('toggle_favorite', { task_id: aTasks[2], email: a.email });
    expect(off.data).toBe(false);
    const other = await a.client.rpc('toggle_favorite', { task_id: bTask, email: b.email });
    expect(other).toMatchObject({ data: null, error: null });
    const bRow = await running.db.query<{ favorite: boolean }>('select favorite from public.tasks where id = $1', [bTask]);
    expect(bRow.rows[0].favorite).toBe(false);
    const anonCall = await anon.rpc('toggle_favorite', { task_id: aTasks[2], email: a.email });
    expect(anonCall.status).toBe(401);
    expect(anonCall.error?.code).toBe('42501');
  });

  it('rpc: unknown function or argument names is 404 PGRST202', async () => {
    const r = await a.client.rpc('toggle_favorite', { p_task_id: aTasks[0] });
    expect(r.status).toBe(404);
    expect(r.error).toMatchObject({
      code: 'PGRST202',
      message: 'Could not find the function public.toggle_favorite(p_task_id) in the schema cache',
      hint: 'Perhaps you meant to call the function public.toggle_favorite(task_id, email)',
    });
    expect((await a.client.rpc('no_such_fn')).error?.code).toBe('PGRST202');
  });

  it('rpc: void → 204, setof → filtered array, stable → read only, GET args', async () => {
    await running.db.exec(`
      create function public.rest_test_void(n int) returns void language sql as $$ select $$;
      create function public.rest_test_series(n int) returns table(i int, label text) language sql stable as $$
        select g, 'n' || g from generate_series(1, n) g $$;
      create function public.rest_test_ints(n int) returns setof int language sql immutable as $$ select generate_series(1, n) $$;
      create table public.rest_test_log (id serial primary key);
      grant all on public.rest_test_log, public.rest_test_log_id_seq to authenticated;
      create function public.rest_test_write() returns int language sql as $$ insert into public.rest_test_log default values returning id $$;
      grant execute on all functions in schema public to authenticated;`);
    invalidateSchemaCache(running.db);
    const v = await a.client.rpc('rest_test_void', { n: 1 });
    expect(v).toMatchObject({ status: 204, data: null, error: null });
    const s = await a.client.rpc('rest_test_series', { n: 5 }, { count: 'exact' }).gt('i', 1).order('i', { ascending: false }).limit(2);
    expect(s.error).toBeNull();
    expect(s.data).toEqual([
      { i: 5, label: 'n5' },
      { i: 4, label: 'n4' },
    ]);
    expect(s.count).toBe(4);
    const ints = await a.client.rpc('rest_test_ints', { n: 3 });
    expect(ints.data).toEqual([1, 2, 3]);
    // db-max-rows: reads are capped at 1000 rows, the count still says how many there are
    const capped = await a.client.rpc('rest_test_series', { n: 1500 }, { count: 'exact' });
    expect(capped.data?.length).toBe(1000);
    expect(capped.count).toBe(1500);
    expect(capped.status).toBe(206);
    const get = await a.client.rpc('rest_test_series', { n: 2 }, { get: true });
    expect(get.data).toEqual([
      { i: 1, label: 'n1' },
      { i: 2, label: 'n2' },
    ]);
    const ro = await a.client.rpc('rest_test_write', {}, { get: true });
    expect(ro.status).toBe(405);
    expect(ro.error?.code).toBe('25006');
    const rw = await a.client.rpc('rest_test_write');
    expect(rw).toMatchObject({ status: 200, data: 1 });
  });

  it("RLS: a user sees none of another user's rows and anon sees nothing", async () => {
    for (const table of ['mdusers', 'tasks', 'payments']) {
      const r = await b.client.from(table).select('*').eq('email', a.email);
      expect(r.error).toBeNull();
      expect(r.data).toEqual([]);
      const ownA = await a.client.from(table).select('email');
      expect(ownA.data?.length).toBeGreaterThan(0);
      expect(ownA.data?.every((row) => row.email === a.email)).toBe(true);
      const anonRead = await anon.from(table).select('*');
      expect(anonRead.data).toBeNull();
      expect(anonRead.status).toBe(401);
      expect(anonRead.error?.code).toBe('42501');
    }
  });

  it('RLS and grants on mdusers writes: none from clients, auto top-up settings included (the API is their one write path)', async () => {
    const other = await b.client.from('mdusers').update({ auto_topup: true }).eq('id', a.id).select();
    expect(other.status).toBe(403);
    expect(other.error?.code).toBe('42501');
    const aRow = await running.db.query<{ auto_topup: boolean }>('select auto_topup from public.mdusers where id = $1', [a.id]);
    expect(aRow.rows[0].auto_topup).toBe(false);
    for (const patch of [{ credits: 1_000_000 }, { plan: 'scale3' }, { api_key: 'x'.repeat(64) }, { auto_topup: true, credits: 5 }]) {
      const r = await b.client.from('mdusers').update(patch).eq('id', b.id);
      expect(r.status).toBe(403);
      expect(r.error?.code).toBe('42501');
    }
    const anonWrite = await anon.from('mdusers').update({ auto_topup: true }).eq('id', b.id);
    expect(anonWrite.status).toBe(401);
    // auto top-up settings and spending controls go through POST /auth/update-auto-topup and
    // /auth/spending-limits only (20261128000400_spending_controls.sql), even with a card on file
    await running.db.query('update public.mdusers set has_default_card = true where id = $1', [b.id]);
    for (const patch of [
      { auto_topup: true },
      { auto_topup: false },
      { auto_topup_amount: 20 },
      { auto_topup_min: 500 },
      { auto_topup: true, auto_topup_amount: 20, auto_topup_min: 500 },
      { monthly_spend_limit: 100 },
      { auto_topup_max_per_day: 20 },
      { auto_topup_monthly_cap: 1000 },
      { low_balance_alert_at: 100 },
    ]) {
      const r = await b.client.from('mdusers').update(patch).eq('id', b.id);
      expect(r.status, JSON.stringify(patch)).toBe(403);
      expect(r.error?.code).toBe('42501');
    }
    const own = await b.client
      .from('mdusers')
      .select('auto_topup,auto_topup_amount,auto_topup_min,auto_topup_monthly_cap,credits,plan')
      .eq('id', b.id)
      .single();
    expect(own.data).toEqual({ auto_topup: false, auto_topup_amount: 10, auto_topup_min: 250, auto_topup_monthly_cap: 500, credits: 0, plan: 'zero' });
    const insert = await b.client.from('tasks').insert({ user_id: b.id, email: b.email, type: 'imagine' });
    expect(insert.status).toBe(403);
  });

  it('writes as service_role: insert, upsert, update, delete with PostgREST statuses', async () => {
    const ins = await service.from('payments').insert({ user_id: a.id, email: a.email, plan_name: 'topup', amount: 10, provider_ref: 'ref-1' });
    expect(ins).toMatchObject({ status: 201, data: null, error: null });
    const rep = await service
      .from('payments')
      .insert([{ user_id: a.id, email: a.email, plan_name: 'topup', amount: 20, provider_ref: 'ref-2' }])
      .select('plan_name,amount,provider_ref');
    expect(rep.status).toBe(201);
    expect(rep.data).toEqual([{ plan_name: 'topup', amount: 20, provider_ref: 'ref-2' }]);
    const dup = await service.from('payments').insert({ user_id: a.id, email: a.email, plan_name: 'topup', amount: 10, provider_ref: 'ref-1' });
    expect(dup.status).toBe(409);
    expect(dup.error?.code).toBe('23505');
    const up = await service
      .from('payments')
      .upsert({ user_id: a.id, email: a.email, plan_name: 'merged', amount: 11, provider_ref: 'ref-1' }, { onConflict: 'provider_ref' })
      .select('plan_name,amount')
      .single();
    expect(up.error).toBeNull();
    expect(up.data).toEqual({ plan_name: 'merged', amount: 11 });
    const ignored = await service
      .from('payments')
      .upsert({ user_id: a.id, email: a.email, plan_name: 'ignored', amount: 1, provider_ref: 'ref-1' }, { onConflict: 'provider_ref', ignoreDuplicates: true })
      .select();
    expect(ignored.data).toEqual([]);
    const upd = await service.from('payments').update({ amount: 12 }).eq('provider_ref', 'ref-1').select('amount');
    expect(upd).toMatchObject({ status: 200, data: [{ amount: 12 }] });
    const del = await service.from('payments').delete().in('provider_ref', ['ref-1', 'ref-2']);
    expect(del).toMatchObject({ status: 204, error: null });
    const left = await running.db.query(`select 1 from public.payments where provider_ref like 'ref-%'`);
    expect(left.rows).toEqual([]);
    const single = await service.from('payments').insert([]).select().single();
    expect(single.status).toBe(406);
    const unknownCol = await service.from('payments').insert({ nope: 1 });
    expect(unknownCol.status).toBe(400);
    expect(unknownCol.error?.code).toBe('PGRST204');
  });

  it('UPDATE and DELETE without a filter are refused (safeupdate)', async () => {
    const u = await service.from('tasks').update({ note: 'all' }).select();
    expect(u.status).toBe(400);
    expect(u.error).toMatchObject({ code: '21000', message: 'UPDATE requires a WHERE clause' });
    const d = await rest('tasks', { method: 'DELETE', token: running.config.serviceRoleKey });
    expect(d.status).toBe(400);
    const count = await running.db.query<{ n: number }>('select count(*)::int as n from public.tasks');
    expect(count.rows[0].n).toBe(6);
  });

  it('JWT problems are 401 with WWW-Authenticate', async () => {
    const malformed = await rest('tasks', { token: 'not-a-jwt' });
    expect(malformed.status).toBe(401);
    expect((await malformed.json()).code).toBe('PGRST301');
    expect(malformed.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    const badSig = await rest('tasks', {
      token: await signJwt({ sub: a.id, role: 'authenticated', exp: Math.floor(Date.now() / 1000) + 60 }, 'another-secret-another-secret-another-secret'),
    });
    expect(badSig.status).toBe(401);
    expect((await badSig.json()).code).toBe('PGRST301');
    const expiredJwt = await userJwt(a.id, a.email, -120);
    const expiredClient = createClient(running.url, running.config.anonKey, {
      accessToken: async () => expiredJwt,
      realtime: { transport: WebSocket as never },
    });
    const expired = await expiredClient.from('tasks').select('*');
    expect(expired.status).toBe(401);
    expect(expired.error).toMatchObject({ code: 'PGRST303', message: 'JWT expired' });
    const stillValid = await rest('tasks?select=id', { token: await userJwt(a.id, a.email, -10) });
    expect(stillValid.status).toBe(200);
    const postgresRole = await rest('tasks', { token: await signJwt({ role: 'postgres' }, running.config.jwtSecret) });
    expect(postgresRole.status).toBe(403);
    const publishable = await fetch(`${running.url}/rest/v1/tasks?select=id`, { headers: { apikey: PUBLISHABLE_KEY } });
    expect(publishable.status).toBe(401);
    const secret = await fetch(`${running.url}/rest/v1/tasks?select=id`, { headers: { apikey: SECRET_KEY } });
    expect((await secret.json()).length).toBe(6);
    const noKey = await fetch(`${running.url}/rest/v1/tasks`);
    expect(noKey.status).toBe(401);
  });

  it('unknown column is 400 42703, unknown table 404 PGRST205, foreign schema 406 PGRST106', async () => {
    const col = await a.client.from('tasks').select('nope');
    expect(col.status).toBe(400);
    expect(col.error).toMatchObject({ code: '42703', message: 'column tasks.nope does not exist' });
    expect(Object.keys(col.error ?? {}).sort()).toEqual(['code', 'details', 'hint', 'message']);
    const filter = await a.client.from('tasks').select('id').eq('nope', 1);
    expect(filter.error?.code).toBe('42703');
    const table = await a.client.from('nope').select('*');
    expect(table.status).toBe(404);
    expect(table.error).toMatchObject({ code: 'PGRST205', message: "Could not find the table 'public.nope' in the schema cache" });
    const auth = await service.schema('auth').from('users').select('*');
    expect(auth.status).toBe(406);
    expect(auth.error?.code).toBe('PGRST106');
  });

  it('a table created after start is found (schema cache reload on miss)', async () => {
    await running.db.exec(`create table public.rest_test_late (id int primary key, label text); grant select on public.rest_test_late to authenticated;
      insert into public.rest_test_late values (1, 'late')`);
    const r = await a.client.from('rest_test_late').select('*');
    expect(r.data).toEqual([{ id: 1, label: 'late' }]);
  });

  it('hostile query strings never reach SQL unquoted and never 500', async () => {
    const paths = [
      'tasks?select=id&%22%3B%20drop%20table%20tasks%3B%20--=eq.1',
      'tasks?select=id&id%22)%3Bdrop%20table%20tasks%3B--=eq.1',
      'tasks?select=id&prompt=eq.%00',
      'tasks?select=id&id=eq.not-a-uuid',
      'tasks?select=id::text);drop%20table%20tasks;--',
      'tasks?select=id,%22x%22%22y%22',
      'tasks?select=a(b',
      'tasks?select=%22unterminated',
      'tasks?select=id&id=foo',
      'tasks?select=id&id=eq',
      'tasks?select=id&or=(a.eq.1',
      'tasks?select=id&or=)(',
      'tasks?select=id&and=(status.eq.1,or(x))',
      'tasks?select=id&order=id.sideways',
      'tasks?select=id&order=%22id%22%22;drop%20table%20tasks;--.desc',
      'tasks?select=id&limit=-1',
      'tasks?select=id&offset=abc',
      'tasks?select=id&status=in.(a,%22b',
      'tasks?select=id&status=is.maybe',
      'tasks?select=id&status=match.(((',
      'tasks?select=id&status=cs.{a',
      'tasks?select=id&embedded.order=id',
      'tasks?select=id&status=fts(x%27;drop).a',
      'tasks%22;drop%20table%20tasks;--?select=id',
      'rpc/toggle_favorite%22;drop?select=id',
      `tasks?select=id&${'x'.repeat(5000)}=eq.1`,
    ];
    for (const p of paths) {
      const res = await rest(p, { token: a.jwt });
      const text = await res.text();
      expect(res.status, `${p} → ${text}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${p} → ${text}`).toBeLessThan(500);
      expect(Object.keys(JSON.parse(text)).sort(), p).toEqual(['code', 'details', 'hint', 'message']);
    }
    const harmless = await rest("tasks?select=id&result-%3E%3E%27%3Bdrop=eq.1&prompt=eq.'%22%3B%20drop%20table%20tasks%3B%20--", { token: a.jwt });
    expect(await harmless.json()).toEqual([]);
    const bodies: [string, string, string][] = [
      ['POST', 'tasks', '{"user_id":'],
      ['POST', 'tasks', '"a string"'],
      ['POST', 'tasks', '[{"a":1},{"b":2}]'],
      ['POST', 'tasks?columns=%22a%22%22;drop', '{}'],
      ['PATCH', `tasks?id=eq.${aTasks[0]}`, '[1]'],
      ['PATCH', `tasks?id=eq.${aTasks[0]}`, '{"\\"; drop table tasks; --":1}'],
      ['POST', 'rpc/toggle_favorite', '[1,2]'],
      ['POST', 'rpc/toggle_favorite', '{"task_id":"x\'); drop table tasks; --","email":"e"}'],
    ];
    for (const [method, p, body] of bodies) {
      const res = await rest(p, { method, token: a.jwt, body, headers: { 'Content-Type': 'application/json' } });
      expect(res.status, `${method} ${p} ${body}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${method} ${p} ${body}`).toBeLessThan(500);
    }
    const put = await rest('tasks', { method: 'PUT', token: a.jwt, body: '{}' });
    expect(put.status).toBe(405);
    const survived = await running.db.query<{ n: number }>('select count(*)::int as n from public.tasks');
    expect(survived.rows[0].n).toBe(6);
  });

  it('requests do not leak role or claims into the next one', async () => {
    await a.client.from('tasks').select('id');
    const r = await running.db.query<{ u: string; c: string | null }>(
      `select current_user::text as u, nullif(current_setting('request.jwt.claims', true), '') as c`,
    );
    expect(r.rows[0]).toEqual({ u: 'postgres', c: null });
  });
});
