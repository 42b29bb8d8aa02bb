import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isConnectionError, openPostgres, type Db } from '../src/db/index.ts';
import { startPostgres, testDatabaseKinds, type RunningPostgres } from './support/index.ts';

async function waitFor<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('isConnectionError', () => {
  const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

  it('should tell a lost or refused connection from a wrong statement', () => {
    expect(isConnectionError(pgError('57P01', 'terminating connection due to administrator command'))).toBe(true);
    expect(isConnectionError(pgError('57P03', 'the database system is starting up'))).toBe(true);
    expect(isConnectionError(pgError('08006'))).toBe(true);
    expect(isConnectionError(new Error('connect ECONNREFUSED 127.0.0.1:5432'))).toBe(true);
    expect(isConnectionError(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionError(pgError('23505', 'duplicate key value violates unique constraint'))).toBe(false);
    expect(isConnectionError(pgError('42P01', 'relation "nope" does not exist'))).toBe(false);
    expect(isConnectionError('ECONNREFUSED')).toBe(false);
  });
});

// The PostgreSQL server restarts (an upgrade, a failover, a crash) under a process with busy
// queries, transactions, pipelines and a LISTEN connection: nothing may crash the process
// (an unhandled 57P01 would, and vitest fails the run on it), every call fails with a
// connection error while the server is away, and everything works again once it is back.
// The suite restarts its own server: the shared one serves the other suites.
for (const kind of testDatabaseKinds().filter((k) => k === 'postgres')) {
  describe(`a PostgreSQL restart on ${kind}`, () => {
    let server: RunningPostgres;
    let db: Db;
    const logged: string[] = [];

    beforeAll(async () => {
      server = await startPostgres();
      db = await openPostgres(server.url, { log: (line) => logged.push(line), max: 4 });
    });
    afterAll(async () => {
      await db?.close();
      await server?.stop();
    });

    it('is survived: calls fail as connection errors meanwhile, then work again, and LISTEN hears again', async () => {
      const heard: string[] = [];
      let reconnects = 0;
      await db.listen('aim_restart_test', (payload) => heard.push(payload), { onReconnect: () => reconnects++ });
      await db.query(`select pg_notify('aim_restart_test', 'before')`);
      await waitFor(() => heard.includes('before'), 'the first notification');

      // busy connections of every kind while the server goes down (idle ones in the pool too)
      const failures: unknown[] = [];
      let stop = false;
      const busy = [
        async () => db.query('select pg_sleep(0.02)'),
        async () => db.transaction(async (tx) => tx.query('select pg_sleep(0.02)')),
        async () => db.pipeline([{ sql: 'select pg_sleep(0.02)' }, { sql: 'select 1' }]),
      ].map(async (call) => {
        while (!stop) {
          await call().catch((error: unknown) => failures.push(error));
          await new Promise((r) => setTimeout(r, 5));
        }
      });
      await new Promise((r) => setTimeout(r, 100));
      await server.restart();
      await waitFor(async () => (await db.query<{ one: number }>('select 1 as one').catch(() => undefined))?.rows[0]?.one === 1, 'a query after the restart');
      stop = true;
      await Promise.all(busy);

      expect(failures.length).toBeGreaterThan(0);
      expect(failures.filter((e) => !isConnectionError(e))).toEqual([]);
      await db.transaction(async (tx) => tx.query('select 1'));
      expect((await db.pipeline([{ sql: 'select 2 as two' }]))[0].rows).toEqual([{ two: 2 }]);

      await waitFor(() => reconnects === 1, 'the LISTEN connection to come back');
      await db.query(`select pg_notify('aim_restart_test', 'after')`);
      await waitFor(() => heard.includes('after'), 'a notification after the restart');
      expect(logged.some((l) => l.startsWith('LISTEN connection lost'))).toBe(true);
    });
  });
}
