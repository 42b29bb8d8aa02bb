import pg from 'pg';
import { createDrain } from './drain.ts';
import { createPgListener } from './pg-listener.ts';
import type { Db, Queryable, QueryResult, Statement } from './types.ts';

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

/** What node-postgres hands a custom query (a "Submittable", as pg-cursor uses). */
interface PgConnection {
  parse(query: { text: string; types: number[] }): void;
  bind(config: { values: (string | null)[] }): void;
  describe(msg: { type: 'P' }): void;
  execute(config: { rows: number }): void;
  sync(): void;
  sendCopyFail(message: string): void;
}

interface PgField {
  name: string;
  dataTypeID: number;
}

/**
 * The statements sent at once (Parse, Bind, Describe, Execute each, then one Sync): one round
 * trip, one implicit transaction. The client calls these handlers as the replies arrive and
 * runs nothing else on the connection until ReadyForQuery.
 */
class Pipeline {
  private readonly results: QueryResult[] = [];
  private fields: PgField[] = [];
  private parsers: ((v: string) => unknown)[] = [];
  private rows: Record<string, unknown>[] = [];
  private settled = false;

  constructor(
    private readonly statements: Statement[],
    private readonly resolve: (results: QueryResult[]) => void,
    private readonly reject: (error: Error) => void,
  ) {}

  submit(connection: PgConnection) {
    for (const s of this.statements) {
      connection.parse({ text: s.sql, types: [] });
      connection.bind({ values: s.params ?? [] });
      connection.describe({ type: 'P' });
      connection.execute({ rows: 0 });
    }
    connection.sync();
  }

  handleRowDescription(msg: { fields: PgField[] }) {
    this.fields = msg.fields;
    this.parsers = msg.fields.map((f) => types.getTypeParser(f.dataTypeID, 'text') as (v: string) => unknown);
  }

  handleDataRow(msg: { fields: (string | null)[] }) {
    const row: Record<string, unknown> = {};
    msg.fields.forEach((v, i) => {
      row[this.fields[i].name] = v === null ? null : this.parsers[i](v);
    });
    this.rows.push(row);
  }

  handleCommandComplete(msg: { text: string }) {
    const count = Number.parseInt(msg.text.slice(msg.text.lastIndexOf(' ') + 1), 10);
    this.results.push({
      rows: this.rows,
      fields: this.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
      rowCount: Number.isNaN(count) ? this.rows.length : count,
    });
    this.fields = [];
    this.parsers = [];
    this.rows = [];
  }

  handleEmptyQuery() {
    this.results.push({ rows: [], fields: [], rowCount: 0 });
  }

  handlePortalSuspended() {}

  handleCopyInResponse(connection: PgConnection) {
    connection.sendCopyFail('COPY is not supported in a pipeline');
  }

  handleCopyData() {}

  /** A database error (the server skips to the Sync, rolling back) or a lost connection. */
  handleError(error: Error) {
    if (this.settled) return;
    this.settled = true;
    this.reject(error);
  }

  handleReadyForQuery() {
    if (this.settled) return;
    this.settled = true;
    this.resolve(this.results);
  }
}

/**
 * Runs `fn` on a client checked out of `pool`. A checked-out client has no pool handler, so its
 * connection dropping must not crash the process: the error is kept, and a client that broke
 * (or that `fn` marked broken) is destroyed on release instead of handed to the next caller.
 */
async function withClient<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient, conn: { readonly broken: Error | undefined; markBroken: (error: Error) => void }) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const markBroken = (error: Error) => {
    broken = error;
  };
  client.on('error', markBroken);
  try {
    return await fn(client, {
      get broken() {
        return broken;
      },
      markBroken,
    });
  } finally {
    client.removeListener('error', markBroken);
    client.release(broken);
  }
}

/**
 * Connects to a real PostgreSQL (production, and the second test leg). A dropped connection
 * never crashes the process: the pool discards a broken idle client (its `error` is logged),
 * a transaction whose connection died fails and its client is destroyed rather than reused,
 * and LISTEN reconnects by itself (pg-listener.ts). While the server is away (a restart) each
 * call fails fast with a connection error (`isConnectionError`) and the next one connects
 * again: callers retry with backoff. `close()` first waits for the calls in flight and for
 * those their handlers start right after (a task event handler writing its outbox row), so
 * a graceful stop never ends the pool under them.
 */
export async function openPostgres(connectionString: string, opts: { max?: number; log?: (line: string) => void; closeTimeoutMs?: number } = {}): Promise<Db> {
  const log = opts.log ?? ((line: string) => console.error(`[db] ${line}`));
  const pool = new pg.Pool({ connectionString, max: opts.max ?? 10, types, connectionTimeoutMillis: 10_000 });
  // Emitted for an idle client whose connection dropped; unhandled, it would crash the process.
  pool.on('error', (error) => log(`idle connection lost: ${error.message}`));
  // Fail fast on a bad URL instead of at the first request.
  const probe = await pool.connect();
  probe.release();
  const listener = createPgListener({ connectionString, types } as pg.ClientConfig, log);

  const drain = createDrain();
  const tracked = drain.track;

  const base = wrap(pool);
  let closing: Promise<void> | undefined;
  return {
    kind: 'postgres',
    query: (sql, params) => tracked(() => base.query(sql, params)),
    exec: (sql) => tracked(() => base.exec(sql)),
    transaction: (fn) =>
      tracked(() =>
        withClient(pool, async (client, conn) => {
          try {
            await client.query('begin');
            const out = await fn(wrap(client));
            await client.query('commit');
            return out;
          } catch (e) {
            if (!conn.broken) await client.query('rollback').catch(conn.markBroken);
            throw e;
          }
        }),
      ),
    pipeline: (statements) =>
      tracked(() =>
        withClient(
          pool,
          (client) =>
            new Promise<QueryResult[]>((resolve, reject) => {
              client.query(new Pipeline(statements, resolve, reject) as never);
            }),
        ),
      ),
    listen: (channel, onPayload, listenOpts) => listener.listen(channel, onPayload, listenOpts),
    close() {
      closing ??= (async () => {
        await drain.settle(opts.closeTimeoutMs ?? 10_000, (n) => log(`closing with ${n} call(s) still in flight`));
        await listener.close();
        await pool.end();
      })();
      return closing;
    },
  };
}
