// What the REST benches share: the gallery's seed, our services over a Db on a loopback port,
// a throw-away PostgreSQL database, an HTTP client in a worker thread, and the statistics.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { serve } from '@hono/node-server';
import pg from 'pg';
import type { Db } from '../src/db/index.ts';
import { createLocalSupabase, defaultLocalConfig, type LocalSupabaseConfig } from '../src/index.ts';
import { startPostgres } from '../test/support/postgres-server.ts';

export type SeededUser = { id: string; email: string };

/** Task types the gallery seed cycles through: what the gallery shows and what it does not (describe, video). */
const GALLERY_BENCH_TYPES = ['imagine', 'upscale_2x', 'variation', 'video', 'reroll', 'upscale_4x', 'describe'];

/**
 * One signed-in user owning `taskCount` tasks and a second user owning a tenth as many, so RLS
 * has rows to keep out. Every 10th task has no image yet; every 13th is a favourite; one task
 * per 1.23 s going back from 2026-11-01.
 */
export async function seedGallery(
  db: Db,
  taskCount: number,
  types: readonly string[] = GALLERY_BENCH_TYPES,
): Promise<{ owner: SeededUser; other: SeededUser }> {
  const users: SeededUser[] = [];
  for (const email of ['gallery-owner@example.test', 'someone-else@example.test']) {
    const { rows } = await db.query<{ id: string }>('insert into auth.users (id, email) values (gen_random_uuid(), $1) returning id', [email]);
    users.push({ id: rows[0].id, email });
  }
  const [owner, other] = users;
  const insert = `insert into public.tasks (user_id, email, type, status, prompt, image_url, favorite, created_at)
    select $1::uuid, $2, ($4::text[])[1 + i % cardinality($4::text[])], 'success',
           'prompt ' || i, case when i % 10 = 0 then null else 'https://cdn.example.test/' || i || '.png' end, i % 13 = 0,
           timestamptz '2026-11-01 00:00:00+00' - i * interval '1.234567 second'
      from generate_series(1, $3::int) i`;
  await db.query(insert, [owner.id, owner.email, taskCount, types]);
  await db.query(insert, [other.id, other.email, Math.ceil(taskCount / 10), types]);
  await db.exec('analyze public.tasks');
  return { owner, other };
}

/** Our services (auth, rest, realtime) over `db` on a random loopback port. */
export async function startOwnServices(db: Db): Promise<{ origin: string; config: LocalSupabaseConfig; stop(): Promise<void> }> {
  const config = defaultLocalConfig({ publicUrl: 'http://127.0.0.1', embedded: false });
  const services = createLocalSupabase({ db, config, log: () => {} });
  const server = serve({ fetch: services.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', () => resolve())));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    config,
    async stop() {
      await services.close();
      server.closeAllConnections?.();
      await new Promise((r) => server.close(r));
    },
  };
}

/**
 * An empty database named `name` on a throw-away PostgreSQL (Debian's binaries), or the
 * database BENCH_DATABASE_URL names (then `name` is unused and nothing is started).
 */
export async function openBenchDatabase(name: string): Promise<{ url: string; stop(): Promise<void> }> {
  const external = process.env.BENCH_DATABASE_URL;
  if (external) return { url: external, stop: async () => {} };
  const server = await startPostgres();
  try {
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
  } catch (e) {
    await server.stop();
    throw e;
  }
  return { url: server.url.replace(/\/[^/]*$/, `/${name}`), stop: () => server.stop() };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The nearest-rank percentile `p` (0–100). */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** `encoding` and `wireBytes`: the answer's Content-Encoding and Content-Length as sent (the body is decoded). */
export type ClientAnswer = { ms: number; status: number; body: string; encoding: string | null; wireBytes: number | null };

/**
 * The HTTP client runs in a worker thread, as a browser runs apart from the server: the
 * server's thread (which is also PGlite's) pays only for serving. `get` answers the time the
 * client waited, from fetch to the last byte of the body; `burst` sends `total` GETs, at most
 * `concurrency` at a time, and answers the time from the first sent to the last body read.
 */
const CLIENT = `
const { parentPort } = require('node:worker_threads');
async function get(url, headers) {
  const t0 = performance.now();
  try {
    const res = await fetch(url, { headers });
    const body = await res.text();
    const length = res.headers.get('content-length');
    return { ms: performance.now() - t0, status: res.status, body, encoding: res.headers.get('content-encoding'), wireBytes: length === null ? null : Number(length) };
  } catch (e) {
    return { ms: 0, status: 0, body: String(e), encoding: null, wireBytes: null };
  }
}
parentPort.on('message', async ({ id, url, headers, burst }) => {
  if (!burst) return parentPort.postMessage({ id, ...(await get(url, headers)) });
  const t0 = performance.now();
  let sent = 0;
  let failed = '';
  const lane = async () => {
    while (sent < burst.total) {
      sent++;
      const r = await get(url, headers);
      if (r.status !== 200 && !failed) failed = r.status + ': ' + r.body;
    }
  };
  await Promise.all(Array.from({ length: burst.concurrency }, lane));
  parentPort.postMessage({ id, ms: performance.now() - t0, status: failed ? 0 : 200, body: failed, encoding: null, wireBytes: null });
});`;

export function startClient() {
  const worker = new Worker(CLIENT, { eval: true });
  let next = 0;
  const waiting = new Map<number, (r: ClientAnswer) => void>();
  worker.on('message', (r: ClientAnswer & { id: number }) => {
    waiting.get(r.id)?.(r);
    waiting.delete(r.id);
  });
  const ask = (message: object) =>
    new Promise<ClientAnswer>((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      worker.postMessage({ id, ...message });
    });
  return {
    get: (url: string, headers: Record<string, string>) => ask({ url, headers }),
    /** `status` is 200 when every answer was 200; otherwise `body` holds the first failure. */
    burst: (url: string, headers: Record<string, string>, total: number, concurrency: number) => ask({ url, headers, burst: { total, concurrency } }),
    stop: () => worker.terminate(),
  };
}
