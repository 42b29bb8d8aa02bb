/**
 * One database interface for the two drivers we run on: PGlite (embedded, in-process, one
 * connection) and node-postgres (production and the real-PostgreSQL test leg).
 * Results are normalised: int8 → number, numeric → string, timestamptz → Date, json → value.
 */
export interface QueryResult<T = Record<string, unknown>> {
  rows: T[];
  fields: { name: string; dataTypeID: number }[];
  rowCount: number;
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
  /** Runs several statements without parameters (migrations, bootstrap SQL). */
  exec(sql: string): Promise<void>;
}

/** One statement of a pipeline: SQL with `$n` parameters, each text or null. */
export interface Statement {
  sql: string;
  params?: (string | null)[];
}

export interface ListenOptions {
  /** Called when the listening connection is back after a drop. */
  onReconnect?: () => void;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs fn in one transaction (BEGIN … COMMIT, ROLLBACK on throw). */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Sends the statements together (the extended protocol's pipeline, one Sync at the end):
   * one round trip on PostgreSQL, one call into PGlite. They run in one implicit
   * transaction, so set_config(…, true) made by one holds for the next; an error stops the
   * rest and rolls everything back. For reads: the transaction has committed when this
   * resolves, so a caller cannot roll writes back after looking at the results.
   */
  pipeline(statements: Statement[]): Promise<QueryResult[]>;
  /**
   * LISTEN on a channel; resolves to an unsubscribe function. On PostgreSQL the listening
   * connection survives drops (it reconnects with backoff and listens again); `onReconnect`
   * runs after such a recovery, since notifications sent meanwhile are lost.
   */
  listen(channel: string, onPayload: (payload: string) => void, opts?: ListenOptions): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** A Postgres error as both drivers raise it (SQLSTATE in `code`). */
export interface PgError extends Error {
  code?: string;
  detail?: string;
  hint?: string;
}

export function isPgError(e: unknown): e is PgError {
  return e instanceof Error && typeof (e as PgError).code === 'string';
}

/** SQLSTATEs of a lost or refused connection: class 08, and 57P01–57P03 (shutdown, crash, not accepting yet). */
const CONNECTION_STATES = /^(08...|57P0[123])$/;
/** Socket-level failures node-postgres raises as plain errors. */
const CONNECTION_MESSAGES =
  /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|Connection terminated|connection timeout|the database system is (shutting down|starting up)/i;

/**
 * Whether an error means the database was unreachable (a restart, a failover, a cut
 * connection) rather than that the statement was wrong: worth trying again once it is back.
 */
export function isConnectionError(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as PgError).code;
  if (typeof code === 'string' && CONNECTION_STATES.test(code)) return true;
  return CONNECTION_MESSAGES.test(e.message);
}
