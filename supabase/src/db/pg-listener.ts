/**
 * @module The LISTEN connection of a node-postgres Db: one dedicated client for every
 * channel, which survives a dropped connection (server restart, failover,
 * pg_terminate_backend, a network cut). It handles the client's `error` event (unhandled,
 * it would crash the process), reconnects with exponential backoff and jitter, LISTENs
 * again on every channel, then tells the `onReconnect` hooks, since notifications sent
 * while it was away are lost (the job queue polls; the realtime feed invalidates caches).
 */
import pg from 'pg';
import type { ListenOptions } from './types.ts';

const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5_000;

/** Delay before reconnection attempt `attempt` (0-based): doubling from 100 ms up to 5 s, half of it random. */
function retryDelayMs(attempt: number): number {
  const ceiling = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** attempt);
  return Math.round(ceiling * (0.5 + Math.random() / 2));
}

export interface PgListener {
  listen(channel: string, onPayload: (payload: string) => void, opts?: ListenOptions): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export function createPgListener(config: pg.ClientConfig, log: (line: string) => void): PgListener {
  const channels = new Map<string, Set<(payload: string) => void>>();
  const reconnectHooks = new Set<() => void>();
  /** The live client, or the attempt to get one. */
  let connection: Promise<pg.Client> | undefined;
  let client: pg.Client | undefined;
  let closed = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let wakeRetry: (() => void) | undefined;

  async function open(): Promise<pg.Client> {
    const c = new pg.Client(config);
    // before connect: an error during the handshake is an 'error' event too
    c.on('error', (error) => lost(c, error));
    c.on('end', () => lost(c, new Error('connection ended')));
    c.on('notification', (n) => {
      for (const callback of channels.get(n.channel) ?? []) callback(n.payload ?? '');
    });
    try {
      await c.connect();
      for (const channel of channels.keys()) await c.query(`listen ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      c.removeAllListeners('end');
      await c.end().catch(() => {});
      throw error;
    }
    return c;
  }

  /** Connects, retrying with backoff until it works or the listener is closed. */
  async function connect(isReconnect: boolean): Promise<pg.Client> {
    for (let attempt = 0; ; attempt++) {
      if (closed) throw new Error('the database listener is closed');
      try {
        const c = await open();
        if (closed) {
          await c.end().catch(() => {});
          throw new Error('the database listener is closed');
        }
        client = c;
        if (isReconnect) {
          log('LISTEN connection restored');
          for (const hook of reconnectHooks) hook();
        }
        return c;
      } catch (error) {
        if (closed) throw error;
        const delay = retryDelayMs(attempt);
        log(`LISTEN connection failed (${error instanceof Error ? error.message : String(error)}), retrying in ${delay} ms`);
        await new Promise<void>((resolve) => {
          wakeRetry = resolve;
          retryTimer = setTimeout(resolve, delay);
        });
      }
    }
  }

  /** The client `c` is gone: forget it and reconnect (once per client, whichever event comes first). */
  function lost(c: pg.Client, error: Error) {
    if (c !== client) return;
    client = undefined;
    c.end().catch(() => {});
    if (closed) return;
    log(`LISTEN connection lost: ${error.message}; reconnecting`);
    connection = connect(true);
    connection.catch(() => {});
  }

  function ensure(): Promise<pg.Client> {
    if (!connection) {
      connection = connect(false);
      connection.catch(() => {});
    }
    return connection;
  }

  return {
    async listen(channel, onPayload, opts = {}) {
      let callbacks = channels.get(channel);
      const isNew = !callbacks;
      if (!callbacks) {
        callbacks = new Set();
        channels.set(channel, callbacks);
      }
      callbacks.add(onPayload);
      if (opts.onReconnect) reconnectHooks.add(opts.onReconnect);
      const c = await ensure();
      if (isNew) {
        try {
          await c.query(`listen ${pg.escapeIdentifier(channel)}`);
        } catch (error) {
          // the connection dropped meanwhile: the reconnection listens on every channel
          if (c === client) throw error;
        }
      }
      return async () => {
        callbacks.delete(onPayload);
        if (opts.onReconnect) reconnectHooks.delete(opts.onReconnect);
      };
    },
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      wakeRetry?.();
      const c = client;
      client = undefined;
      await c?.end().catch(() => {});
    },
  };
}
