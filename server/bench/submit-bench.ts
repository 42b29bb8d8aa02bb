/**
 * Submit throughput: POST /pro/imagine through the whole API (auth, validation, price,
 * hold + task + job in one transaction) against a baseline measured in the same run: a
 * bare transaction that applies the same ledger hold and inserts the same task row.
 * On PGlite (in memory) and on PostgreSQL (a throw-away server, or BENCH_DATABASE_URL).
 * No worker runs: only the submit path is measured.
 *
 *   npx tsx bench/submit-bench.ts [--requests 400] [--concurrency 16] [--users 8] [--databases pglite,postgres]
 *
 * Prints one JSON document on stdout.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { migrate, openPglite, openPostgres, type Db } from '@aim/supabase/db';
import { startPostgres } from '../../supabase/test/support/postgres-server.ts';
import { createApiApp } from '../src/app.ts';
import { createLocalEngine } from '../src/engines/local/index.ts';
import { createEngineRegistry } from '../src/services/tasks/engine-registry.ts';
import { createDiskMediaStore } from '../src/storage/disk-media-store.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '400' },
    concurrency: { type: 'string', default: '16' },
    users: { type: 'string', default: '8' },
    databases: { type: 'string', default: 'pglite,postgres' },
  },
});
const requests = Number(values.requests);
const concurrency = Number(values.concurrency);
const userCount = Number(values.users);

interface User {
  id: string;
  email: string;
  apiKey: string;
}

async function createUsers(db: Db): Promise<User[]> {
  const users: User[] = [];
  for (let i = 0; i < userCount; i++) {
    const email = `bench-${randomUUID()}@example.test`;
    const { rows } = await db.query<{ id: string }>('insert into auth.users (id, email) values (gen_random_uuid(), $1) returning id', [email]);
    const key = await db.query<{ api_key: string }>('select api_key from public.mdusers where id = $1', [rows[0].id]);
    await db.query('select public.apply_credit($1, $2, $3, $4)', [rows[0].id, 1_000_000, `grant:${randomUUID()}`, 'bench']);
    users.push({ id: rows[0].id, email, apiKey: key.rows[0].api_key });
  }
  return users;
}

/** Runs `total` calls of `one` with `concurrency` in flight; answers the throughput and latency percentiles. */
async function measure(total: number, one: (i: number) => Promise<void>) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const t0 = performance.now();
        await one(i);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = performance.now() - started;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] * 100) / 100;
  return { requests: total, totalMs: Math.round(elapsed), perSecond: Math.round((total / elapsed) * 1000), p50Ms: pct(0.5), p95Ms: pct(0.95) };
}

async function benchOne(kind: 'pglite' | 'postgres', db: Db) {
  await migrate(db, { local: true });
  const mediaDir = await mkdtemp(path.join(os.tmpdir(), 'aim-bench-media-'));
  const app = createApiApp({
    db,
    config: { embedded: true, publicUrl: 'http://localhost:8080', corsOrigins: [] },
    log: { info: () => {}, error: (msg, fields) => console.error(msg, fields) },
    media: createDiskMediaStore({ dir: mediaDir, publicUrl: 'http://localhost:8080' }),
    engines: createEngineRegistry([createLocalEngine()]),
  });
  const users = await createUsers(db);

  // warm-up: JIT, prepared plans, pool connections
  for (let i = 0; i < 20; i++) {
    const u = users[i % users.length];
    await app.request('/pro/imagine', { method: 'POST', headers: { authorization: u.apiKey, 'content-type': 'application/json' }, body: '{"prompt":"warm"}' });
  }

  const api = await measure(requests, async (i) => {
    const u = users[i % users.length];
    const res = await app.request('/pro/imagine', {
      method: 'POST',
      headers: { authorization: u.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: `bench prompt ${i}` }),
    });
    if (res.status !== 200) throw new Error(`submit answered ${res.status}: ${await res.text()}`);
  });

  const baseline = await measure(requests, async (i) => {
    const u = users[i % users.length];
    const id = randomUUID();
    await db.transaction(async (tx) => {
      await tx.query('select public.apply_credit($1, $2, $3, $4, $5)', [u.id, -4, `hold:${id}`, 'hold imagine', id]);
      await tx.query(`insert into public.tasks (id, user_id, email, type, status, cost, prompt) values ($1, $2, $3, 'imagine', 'pending', 4, $4)`, [
        id,
        u.id,
        u.email,
        `bench prompt ${i}`,
      ]);
    });
  });

  const { rows } = await db.query<{ bad: number }>(
    `select count(*)::int as bad from public.mdusers u
      where u.credits <> (select coalesce(sum(delta), 0) from public.credit_ledger l where l.user_id = u.id)`,
  );
  await rm(mediaDir, { recursive: true, force: true });
  return {
    database: kind,
    api,
    baseline,
    apiVsBaseline: Math.round((api.perSecond / baseline.perSecond) * 100) / 100,
    ledgerConsistent: rows[0].bad === 0,
  };
}

async function main() {
  const kinds = values.databases.split(',').map((s) => s.trim()) as ('pglite' | 'postgres')[];
  const results = [];
  for (const kind of kinds) {
    if (kind === 'pglite') {
      const db = await openPglite();
      results.push(await benchOne(kind, db));
      await db.close();
      continue;
    }
    const external = process.env.BENCH_DATABASE_URL;
    const server = external ? undefined : await startPostgres();
    const adminUrl = external ?? server!.url;
    const name = `bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const db = await openPostgres(adminUrl.replace(/\/[^/]*$/, `/${name}`), { max: concurrency });
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
        bench: 'submit',
        node: process.version,
        cpus: os.cpus().length,
        requests,
        concurrency,
        users: userCount,
        note: 'api = POST /pro/imagine in-process (app.request); baseline = apply_credit hold + task insert in one transaction, same db, same run',
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
