import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { serve } from '@hono/node-server';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { createLocalSupabase, defaultLocalConfig, type LocalSupabase, type LocalSupabaseConfig } from '../../src/index.ts';
import type { Db } from '../../src/db/index.ts';
import { createTestDb, type DbKind } from './databases.ts';

export interface RunningLocalSupabase {
  url: string;
  db: Db;
  services: LocalSupabase;
  config: LocalSupabaseConfig;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/**
 * The local services on a real loopback port over a fresh database of the given kind, as a
 * test's server, in embedded mode (/_dev mounted). Captcha is on unless overridden (tests
 * solve the ALTCHA challenge).
 */
export async function startLocalSupabase(kind: DbKind, overrides: Partial<LocalSupabaseConfig> = {}): Promise<RunningLocalSupabase> {
  const db = await createTestDb(kind);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = defaultLocalConfig({ publicUrl: url, siteUrl: 'http://localhost:3000', embedded: true, ...overrides });
  const lines: string[] = [];
  const services = createLocalSupabase({ db, config, log: (l) => lines.push(l) });
  const server = serve({ fetch: services.fetch, port, hostname: '127.0.0.1' }) as Server;
  services.attachRealtime(server);
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', () => resolve())));
  return {
    url,
    db,
    services,
    config,
    async stop() {
      await services.close();
      server.closeAllConnections?.();
      await new Promise((r) => server.close(r));
      await db.close();
    },
  };
}

/** A memory storage so several clients in one Node process do not share a session. */
export function memoryStorage() {
  const m = new Map<string, string>();
  return {
    getItem: (k: string) => m.get(k) ?? null,
    setItem: (k: string, v: string) => void m.set(k, v),
    removeItem: (k: string) => void m.delete(k),
  };
}

/** The real supabase-js client against the local services (Node: ws as WebSocket). */
export function makeClient(url: string, key: string, opts: { flowType?: 'pkce' | 'implicit' } = {}): SupabaseClient {
  return createClient(url, key, {
    auth: { flowType: opts.flowType ?? 'pkce', storage: memoryStorage(), persistSession: true, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never },
  });
}
