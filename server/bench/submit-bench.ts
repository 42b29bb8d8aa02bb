/**
 * Submit throughput: POST /pro/imagine through the whole API (auth, validation, price,
 * hold + task + job) against a baseline measured in the same run: a bare transaction that
 * applies the same ledger hold, inserts the same task row and the same job row (announced
 * with the same NOTIFY). On PGlite (in memory) and on PostgreSQL (a throw-away server, or
 * BENCH_DATABASE_URL). No worker runs: only the submit path is measured. The two loops take
 * turns (`--rounds`, each a share of `--requests`) so a machine that gets busier or quieter
 * during the run weighs on both alike; `statementsPerSubmit` counts the database calls of one
 * API submit (a transaction's BEGIN and COMMIT included).
 *
 *   npx tsx bench/submit-bench.ts [--requests 400] [--concurrency 16] [--users 8] [--rounds 4] [--databases pglite,postgres]
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
import { migrate, openPglite, openPostgres, type Db, type Queryable } from '@aim/supabase/db';
import { startPostgres } from '../../supabase/test/support/postgres-server.ts';
import { createApiApp } from '../src/app.ts';
import { createLocalEngine } from '../src/engines/local/index.ts';
import { createEngineRegistry } from '../src/services/tasks/engine-registry.ts';
import { JOB_CHANNEL } from '../src/repositories/job-repository.ts';
import { createDiskMediaStore } from '../src/storage/disk-media-store.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '400' },
    concurrency: { type: 'string', default: '16' },
    users: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '4' },
    databases: { type: 'string', default: 'pglite,postgres' },
  },
});
const requests = Number(values.requests);
const concurrency = Number(values.concurrency);
const userCount = Number(values.users);
const rounds = Math.max(1, Number(values.rounds));
// the limit is checked (its cost is part of the measure) but never reached: a larger --requests
// would send more than the default 120 submits a minute per key (README: Security limits)
process.env.RATE_LIMIT_SUBMIT_PER_MINUTE ??= '1000000';
process.env.RATE_LIMIT_SUBMIT_ACCOUNT_PER_MINUTE ??= '1000000';

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

interface Samples {
  latencies: number[];
  elapsedMs: number;
}

/** Runs calls `from`..`to`-1 of `one` with `concurrency` in flight, adding their latencies and wall time to `into`. */
async function run(into: Samples, from: number, to: number, one: (i: number) => Promise<void>) {
  let next = from;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < to) {
        const i = next++;
        const t0 = performance.now();
        await one(i);
        into.latencies.push(performance.now() - t0);
      }
    }),
  );
  into.elapsedMs += performance.now() - started;
}

/** The throughput and latency percentiles of what `run` gathered. */
function summary({ latencies, elapsedMs }: Samples) {
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] * 100) / 100;
  const total = latencies.length;
  return { requests: total, totalMs: Math.round(elapsedMs), perSecond: Math.round((total / elapsedMs) * 1000), p50Ms: pct(0.5), p95Ms: pct(0.95) };
}

/** `db` with its calls counted (transaction BEGIN and COMMIT as one each). */
function counting(db: Db): { db: Db; calls: () => number } {
  let calls = 0;
  const count = (q: Queryable): Queryable => ({
    query: (sql, params) => {
      calls++;
      return q.query(sql, params);
    },
    exec: (sql) => {
      calls++;
      return q.exec(sql);
    },
  });
  const counted: Db = {
    ...db,
    ...count(db),
    transaction: (fn) => {
      calls += 2;
      return db.transaction((tx) => fn(count(tx)));
    },
  };
  return { db: counted, calls: () => calls };
}

async function benchOne(kind: 'pglite' | 'postgres', db: Db) {
  await migrate(db, { local: true });
  const mediaDir = await mkdtemp(path.join(os.tmpdir(), 'aim-bench-media-'));
  const counted = counting(db);
  const app = createApiApp({
    db: counted.db,
    config: { embedded: true, publicUrl: 'http://localhost:8080', corsOrigins: [] },
    log: { info: () => {}, error: (msg, fields) => console.error(msg, fields) },
    media: createDiskMediaStore({ dir: mediaDir, publicUrl: 'http://localhost:8080' }),
    engines: createEngineRegistry([createLocalEngine()]),
  });
  const users = await createUsers(db);
  const submit = async (u: User, prompt: string) => {
    const res = await app.request('/pro/imagine', {
      method: 'POST',
      headers: { authorization: u.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt }),
    });
    if (res.status !== 200) throw new Error(`submit answered ${res.status}: ${await res.text()}`);
  };

  const api: Samples = { latencies: [], elapsedMs: 0 };
  const baseline: Samples = { latencies: [], elapsedMs: 0 };
  const apiOne = (i: number) => submit(users[i % users.length], `bench prompt ${i}`);
  const baselineOne = async (i: number) => {
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
      await tx.query(
        `with job as (insert into public.task_jobs (task_id, queue, max_attempts) values ($1, 'local', 3) returning queue)
         select pg_notify($2, queue) from job`,
        [id, JOB_CHANNEL],
      );
    });
  };
  // warm-up of both loops at full concurrency: JIT, plans, and the pool's connections (opened
  // on demand: a loop that ran first at full concurrency would otherwise open them for the
  // other); then one submit counted alone, once the auto top-up check, if the app runs one
  // after the answer, has had time to finish
  const idle = () => new Promise((resolve) => setTimeout(resolve, 100));
  const warm: Samples = { latencies: [], elapsedMs: 0 };
  await run(warm, 0, concurrency * 3, (i) => submit(users[i % users.length], 'warm'));
  await run(warm, 0, concurrency * 3, baselineOne);
  await idle();
  const before = counted.calls();
  await submit(users[0], 'counted');
  await idle();
  const statementsPerSubmit = counted.calls() - before;

  for (let r = 0; r < rounds; r++) {
    const from = Math.floor((requests * r) / rounds);
    const to = Math.floor((requests * (r + 1)) / rounds);
    await run(api, from, to, apiOne);
    await run(baseline, from, to, baselineOne);
  }
  const apiSummary = summary(api);
  const baselineSummary = summary(baseline);

  const { rows } = await db.query<{ bad: number }>(
    `select count(*)::int as bad from public.mdusers u
      where u.credits <> (select coalesce(sum(delta), 0) from public.credit_ledger l where l.user_id = u.id)`,
  );
  await rm(mediaDir, { recursive: true, force: true });
  return {
    database: kind,
    api: apiSummary,
    baseline: baselineSummary,
    apiVsBaseline: Math.round((apiSummary.perSecond / baselineSummary.perSecond) * 100) / 100,
    statementsPerSubmit,
    baselineStatements: 5,
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
        rounds,
        note: 'api = POST /pro/imagine in-process (app.request); baseline = BEGIN, apply_credit hold, task insert, job insert + NOTIFY, COMMIT; same db, same run, alternating rounds',
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
