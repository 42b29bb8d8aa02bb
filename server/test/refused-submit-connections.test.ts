import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { createTestDb, testDatabaseKinds } from '@aim/supabase/testing';
import { createUser, expectErrorBody, post, testApp, type TestUser } from './helpers.ts';

/** The pool size createTestDb opens PostgreSQL with. */
const POOL_SIZE = 20;
const REFUSALS = 250;

// A refused submit (402: public.submit_task raises P0402) used to cost a PostgreSQL
// connection each: node-postgres's pool destroyed the client on the SQL error, so a client
// hammering the API without credits had the server fork a backend per request. The pool must
// keep its connections through refusals. Only PostgreSQL has sessions to count.
for (const kind of testDatabaseKinds().filter((k) => k === 'postgres')) {
  describe(`refused submits on ${kind}`, () => {
    let db: Db;
    let admin: pg.Client;
    let name: string;
    let user: TestUser;

    /** Sessions ever opened to the test database (each backend's count is flushed by the time it exits). */
    const sessionsOpened = async () => {
      const { rows } = await admin.query<{ n: number }>('select coalesce(sessions, 0)::int as n from pg_stat_database where datname = $1', [name]);
      return rows[0].n;
    };

    beforeAll(async () => {
      db = await createTestDb(kind);
      name = (await db.query<{ name: string }>('select current_database() as name')).rows[0].name;
      admin = new pg.Client({ connectionString: inject('pgAdminUrl' as never) as string });
      await admin.connect();
      user = await createUser(db);
      await db.query('update public.mdusers set credits = 0 where id = $1', [user.id]);
    });
    afterAll(async () => {
      await admin?.end();
      await db?.close();
    });

    it(`opens no connection per refused /pro/imagine (${REFUSALS} answered 402)`, async () => {
      const app = testApp(db);
      const before = await sessionsOpened();
      const statuses: number[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < REFUSALS) {
            next++;
            const res = await post(app, '/pro/imagine', { key: user.apiKey, json: { prompt: 'a cat' } });
            statuses.push(res.status);
            if (res.status === 402) expect((await expectErrorBody(res)).code).toBe('insufficient_credits');
          }
        }),
      );
      expect(statuses.filter((s) => s !== 402)).toEqual([]);
      expect(statuses).toHaveLength(REFUSALS);
      expect((await sessionsOpened()) - before).toBeLessThanOrEqual(POOL_SIZE);
    });
  });
}
