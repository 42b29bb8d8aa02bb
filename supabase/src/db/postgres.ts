import pg from 'pg';
import type { Db, Queryable, QueryResult } from './types.ts';

// int8 as a JS number (ids, counts, credits stay far below 2^53), like PGlite does.
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20) return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

function wrap(c: Pick<pg.PoolClient, 'query'>): Queryable {
  return {
    async query<T>(sql: string, params: unknown[] = []): Promise<QueryResult<T>> {
      const r = await c.query({ text: sql, values: params, types } as pg.QueryConfig);
      return { rows: r.rows as T[], fields: r.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })), rowCount: r.rowCount ?? 0 };
    },
    async exec(sql: string) {
      await c.query(sql);
    },
  };
}

/** Connects to a real PostgreSQL (production, and the second test leg). */
export async function openPostgres(connectionString: string, opts: { max?: number } = {}): Promise<Db> {
  const pool = new pg.Pool({ connectionString, max: opts.max ?? 10, types });
  // Fail fast on a bad URL instead of at the first request.
  const probe = await pool.connect();
  probe.release();
  const listeners = new Map<string, Set<(p: string) => void>>();
  let listenClient: pg.PoolClient | undefined;
  let listenClientPromise: Promise<pg.PoolClient> | undefined;
  const getListenClient = () => {
    listenClientPromise ??= pool.connect().then((c) => {
      listenClient = c;
      c.on('notification', (n) => {
        for (const cb of listeners.get(n.channel) ?? []) cb(n.payload ?? '');
      });
      return c;
    });
    return listenClientPromise;
  };
  return {
    kind: 'postgres',
    ...wrap(pool),
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const out = await fn(wrap(client));
        await client.query('commit');
        return out;
      } catch (e) {
        await client.query('rollback').catch(() => {});
        throw e;
      } finally {
        client.release();
      }
    },
    async listen(channel, onPayload) {
      const c = await getListenClient();
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
        await c.query(`listen ${pg.escapeIdentifier(channel)}`);
      }
      set.add(onPayload);
      return async () => {
        set.delete(onPayload);
      };
    },
    async close() {
      listenClient?.release();
      await pool.end();
    },
  };
}
