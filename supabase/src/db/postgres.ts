import pg from 'pg';
import { createPgListener } from './pg-listener.ts';
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

/**
 * Connects to a real PostgreSQL (production, and the second test leg). A dropped connection
 * never crashes the process: the pool discards a broken idle client (its `error` is logged),
 * a transaction whose connection died fails and its client is destroyed rather than reused,
 * and LISTEN reconnects by itself (pg-listener.ts).
 */
export async function openPostgres(connectionString: string, opts: { max?: number; log?: (line: string) => void } = {}): Promise<Db> {
  const log = opts.log ?? ((line: string) => console.error(`[db] ${line}`));
  const pool = new pg.Pool({ connectionString, max: opts.max ?? 10, types });
  // Emitted for an idle client whose connection dropped; unhandled, it would crash the process.
  pool.on('error', (error) => log(`idle connection lost: ${error.message}`));
  // Fail fast on a bad URL instead of at the first request.
  const probe = await pool.connect();
  probe.release();
  const listener = createPgListener({ connectionString, types } as pg.ClientConfig, log);
  return {
    kind: 'postgres',
    ...wrap(pool),
    async transaction(fn) {
      const client = await pool.connect();
      // a checked-out client has no pool handler: its connection dropping must not crash us
      let broken: Error | undefined;
      const onError = (error: Error) => {
        broken = error;
      };
      client.on('error', onError);
      try {
        await client.query('begin');
        const out = await fn(wrap(client));
        await client.query('commit');
        return out;
      } catch (e) {
        if (!broken) {
          await client.query('rollback').catch((error: Error) => {
            broken = error;
          });
        }
        throw e;
      } finally {
        client.removeListener('error', onError);
        // an Error destroys the client instead of handing a dead connection to the next caller
        client.release(broken);
      }
    },
    listen: (channel, onPayload, listenOpts) => listener.listen(channel, onPayload, listenOpts),
    async close() {
      await listener.close();
      await pool.end();
    },
  };
}
