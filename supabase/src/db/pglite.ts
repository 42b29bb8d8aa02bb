import { PGlite } from '@electric-sql/pglite';
import type { Db, Queryable, QueryResult } from './types.ts';

// PGlite's byte count of a string parameter assumes every low surrogate follows a high one:
// with a lone surrogate the count and the bytes written disagree, and Postgres refuses the
// message as invalid UTF-8 (22021, a 500 upstream). node-postgres encodes a lone surrogate as
// U+FFFD; so do we, and both databases store the same text.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function wellFormed(param: unknown): unknown {
  if (typeof param === 'string') return param.replace(LONE_SURROGATE, '\ufffd');
  return Array.isArray(param) ? param.map(wellFormed) : param;
}

function wrap(q: Pick<PGlite, 'query' | 'exec'>): Queryable {
  return {
    async query<T>(sql: string, params: unknown[] = []): Promise<QueryResult<T>> {
      const r = await q.query<T>(sql, params.map(wellFormed) as never[]);
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
