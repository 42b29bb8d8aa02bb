/**
 * Realtime latency: a row change reaching a subscriber, against the round trip of the RPC
 * that makes the change, both measured in the same run. The local services run in-process
 * on 127.0.0.1 (a random port); a signed-in user subscribes with the real supabase-js to its
 * own mdusers row exactly as the dashboard's credits badge does (shared-kit/src/session.tsx),
 * and the service role calls `rpc('apply_credit')` on that row N times, one at a time.
 * For each call: rpc = request sent → answer; event = request sent → the client's
 * postgres_changes callback. On PGlite (in memory) and on PostgreSQL (a throw-away server,
 * or BENCH_DATABASE_URL).
 *
 *   pnpm bench:realtime [--iterations 200] [--warmup 30] [--subscribers 0] [--databases pglite,postgres]
 *
 * --subscribers adds that many other signed-in users, each following its own row, so the
 * feed filters every change against them too. Prints one JSON document on stdout.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { serve } from '@hono/node-server';
import { createClient, type RealtimeChannel, type SupabaseClient } from '@supabase/supabase-js';
import pg from 'pg';
import WebSocket from 'ws';
import { migrate, openPglite, openPostgres, type Db } from '../src/db/index.ts';
import { createLocalSupabase, defaultLocalConfig, signJwt, type LocalSupabaseConfig } from '../src/index.ts';
import { startPostgres } from '../test/support/postgres-server.ts';

const { values } = parseArgs({
  options: {
    iterations: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '30' },
    subscribers: { type: 'string', default: '0' },
    databases: { type: 'string', default: 'pglite,postgres' },
  },
});
const iterations = Number(values.iterations);
const warmup = Number(values.warmup);
const otherSubscribers = Number(values.subscribers);
const TARGET_P95_DIFF_MS = 20;
const EVENT_TIMEOUT_MS = 10_000;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

const round = (n: number) => Math.round(n * 100) / 100;

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const pct = (p: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]);
  return { p50Ms: pct(0.5), p95Ms: pct(0.95), maxMs: round(sorted[sorted.length - 1]) };
}

async function createUser(db: Db): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `insert into auth.users (id, email, aud, role) values (gen_random_uuid(), $1, 'authenticated', 'authenticated') returning id`,
    [`bench-${randomUUID()}@example.test`],
  );
  return rows[0].id;
}

/** A client signed in as `userId` (a JWT minted with the project's secret, as GoTrue would issue). */
async function userClient(url: string, config: LocalSupabaseConfig, userId: string): Promise<SupabaseClient> {
  const token = await signJwt(
    { sub: userId, role: 'authenticated', aud: 'authenticated', session_id: randomUUID(), exp: Math.floor(Date.now() / 1000) + 3600 },
    config.jwtSecret,
  );
  const client = createClient(url, config.anonKey, {
    accessToken: async () => token,
    realtime: { transport: WebSocket as never },
  });
  // supabase-js fetches the token asynchronously; a channel joined before that joins as anon
  await client.realtime.setAuth();
  return client;
}

/** The dashboard's subscription to its own mdusers row; `onCredits` gets each new balance. */
function followRow(client: SupabaseClient, userId: string, onCredits: (credits: number) => void): Promise<RealtimeChannel> {
  return new Promise((resolve, reject) => {
    const channel = client
      .channel(`mdusers:${userId}`)
      .on('postgres_changes', { event: 'UPDATE', schema: 'public', table: 'mdusers', filter: `id=eq.${userId}` }, (payload) => {
        onCredits((payload.new as { credits: number }).credits);
      })
      .subscribe((status, err) => {
        if (status === 'SUBSCRIBED') resolve(channel);
        else if (status !== 'CLOSED') reject(err ?? new Error(`realtime subscription: ${status}`));
      });
  });
}

