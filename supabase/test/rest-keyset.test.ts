import { randomUUID } from 'node:crypto';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Db } from '../src/db/index.ts';
import { signJwt } from '../src/keys.ts';
import { createTestDb, startLocalSupabase, testDatabaseKinds, type RunningLocalSupabase } from './support/index.ts';

type Row = { id: string; type: string; created_at: string };

const COLUMNS = 'id,type,prompt,image_url,favorite,created_at';
const TYPES = 'type.in.(imagine,variation),type.like.upscale*';

// The gallery's keyset paging, exactly as the front-end gateways ask for it: the page after
// a cursor (created_at, id) is `created_at <= ts AND (created_at < ts OR id < id)`, sent as a
// second `or` next to the type filter's, with the timestamp as the API wrote it.
describe.each(testDatabaseKinds())('keyset paging through the local PostgREST on %s', (kind) => {
  let running: RunningLocalSupabase;
  let owner: { id: string; email: string; client: SupabaseClient };
  let other: { id: string; email: string; client: SupabaseClient };

  async function makeUser(email: string) {
    const id = randomUUID();
    await running.db.query('insert into auth.users (id, email) values ($1, $2)', [id, email]);
    const jwt = await signJwt(
      { sub: id, role: 'authenticated', aud: 'authenticated', email, exp: Math.floor(Date.now() / 1000) + 3600 },
      running.config.jwtSecret,
    );
    return {
      id,
      email,
      client: createClient(running.url, running.config.anonKey, { accessToken: async () => jwt, realtime: { transport: WebSocket as never } }),
    };
  }

  beforeAll(async () => {
    running = await startLocalSupabase(kind);
    owner = await makeUser(`keyset-${randomUUID()}@example.test`);
    other = await makeUser(`keyset-${randomUUID()}@example.test`);
    // microsecond timestamps, every third pair sharing one (the id breaks the tie), some
    // without an image and some of a type the gallery does not show
    for (const u of [owner, other]) {
      await running.db.query(
        `insert into public.tasks (user_id, email, type, status, image_url, created_at)
         select $1::uuid, $2, (array['imagine', 'upscale_2x', 'video', 'variation'])[1 + i % 4], 'finished',
                case when i % 5 = 0 then null else 'https://cdn.example.test/' || i || '.png' end,
                timestamptz '2026-11-20 10:00:00.123456+00' - (i / 3) * interval '1.000007 second'
           from generate_series(1, 130) i`,
        [u.id, u.email],
      );
    }
  });

  afterAll(async () => {
    await running?.stop();
  });

  function page(client: SupabaseClient, email: string, cursor?: Row) {
    let q = client.from('tasks').select(COLUMNS).eq('email', email).not('image_url', 'is', null).or(TYPES);
    if (cursor) q = q.lte('created_at', cursor.created_at).or(`created_at.lt.${cursor.created_at},id.lt.${cursor.id}`);
    return q.order('created_at', { ascending: false }).order('id', { ascending: false }).limit(25);
  }

  it('walks every gallery row once, in order, across timestamp ties, with the cursor sent back verbatim', async () => {
    const expected = await running.db.query<{ id: string }>(
      `select id from public.tasks
        where user_id = $1 and image_url is not null and (type in ('imagine', 'variation') or type like 'upscale%')
        order by created_at desc, id desc`,
      [owner.id],
    );
    const seen: string[] = [];
    let cursor: Row | undefined;
    for (let i = 0; i < 20; i++) {
      const { data, error } = await page(owner.client, owner.email, cursor);
      expect(error).toBeNull();
      const rows = data as unknown as Row[];
      if (!rows.length) break;
      seen.push(...rows.map((r) => r.id));
      cursor = rows[rows.length - 1];
      // the API's timestamps keep their microseconds; the filter gets the same text back
      expect(cursor.created_at).toMatch(/\.\d{6}\+00:00$/);
    }
    expect(seen.length).toBeGreaterThan(25);
    expect(seen).toEqual(expected.rows.map((r) => r.id));
  });

  it('the two `or` parameters are ANDed, as in PostgREST', async () => {
    const first = (await page(owner.client, owner.email)).data as unknown as Row[];
    const cursor = first[9];
    const { data, error } = await page(owner.client, owner.email, cursor);
    expect(error).toBeNull();
    const rows = data as unknown as Row[];
    expect(rows[0].id).toBe(first[10].id);
    for (const r of rows) {
      expect(['imagine', 'variation'].includes(r.type) || r.type.startsWith('upscale')).toBe(true);
      expect(r.created_at < cursor.created_at || (r.created_at === cursor.created_at && r.id < cursor.id)).toBe(true);
    }
  });

  it("never shows another user's rows, with or without a cursor", async () => {
    const mine = (await page(owner.client, owner.email)).data as unknown as Row[];
    const { data, error } = await page(other.client, owner.email, mine[3]);
    expect(error).toBeNull();
    expect(data).toEqual([]);
    const theirs = (await page(other.client, other.email, mine[3])).data as unknown as Row[];
    expect(theirs.length).toBe(25);
    const ids = new Set(mine.map((r) => r.id));
    expect(theirs.some((r) => ids.has(r.id))).toBe(false);
  });
});

describe.each(testDatabaseKinds())('row level security and pipelines on %s', (kind) => {
  let db: Db;

  beforeAll(async () => {
    db = await createTestDb(kind);
  });

  afterAll(async () => {
    await db?.close();
  });

  it('policies call auth functions once per statement (wrapped in a select), never per row', async () => {
    const { rows } = await db.query<{ table: string; policy: string; qual: string | null; with_check: string | null }>(
      `select tablename::text as table, policyname::text as policy, qual, with_check from pg_policies where schemaname = 'public'`,
    );
    expect(rows.length).toBeGreaterThanOrEqual(10);
    for (const r of rows) {
      for (const expr of [r.qual, r.with_check]) {
        if (!expr) continue;
        const bare = expr.replace(/\(\s*SELECT\s+auth\.(uid|jwt|email|role)\(\)\s+AS\s+\w+\s*\)/gi, '');
        expect(bare, `${r.table}: "${r.policy}" calls an auth function per row`).not.toMatch(/auth\.(uid|jwt|email|role)\(/i);
      }
    }
  });

  it('pipeline: one implicit transaction, settings shared, nothing left after, errors roll back', async () => {
    const [, read] = await db.pipeline([
      { sql: `select set_config('request.jwt.claims', $1, true)`, params: ['{"sub":"x"}'] },
      { sql: `select current_setting('request.jwt.claims', true) as claims, $1::int + 1 as n`, params: ['41'] },
    ]);
    expect(read.rows).toEqual([{ claims: '{"sub":"x"}', n: 42 }]);
    const after = await db.query<{ claims: string | null }>(`select current_setting('request.jwt.claims', true) as claims`);
    expect(after.rows[0].claims ?? '').toBe('');

    await db.exec('create table pipeline_probe (n int)');
    await expect(
      db.pipeline([
        { sql: 'insert into pipeline_probe values (1)' },
        { sql: 'select 1 / $1::int', params: ['0'] },
        { sql: 'insert into pipeline_probe values (2)' },
      ]),
    ).rejects.toMatchObject({ code: '22012' });
    const left = await db.query<{ n: number }>('select count(*)::int as n from pipeline_probe');
    expect(left.rows[0].n).toBe(0);
    // the connection is usable again
    const [ok] = await db.pipeline([{ sql: 'select $1::text as v', params: [null] }]);
    expect(ok.rows).toEqual([{ v: null }]);
  });
});
