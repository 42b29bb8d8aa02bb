import pg from 'pg';
import { createDrain } from './drain.ts';
import { createPgListener } from './pg-listener.ts';
import { isConnectionError, type Db, type Queryable, type QueryResult, type Statement } from './types.ts';

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
 * SQLSTATE classes after which a session is not worth keeping: a lost connection (08), an
 * operator intervention (57P: shutdown, crash, not accepting yet), no resources left (53), a
 * system or internal error (58, XX).
 */
const SESSION_ENDING_STATES = /^(08|57P|53|58|XX)/;

/** What node-postgres keeps about its session, not in its types (8.23: set from each ReadyForQuery). */
interface PgSessionState {
  readyForQuery: boolean;
  _queryable: boolean;
  _ended: boolean;
  _txStatus?: string | null;
  connection: {
    once(event: string, listener: (msg?: { status?: string }) => void): void;
    removeListener(event: string, listener: (...args: never[]) => void): void;
  };
}

/**
 * The session's transaction status once its current statement has ended: 'I' idle, 'T' in a
 * transaction, 'E' in a failed one, undefined when unknown or the connection ended. An error
 * arrives before its statement's ReadyForQuery (the message carrying that status), so this
 * may wait for it, one message away.
 */
function settledTxStatus(client: pg.PoolClient): Promise<string | undefined> {
  const c = client as unknown as PgSessionState;
  if (!c._queryable || c._ended) return Promise.resolve(undefined);
  if (c.readyForQuery) return Promise.resolve(c._txStatus ?? undefined);
  return new Promise((resolve) => {
    const onReady = (msg?: { status?: string }) => done(msg?.status);
    const onEnd = () => done(undefined);
    const done = (status: string | undefined) => {
      c.connection.removeListener('readyForQuery', onReady);
      c.connection.removeListener('end', onEnd);
      resolve(status);
    };
    c.connection.once('readyForQuery', onReady);
    c.connection.once('end', onEnd);
  });
}

/**
 * Whether the client can serve the next caller after `error` ended its work: yes when the
 * server refused a statement (a RAISE, a check, a conflict: the refusals the API answers
 * 4xx with, by the thousand) and the session is back to idle; no when the connection was
 * lost, the server ended or is ending the session, or its state is unknown. A refused
 * request must not cost a new connection (node-postgres's `pool.query` destroys the client
 * on any error: one new PostgreSQL backend forked per 402).
 */
async function isReusableAfter(client: pg.PoolClient, error: unknown, opts: { serverErrorsOnly: boolean }): Promise<boolean> {
  if (isConnectionError(error)) return false;
  if (error instanceof pg.DatabaseError) {
    if (error.severity === 'FATAL' || error.severity === 'PANIC') return false;
    if (SESSION_ENDING_STATES.test(error.code ?? '')) return false;
  } else if (opts.serverErrorsOnly) {
    return false;
  }
  return (await settledTxStatus(client)) === 'I';
}

/**
 * Runs `fn` on a client checked out of `pool`. A checked-out client has no pool handler, so its
 * connection dropping must not crash the process: the error is kept, and a client that broke
 * (or that `fn` marked broken) is destroyed on release instead of handed to the next caller.
 * When `fn` fails, the client goes back to the pool only if `isReusableAfter` the error
 * (`serverErrorsOnly`: only after an error the server sent; otherwise after any error once
 * `fn` restored the session, a transaction's ROLLBACK).
 */
async function withClient<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient, conn: { readonly broken: Error | undefined; markBroken: (error: Error) => void }) => Promise<T>,
  opts: { serverErrorsOnly: boolean } = { serverErrorsOnly: true },
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const markBroken = (error: Error) => {
    broken = error;
  };
  client.on('error', markBroken);
  let failed: { error: unknown } | undefined;
  try {
    return await fn(client, {
      get broken() {
        return broken;
      },
      markBroken,
    });
  } catch (error) {
    failed = { error };
    throw error;
  } finally {
    if (failed && !broken && !(await isReusableAfter(client, failed.error, opts))) {
      broken = failed.error instanceof Error ? failed.error : new Error(String(failed.error));
    }
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
 * again: callers retry with backoff. A statement the server refuses (a RAISE, a conflict) gives
 * its client back to the pool: only a broken session is replaced. An idle connection is kept
 * for `idleTimeoutMs` (default 5 minutes; node-postgres's own 10 s would close a quiet
 * process's connections between two bursts and open new sessions for the next, a PostgreSQL
 * fork each). `close()` first waits for the calls in flight and for
 * those their handlers start right after (a task event handler writing its outbox row), so
 * a graceful stop never ends the pool under them.
 */
export async function openPostgres(
  connectionString: string,
  opts: { max?: number; log?: (line: string) => void; closeTimeoutMs?: number; idleTimeoutMs?: number } = {},
): Promise<Db> {
  const log = opts.log ?? ((line: string) => console.error(`[db] ${line}`));
  const pool = new pg.Pool({ connectionString, max: opts.max ?? 10, types, connectionTimeoutMillis: 10_000, idleTimeoutMillis: opts.idleTimeoutMs ?? 300_000 });
  // Emitted for an idle client whose connection dropped; unhandled, it would crash the process.
  pool.on('error', (error) => log(`idle connection lost: ${error.message}`));
  // Fail fast on a bad URL instead of at the first request.
  const probe = await pool.connect();
  probe.release();
  const listener = createPgListener({ connectionString, types } as pg.ClientConfig, log);

  const drain = createDrain();
  const tracked = drain.track;

  let closing: Promise<void> | undefined;
  return {
    kind: 'postgres',
    // Not pool.query: it destroys the client on any error, a refused statement included.
    query: (sql, params) => tracked(() => withClient(pool, (client) => wrap(client).query(sql, params))),
    exec: (sql) => tracked(() => withClient(pool, (client) => wrap(client).exec(sql))),
    transaction: (fn) =>
      tracked(() =>
        withClient(
          pool,
          async (client, conn) => {
            try {
              await client.query('begin');
              const out = await fn(wrap(client));
              await client.query('commit');
              return out;
            } catch (e) {
              if (!conn.broken) await client.query('rollback').catch(conn.markBroken);
              throw e;
            }
          },
          { serverErrorsOnly: false },
        ),
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
