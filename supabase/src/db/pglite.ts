import { PGlite } from '@electric-sql/pglite';
import type { Db, Queryable, QueryResult } from './types.ts';

function wrap(q: Pick<PGlite, 'query' | 'exec'>): Queryable {
  return {
    async query<T>(sql: string, params: unknown[] = []): Promise<QueryResult<T>> {
      const r = await q.query<T>(sql, params as never[]);
      return { rows: r.rows, fields: r.fields, rowCount: r.affectedRows ?? r.rows.length };
    },
    async exec(sql: string) {
      await q.exec(sql);
    },
  };
}

/** Opens (or creates) a PGlite database. `dataDir` undefined → in memory. */
export async function openPglite(dataDir?: string): Promise<Db> {
  const pg = await PGlite.create(dataDir ? { dataDir } : {});
  const base = wrap(pg);
  return {
    kind: 'pglite',
    ...base,
    transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))),
    async listen(channel, onPayload) {
      const unsub = await pg.listen(channel, onPayload);
      return async () => {
        await unsub();
      };
    },
    close: () => pg.close(),
  };
}