async function benchOne(kind: 'pglite' | 'postgres', db: Db) {
  await migrate(db, { local: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = defaultLocalConfig({ publicUrl: url, embedded: true });
  const services = createLocalSupabase({ db, config, log: (line) => console.error(line) });
  const server = serve({ fetch: services.fetch, port, hostname: '127.0.0.1' }) as Server;
  services.attachRealtime(server);
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', () => resolve())));

  const clients: SupabaseClient[] = [];
  try {
    const userId = await createUser(db);
    const service = createClient(url, config.serviceRoleKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      realtime: { transport: WebSocket as never },
    });
    clients.push(service);

    for (let i = 0; i < otherSubscribers; i++) {
      const otherId = await createUser(db);
      const other = await userClient(url, config, otherId);
      clients.push(other);
      await followRow(other, otherId, () => {});
    }

    // balance → when its change event arrived (performance.now())
    const arrived = new Map<number, number>();
    const waiters = new Map<number, () => void>();
    const user = await userClient(url, config, userId);
    clients.push(user);
    await followRow(user, userId, (credits) => {
      arrived.set(credits, performance.now());
      waiters.get(credits)?.();
    });

    const rpc: number[] = [];
    const event: number[] = [];
    const diff: number[] = [];
    for (let i = 0; i < warmup + iterations; i++) {
      const t0 = performance.now();
      const { data, error } = await service.rpc('apply_credit', {
        p_user_id: userId,
        p_delta: 1,
        p_source_key: `bench:${randomUUID()}`,
        p_reason: 'realtime bench',
      });
      const t1 = performance.now();
      if (error) throw new Error(`rpc apply_credit: ${error.message} (${error.code})`);
      const balance = data as number;
      if (!arrived.has(balance)) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no change event for balance ${balance} within ${EVENT_TIMEOUT_MS} ms`)), EVENT_TIMEOUT_MS);
          waiters.set(balance, () => {
            clearTimeout(timer);
            resolve();
          });
        });
        waiters.delete(balance);
      }
      const t2 = arrived.get(balance)!;
      arrived.delete(balance);
      if (i < warmup) continue;
      rpc.push(t1 - t0);
      event.push(t2 - t0);
      diff.push(t2 - t0 - (t1 - t0));
    }

    const rpcStats = stats(rpc);
    const eventStats = stats(event);
    const p95DiffMs = round(eventStats.p95Ms - rpcStats.p95Ms);
    return {
      database: kind,
      rpc: rpcStats,
      event: eventStats,
      /** per call: event − rpc (negative: the event came before the RPC's answer) */
      eventAfterRpc: stats(diff),
      p95DiffMs,
      eventVsRpcP95: round(eventStats.p95Ms / rpcStats.p95Ms),
      targetMet: p95DiffMs <= TARGET_P95_DIFF_MS,
    };
  } finally {
    for (const c of clients) await c.removeAllChannels();
    await services.close();
    server.closeAllConnections?.();
    await new Promise((resolve) => server.close(resolve));
  }
}

async function main() {
  const kinds = values.databases.split(',').map((s) => s.trim()) as ('pglite' | 'postgres')[];
  const results = [];
  for (const kind of kinds) {
    if (kind === 'pglite') {
      const db = await openPglite();
      try {
        results.push(await benchOne(kind, db));
      } finally {
        await db.close();
      }
      continue;
    }
    const external = process.env.BENCH_DATABASE_URL;
    const server = external ? undefined : await startPostgres();
    const adminUrl = external ?? server!.url;
    const name = `bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const db = await openPostgres(adminUrl.replace(/\/[^/]*$/, `/${name}`), { max: 10 });
    try {
      results.push(await benchOne(kind, db));
    } finally {
      await db.close();
      await new Promise((resolve) => setTimeout(resolve, 200));
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
      await server?.stop();
    }
  }
  console.log(
    JSON.stringify(
      {
        bench: 'realtime',
        node: process.version,
        cpus: os.cpus().length,
        iterations,
        warmup,
        otherSubscribers,
        note: "rpc = service-role rpc('apply_credit') request sent → answer; event = same request sent → the subscriber's postgres_changes callback (mdusers UPDATE, filter id=eq.<id>, as the credits badge); target: event p95 − rpc p95 ≤ 20 ms",
        targetP95DiffMs: TARGET_P95_DIFF_MS,
        results,
      },
      null,
      2,
    ),
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
