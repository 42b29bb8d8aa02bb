import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isPgError, type Db } from '../src/db/index.ts';
import { createTestDb, testDatabaseKinds } from './support/index.ts';

/** The pool size createTestDb opens PostgreSQL with. */
const POOL_SIZE = 20;
const CALLS = 1_000;

/** Runs `call` CALLS times, `concurrency` at a time, and returns what each one threw. */
async function refuseMany(call: (i: number) => Promise<unknown>, concurrency = 8): Promise<unknown[]> {
  const errors: unknown[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < CALLS) {
        const i = next++;
        await call(i).then(
          () => errors.push(new Error(`call ${i} was not refused`)),
          (error: unknown) => errors.push(error),
        );
      }
    }),
  );
  return errors;
}

/** The backend pid the refusal names in its DETAIL (see `refuse` below). */
const backendPid = (error: unknown) => (isPgError(error) ? Number(error.detail) : Number.NaN);

// A refused request (a 402 raised by public.submit_task, a 401, a conflict) is an SQL error.
// node-postgres's pool destroys the client on any query error, so each refusal used to cost
// a new PostgreSQL connection (a forked backend): 1,028 refused submits opened 1,026 sessions.
// A statement's own error leaves its session as good as new; only connection errors (the
// suites db-connection-loss and db-restart) must cost the client. Only PostgreSQL has
// connections to count.
for (const kind of testDatabaseKinds().filter((k) => k === 'postgres')) {
  describe(`refused statements on ${kind}`, () => {
    let db: Db;
    let admin: pg.Client;
    let name: string;

    /** Sessions ever opened to the test database (each backend's count is flushed by the time it exits). */
    const sessionsOpened = async () => {
      const { rows } = await admin.query<{ n: number }>('select coalesce(sessions, 0)::int as n from pg_stat_database where datname = $1', [name]);
      return rows[0].n;
    };

    beforeAll(async () => {
      db = await createTestDb(kind);
      name = (await db.query<{ name: string }>('select current_database() as name')).rows[0].name;
      admin = new pg.Client({ connectionString: inject('pgAdminUrl')! });
      await admin.connect();
      // Refuses like public.submit_task does (SQLSTATE P0402), naming the backend that ran it.
      await db.exec(`
        create function public.refuse() returns void language plpgsql as $$
        begin
          raise exception using errcode = 'P0402', message = 'insufficient_credits', detail = pg_backend_pid()::text;
        end $$;
      `);
    });
    afterAll(async () => {
      await admin?.end();
      await db?.close();
    });

    it('keeps its connections through 1,000 refused queries', async () => {
      const before = await sessionsOpened();
      const errors = await refuseMany(() => db.query('select public.refuse()'));
      expect(errors.filter((e) => !isPgError(e) || e.code !== 'P0402')).toEqual([]);
      const pids = new Set(errors.map(backendPid));
      expect(pids.size).toBeLessThanOrEqual(POOL_SIZE);
      expect((await sessionsOpened()) - before).toBeLessThanOrEqual(POOL_SIZE);
      // and the connections kept still answer, outside any transaction
      const { rows } = await db.query<{ tx: number }>(
        `select (select count(*) from pg_stat_activity where datname = current_database() and state like 'idle in transaction%')::int as tx`,
      );
      expect(rows[0].tx).toBe(0);
    });

    it('keeps its connections through 1,000 refused transactions, rolled back', async () => {
      await db.exec('create table public.refused_writes (n int)');
      const before = await sessionsOpened();
      const errors = await refuseMany((i) =>
        db.transaction(async (tx) => {
          await tx.query('insert into public.refused_writes values ($1)', [i]);
          await tx.query('select public.refuse()');
        }),
      );
      expect(errors.filter((e) => !isPgError(e) || e.code !== 'P0402')).toEqual([]);
      expect(new Set(errors.map(backendPid)).size).toBeLessThanOrEqual(POOL_SIZE);
      expect((await sessionsOpened()) - before).toBeLessThanOrEqual(POOL_SIZE);
      expect((await db.query('select * from public.refused_writes')).rows).toEqual([]);
    });

    it('keeps its connections through 1,000 refused pipelines and exec calls', async () => {
      const before = await sessionsOpened();
      const errors = await refuseMany((i) =>
        i % 2 ? db.pipeline([{ sql: 'select 1' }, { sql: 'select public.refuse()' }]) : db.exec('select 1; select public.refuse()'),
      );
      expect(errors.filter((e) => !isPgError(e) || e.code !== 'P0402')).toEqual([]);
      expect(new Set(errors.map(backendPid)).size).toBeLessThanOrEqual(POOL_SIZE);
      expect((await sessionsOpened()) - before).toBeLessThanOrEqual(POOL_SIZE);
    });

    it('never hands out a session left inside a transaction by a failed statement', async () => {
      // a script that opens a transaction and fails inside it leaves the session in a failed
      // transaction block: that client must not serve the next caller (whose statement would
      // fail with 25P02, in_failed_sql_transaction)
      for (let i = 0; i < 30; i++) {
        await expect(db.exec('begin; select public.refuse()')).rejects.toMatchObject({ code: 'P0402' });
      }
      const answers = await Promise.all(Array.from({ length: POOL_SIZE }, (_, i) => db.query<{ i: number }>('select $1::int as i', [i])));
      expect(answers.map((a) => a.rows[0].i)).toEqual(Array.from({ length: POOL_SIZE }, (_, i) => i));
    });

    it('still discards a client whose statement ended its session', async () => {
      await expect(db.query('select pg_terminate_backend(pg_backend_pid())')).rejects.toThrow();
      for (let i = 0; i < POOL_SIZE * 2; i++) {
        expect((await db.query<{ one: number }>('select 1 as one')).rows[0].one).toBe(1);
      }
    });
  });
}
