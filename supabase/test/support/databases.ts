import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { migrate, openPglite, openPostgres, type Db } from '../../src/db/index.ts';

export type DbKind = 'pglite' | 'postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string | null;
  }
}

/** Which databases the database-facing suites run against (default: both). */
export function testDatabaseKinds(): DbKind[] {
  const env = process.env.TEST_DATABASES;
  if (!env) return ['pglite', 'postgres'];
  return env
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean) as DbKind[];
}

/**
 * A fresh, migrated database of the given kind: in-memory PGlite, or a new database on the
 * PostgreSQL server the global setup started. Each call is isolated from every other.
 */
export async function createTestDb(kind: DbKind): Promise<Db> {
  let db: Db;
  if (kind === 'pglite') {
    db = await openPglite();
  } else {
    const admin = inject('pgAdminUrl');
    if (!admin) throw new Error('no PostgreSQL test server (is test/support/global-setup.ts configured?)');
    const name = `t_${randomBytes(6).toString('hex')}`;
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query(`create database ${name}`);
    await c.end();
    const url = admin.replace(/\/[^/]*$/, `/${name}`);
    db = await openPostgres(url, { max: 20 });
    const close = db.close;
    db = Object.assign(db, {
      async close() {
        await close();
        const c2 = new pg.Client({ connectionString: admin });
        await c2.connect();
        // pool.end() resolves before its clients have gone; dropping "with (force)" then would
        // terminate them mid-goodbye (57P01 surfacing as an unhandled error). Wait for them.
        for (let i = 0; i < 50; i++) {
          const { rows } = await c2.query('select count(*)::int as n from pg_stat_activity where datname = $1', [name]);
          if (rows[0].n === 0) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        await c2.query(`drop database if exists ${name} with (force)`);
        await c2.end();
      },
    });
  }
  await migrate(db, { local: true });
  return db;
}
