import { parse, PGlite, protocol } from '@electric-sql/pglite';
import { createDrain } from './drain.ts';
import type { Db, Queryable, QueryResult, Statement } from './types.ts';

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

/**
 * The statements as one protocol message (Parse, Bind, Describe, Execute each, then one
 * Sync), run in one call under both of PGlite's locks, as its own query() is.
 */
async function pipeline(pg: PGlite, statements: Statement[]): Promise<QueryResult[]> {
  const parts: Uint8Array[] = [];
  for (const s of statements) {
    parts.push(protocol.serialize.parse({ text: s.sql, types: [] }));
    parts.push(protocol.serialize.bind({ values: (s.params ?? []).map((v) => (v === null ? null : (wellFormed(v) as string))) }));
    parts.push(protocol.serialize.describe({ type: 'P' }));
    parts.push(protocol.serialize.execute({}));
  }
  parts.push(protocol.serialize.sync());
  const message = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    message.set(p, at);
    at += p.length;
  }
  // throws the first error; the Sync has run by then, which ended the implicit transaction
  const { messages } = await pg._runExclusiveTransaction(() => pg._runExclusiveQuery(() => pg.execProtocol(message)));
  return parse
    .parseResults(messages, pg.parsers)
    .map((r) => ({ rows: r.rows as Record<string, unknown>[], fields: r.fields, rowCount: (r as { rowCount?: number }).rowCount ?? r.rows.length }));
}

/**
 * Opens (or creates) a PGlite database. `dataDir` undefined → in memory. `close()` first waits
 * for the calls in flight and for those their handlers start (drain.ts).
 */
export async function openPglite(dataDir?: string): Promise<Db> {
  const pg = await PGlite.create(dataDir ? { dataDir } : {});
  const base = wrap(pg);
  const drain = createDrain();
  let closing: Promise<void> | undefined;
  return {
    kind: 'pglite',
    query: (sql, params) => drain.track(() => base.query(sql, params)),
    exec: (sql) => drain.track(() => base.exec(sql)),
    transaction: (fn) => drain.track(() => pg.transaction((tx) => fn(wrap(tx)))),
    pipeline: (statements) => drain.track(() => pipeline(pg, statements)),
    async listen(channel, onPayload) {
      const unsub = await pg.listen(channel, onPayload);
      return async () => {
        await unsub();
      };
    },
    close() {
      closing ??= (async () => {
        await drain.settle(10_000, (n) => console.error(`[db] closing PGlite with ${n} call(s) still in flight`));
        await pg.close();
      })();
      return closing;
    },
  };
}
