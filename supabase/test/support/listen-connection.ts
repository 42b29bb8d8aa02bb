import type { Db } from '../../src/db/index.ts';

/** The backends of this database whose last statement was a LISTEN (the listening connection). */
async function listenBackends(db: Db): Promise<number[]> {
  const { rows } = await db.query<{ pid: number }>(
    `select pid from pg_stat_activity where datname = current_database() and query ilike 'listen%' and state = 'idle'`,
  );
  return rows.map((r) => r.pid);
}

async function until(probe: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Terminates the LISTEN connection of a PostgreSQL Db as an operator or a failover would
 * (`pg_terminate_backend`), then waits until a new one is listening.
 */
export async function dropListenConnection(db: Db): Promise<void> {
  let before: number[] = [];
  await until(async () => {
    before = await listenBackends(db);
    return before.length > 0;
  }, 'a LISTEN backend');
  await db.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query ilike 'listen%' and state = 'idle'`);
  await until(async () => {
    const pids = await listenBackends(db);
    return pids.length > 0 && pids.every((pid) => !before.includes(pid));
  }, 'the LISTEN connection to come back');
}
