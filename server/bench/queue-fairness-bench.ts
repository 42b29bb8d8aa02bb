/**
 * Queue fairness: account A submits a burst of tasks, then account B submits one; how long
 * B's task waits until a worker starts it, in FIFO mode (the baseline: today's single line)
 * and in account mode (QUEUE_FAIRNESS=account), each trial running both on the same
 * database. One worker runs the jobs on a scripted engine that takes a fixed time per job.
 * B submits once A's first jobs are done (the worker in its stride). `waitVsJob` is B's wait
 * over one job's duration (target ≤ 1 in account mode): the median time A's jobs held a worker
 * slot in that run (the engine's time plus progress writes, storing the result, settling);
 * `waitVsEngineMs` is the same wait over the engine's nominal time alone (--job-ms). Also the claim statement's own cost on a large backlog
 * (many accounts), account mode against FIFO. On PGlite (in memory) and on PostgreSQL (a
 * throw-away server, or BENCH_DATABASE_URL).
 *
 *   npx tsx bench/queue-fairness-bench.ts [--backlog 100] [--job-ms 50] [--concurrency 2] [--trials 3] [--claim-backlog 5000] [--claim-accounts 50] [--databases pglite,postgres]
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
import { createJobQueue } from '../src/queue/job-queue.ts';
import { type ClaimFairness, jobRepository } from '../src/repositories/job-repository.ts';
import { createEngineRegistry } from '../src/services/tasks/engine-registry.ts';
import { createDiskMediaStore } from '../src/storage/disk-media-store.ts';
import { createTaskWorker } from '../src/workers/task-worker.ts';
import { scriptedEngine } from '../test/support/scripted-engine.ts';

const { values } = parseArgs({
  options: {
    backlog: { type: 'string', default: '100' },
    'job-ms': { type: 'string', default: '50' },
    concurrency: { type: 'string', default: '2' },
    trials: { type: 'string', default: '3' },
    'claim-backlog': { type: 'string', default: '5000' },
    'claim-accounts': { type: 'string', default: '50' },
    databases: { type: 'string', default: 'pglite,postgres' },
  },
});
const backlog = Number(values.backlog);
const jobMs = Number(values['job-ms']);
const concurrency = Number(values.concurrency);
const trials = Number(values.trials);
const claimBacklog = Number(values['claim-backlog']);
const claimAccounts = Number(values['claim-accounts']);
// account A submits --backlog tasks at once: raise the per-key submit limit when that is over it (README: Security limits)
process.env.RATE_LIMIT_SUBMIT_PER_MINUTE ??= String(Math.max(120, backlog));
process.env.RATE_LIMIT_SUBMIT_ACCOUNT_PER_MINUTE ??= String(Math.max(240, backlog));

type Mode = ClaimFairness['mode'];
const silent = { info: () => {}, error: (msg: string, fields?: Record<string, unknown>) => console.error(msg, fields) };
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

interface User {
  id: string;
  email: string;
  apiKey: string;
}

async function createUser(db: Db): Promise<User> {
  const email = `bench-${randomUUID()}@example.test`;
  const { rows } = await db.query<{ id: string }>('insert into auth.users (id, email) values (gen_random_uuid(), $1) returning id', [email]);
  const key = await db.query<{ api_key: string }>('select api_key from public.mdusers where id = $1', [rows[0].id]);
  await db.query('select public.apply_credit($1, $2, $3, $4)', [rows[0].id, 1_000_000, `grant:${randomUUID()}`, 'bench']);
  return { id: rows[0].id, email, apiKey: key.rows[0].api_key };
}

/** One burst: a worker in `mode` running A's backlog when B submits; B's wait until its job starts. */
async function burst(db: Db, mode: Mode, mediaDir: string, size = backlog) {
  const media = createDiskMediaStore({ dir: mediaDir, publicUrl: 'http://localhost:8080' });
  const engines = createEngineRegistry([scriptedEngine('local')]);
  const app = createApiApp({ db, config: { embedded: true, publicUrl: 'http://localhost:8080', corsOrigins: [] }, log: silent, media, engines });
  const [a, b] = [await createUser(db), await createUser(db)];
  const submit = async (u: User, prompt: string) => {
    const res = await app.request('/pro/imagine', {
      method: 'POST',
      headers: { authorization: u.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt }),
    });
    if (res.status !== 200) throw new Error(`submit answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { task_id: string }).task_id;
  };

  const worker = createTaskWorker({ db, media, engines, log: silent, concurrency: { local: concurrency }, fairness: { mode } });
  const started = new Map<string, number>();
  const finished = new Map<string, number>();
  let bId = '';
  let bStarted: (at: number) => void = () => {};
  const bStart = new Promise<number>((resolve) => {
    bStarted = resolve;
  });
  worker.onTaskEvent((task, kind) => {
    const now = performance.now();
    if (!started.has(task.task_id)) {
      started.set(task.task_id, now);
      if (task.task_id === bId) bStarted(now);
    }
    if (kind !== 'progress') finished.set(task.task_id, now);
  });
  await worker.start();
  const aIds: string[] = [];
  for (let i = 0; i < size; i++) aIds.push(await submit(a, `slow:${jobMs} a${i}`));
  const burstIn = performance.now();
  // B comes once the worker is in its stride on A's backlog (a few of A's jobs started after the burst are done)
  const strided = () => aIds.filter((id) => (started.get(id) ?? 0) > burstIn && finished.has(id)).length >= concurrency + 1;
  while (!strided()) await new Promise((resolve) => setTimeout(resolve, 2));
  // B's wait counts from the moment it sends its request
  const submittedAt = performance.now();
  bId = await submit(b, `slow:${jobMs} b`);
  const seen = started.get(bId);
  if (seen !== undefined) bStarted(seen);
  const waitMs = (await bStart) - submittedAt;
  const aStartedBeforeB = aIds.filter((id) => (started.get(id) ?? Number.POSITIVE_INFINITY) < (started.get(bId) ?? 0)).length;
  await worker.stop();
  // one job's duration: how long A's jobs held a worker slot (claimed to settled) once the burst was in
  const durations = aIds.filter((id) => (started.get(id) ?? 0) > burstIn && finished.has(id)).map((id) => (finished.get(id) ?? 0) - (started.get(id) ?? 0));
  // what the stopped worker gave back stays out of the next run
  await db.query(`update public.task_jobs set state = 'done', lease_token = null, lease_expires_at = null where state in ('queued', 'active')`);
  const measuredJobMs = median(durations);
  return { waitMs, aStartedBeforeB, measuredJobMs, waitVsJob: waitMs / measuredJobMs };
}

/** The claim statement alone on a large backlog spread over many accounts: mean ms per claim of one job. */
async function claimCost(db: Db, mode: Mode, queue: string, claims: number) {
  const jobs = createJobQueue(db, { workerId: `bench-${mode}`, leaseMs: 60_000, backoffMs: 1000, maxBackoffMs: 1000, fairness: { mode } });
  for (let i = 0; i < 5; i++) for (const j of await jobs.claim(queue, 1, 1000, [])) await jobRepository(db).finish(j.task_id, j.lease_token, 'done');
  let total = 0;
  for (let i = 0; i < claims; i++) {
    const t0 = performance.now();
    const claimed = await jobs.claim(queue, 1, 1000, []);
    total += performance.now() - t0;
    for (const j of claimed) await jobRepository(db).finish(j.task_id, j.lease_token, 'done');
  }
  return total / claims;
}

async function seedBacklog(db: Db, queue: string) {
  const users: User[] = [];
  for (let i = 0; i < claimAccounts; i++) users.push(await createUser(db));
  // half the backlog on one account, the rest spread over the others
  for (const [i, u] of users.entries()) {
    const n = i === 0 ? Math.ceil(claimBacklog / 2) : Math.floor(claimBacklog / 2 / Math.max(1, claimAccounts - 1));
    const ids = Array.from({ length: n }, () => randomUUID());
    await db.query(`insert into public.tasks (id, user_id, email, type) select id, $2, $3, 'imagine' from unnest($1::uuid[]) as id`, [ids, u.id, u.email]);
    await db.query(`insert into public.task_jobs (task_id, queue) select id, $2 from unnest($1::uuid[]) as id`, [ids, queue]);
  }
  await db.query('analyze public.task_jobs');
}

async function benchOne(kind: 'pglite' | 'postgres', db: Db) {
  await migrate(db, { local: true });
  const mediaDir = await mkdtemp(path.join(os.tmpdir(), 'aim-bench-media-'));
  const runs: Record<Mode, Awaited<ReturnType<typeof burst>>[]> = { fifo: [], account: [] };
  try {
    // warm-up (JIT, plans, connections), not counted
    await burst(db, 'account', mediaDir, 2 * concurrency + 4);
    for (let t = 0; t < trials; t++) for (const mode of ['fifo', 'account'] as const) runs[mode].push(await burst(db, mode, mediaDir));
  } finally {
    await rm(mediaDir, { recursive: true, force: true });
  }
  const summary = (mode: Mode) => {
    const waitMs = median(runs[mode].map((r) => r.waitMs));
    const measuredJobMs = median(runs[mode].map((r) => r.measuredJobMs));
    const ratios = runs[mode].map((r) => r.waitVsJob);
    return {
      waitMs: round(waitMs, 1),
      waitsMs: runs[mode].map((r) => round(r.waitMs, 1)),
      aStartedBeforeB: runs[mode].map((r) => r.aStartedBeforeB),
      measuredJobMs: round(measuredJobMs, 1),
      // per trial: B's wait over that trial's median job duration; then the median and the worst trial
      waitVsJob: round(median(ratios)),
      waitVsJobMax: round(Math.max(...ratios)),
      waitVsEngineMs: round(waitMs / jobMs),
    };
  };
  const fifo = summary('fifo');
  const account = summary('account');

  await seedBacklog(db, 'claim-bench');
  const claims = 50;
  const fifoClaimMs = await claimCost(db, 'fifo', 'claim-bench', claims);
  const accountClaimMs = await claimCost(db, 'account', 'claim-bench', claims);
  return {
    database: kind,
    fifo,
    account,
    // the headline: B's wait in account mode over one job's measured duration (target ≤ 1)
    waitVsJob: account.waitVsJob,
    fifoWaitOverAccountWait: round(fifo.waitMs / account.waitMs, 1),
    claim: {
      backlog: claimBacklog,
      accounts: claimAccounts,
      fifoMs: round(fifoClaimMs),
      accountMs: round(accountClaimMs),
      accountVsFifo: round(accountClaimMs / fifoClaimMs),
    },
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
    const adminUrl = external ?? server?.url ?? '';
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
      { bench: 'queue-fairness', backlog, jobMs, concurrency, trials, target: 'account.waitVsJob <= 1 (B starts within one job duration)', results },
      null,
      2,
    ),
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
