import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { openPostgres, type Db } from '../src/db/index.ts';
import { signJwt } from '../src/keys.ts';
import { dropListenConnection, startLocalSupabase, testDatabaseKinds, type RunningLocalSupabase } from './support/index.ts';

async function waitFor<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// A PostgreSQL server can drop any connection (restart, failover, pg_terminate_backend, a
// network cut). node-postgres reports it as an `error` event, which kills the process when
// nobody handles it. Only the real-PostgreSQL leg has connections to lose.
for (const kind of testDatabaseKinds().filter((k) => k === 'postgres')) {
  describe(`dropped connections on ${kind}`, () => {
    let db: Db;
    let admin: pg.Client;
    let name: string;
    const logged: string[] = [];

    beforeAll(async () => {
      const adminUrl = inject('pgAdminUrl')!;
      name = `t_${randomBytes(6).toString('hex')}`;
      admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(`create database ${name}`);
      db = await openPostgres(adminUrl.replace(/\/[^/]*$/, `/${name}`), { log: (line) => logged.push(line) });
    });
    afterAll(async () => {
      await db?.close();
      await admin?.query(`drop database if exists ${name} with (force)`);
      await admin?.end();
    });

    it('listens again after its connection is terminated, and a later NOTIFY still arrives', async () => {
      const got: string[] = [];
      let reconnects = 0;
      await db.listen('aim_connection_test', (payload) => got.push(payload), { onReconnect: () => reconnects++ });
      await db.query(`select pg_notify('aim_connection_test', 'before')`);
      await waitFor(() => got.includes('before'), 'the first notification');

      await dropListenConnection(db);
      await db.query(`select pg_notify('aim_connection_test', 'after')`);
      await waitFor(() => got.includes('after'), 'a notification after the reconnection');
      expect(reconnects).toBe(1);
      expect(logged.some((l) => l.startsWith('LISTEN connection lost'))).toBe(true);

      // and again: every drop is survived, not only the first
      await dropListenConnection(db);
      await db.query(`select pg_notify('aim_connection_test', 'again')`);
      await waitFor(() => got.includes('again'), 'a notification after the second reconnection');
      expect(got).toEqual(['before', 'after', 'again']);
    });

    it('discards idle pool connections that were terminated and keeps answering', async () => {
      // several idle clients in the pool
      await Promise.all(Array.from({ length: 4 }, () => db.query('select pg_sleep(0.05)')));
      const before = logged.filter((l) => l.startsWith('idle connection lost')).length;
      const { rows } = await admin.query<{ n: number }>(
        `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
          where datname = $1 and backend_type = 'client backend' and query not ilike 'listen%'`,
        [name],
      );
      expect(rows[0].n).toBeGreaterThanOrEqual(1);
      await waitFor(() => logged.filter((l) => l.startsWith('idle connection lost')).length >= before + rows[0].n, 'the pool to notice');
      const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => db.query<{ i: number }>('select $1::int as i', [i])));
      expect(answers.map((a) => a.rows[0].i)).toEqual([0, 1, 2, 3]);
    });

    it('fails a transaction whose connection dies, and never hands that dead connection out again', async () => {
      await expect(db.transaction((tx) => tx.query('select pg_terminate_backend(pg_backend_pid())'))).rejects.toThrow();
      for (let i = 0; i < 12; i++) {
        const out = await db.transaction(async (tx) => (await tx.query<{ ok: number }>('select 1 as ok')).rows[0].ok);
        expect(out).toBe(1);
      }
    });
  });

  describe(`the realtime feed after its LISTEN connection dropped on ${kind}`, () => {
    const A = 'aaaaaaaa-3333-4333-8333-333333333333';
    let running: RunningLocalSupabase;
    let client: SupabaseClient | undefined;

    beforeAll(async () => {
      running = await startLocalSupabase(kind);
      await running.db.query(`insert into auth.users (id, email, aud, role) values ($1, 'loss@example.com', 'authenticated', 'authenticated')`, [A]);
    });
    afterAll(async () => {
      await client?.removeAllChannels();
      await running?.stop();
    });

    it('still delivers a change committed after the drop', async () => {
      const token = await signJwt(
        { sub: A, role: 'authenticated', aud: 'authenticated', email: 'loss@example.com', session_id: randomUUID(), exp: Math.floor(Date.now() / 1000) + 3600 },
        running.config.jwtSecret,
      );
      client = createClient(running.url, running.config.anonKey, { accessToken: async () => token, realtime: { transport: WebSocket as never } });
      await client.realtime.setAuth();
      const credits: number[] = [];
      const channel = client
        .channel('credits-after-drop')
        .on(
          'postgres_changes' as never,
          { event: 'UPDATE', schema: 'public', table: 'mdusers', filter: `id=eq.${A}` } as never,
          (p: { new: { credits: number } }) => credits.push(p.new.credits),
        );
      await new Promise<void>((resolve, reject) =>
        channel.subscribe((status, err) => (status === 'SUBSCRIBED' ? resolve() : status !== 'CLOSED' && reject(err ?? new Error(status)))),
      );

      await dropListenConnection(running.db);
      await running.db.query(`select public.apply_credit($1, 12, $2, 'test')`, [A, `loss:${randomUUID()}`]);
      await waitFor(() => credits.includes(12), 'the change after the drop');
      expect(credits).toEqual([12]);
    });
  });
}
