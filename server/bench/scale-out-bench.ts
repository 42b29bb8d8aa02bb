/**
 * Scale-out: does a second worker process add throughput? The same backlog of tasks is run by
 * one worker process (the baseline) and by two, each with WORKER_CONCURRENCY=2, on PostgreSQL,
 * for two engines: a CPU-bound one (each job computes for --cpu-ms on the worker's event loop,
 * as the local engines do) and an I/O-bound one (each job waits on a local fake upstream that
 * answers after --io-ms). `ratio` = two workers' tasks/s over one worker's (ideal 2; the
 * CPU-bound ratio is bounded by the cores this machine has free). For the I/O-bound engine
 * the run also shows ENGINE_MAX_RUNNING_LOCAL=2 (a cluster-wide cap for an upstream's rate
 * limit), which holds two workers to one worker's throughput, as every setting did before
 * WORKER_CONCURRENCY became per process.
 *
 * Throughput counts from the first claim to the last settlement (database clocks), with the
 * workers started and connected beforehand and released together, so start-up is not counted.
 * Worker processes are real (this file run with `--worker`), on a throw-away PostgreSQL (or
 * BENCH_DATABASE_URL).
 *
 *   npx tsx bench/scale-out-bench.ts [--tasks 40] [--cpu-ms 40] [--io-ms 200] [--concurrency 2]
 *
 * Prints one JSON document on stdout.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { migrate, openPostgres } from '@aim/supabase/db';
import { startPostgres } from '../../supabase/test/support/postgres-server.ts';
import { createApiApp } from '../src/app.ts';
import { defineEngine } from '../src/engines/define-engine.ts';
import { type Engine, ENGINE_JOB_KINDS } from '../src/engines/engine.ts';
import { createEngineRegistry } from '../src/services/tasks/engine-registry.ts';
import { createDiskMediaStore } from '../src/storage/disk-media-store.ts';
import { createTaskWorker } from '../src/workers/task-worker.ts';

const { values } = parseArgs({
  options: {
    worker: { type: 'boolean', default: false },
    tasks: { type: 'string', default: '40' },
    'cpu-ms': { type: 'string', default: '40' },
    'io-ms': { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '2' },
  },
});
// one key submits 5 × --tasks within a minute, over the default per-key submit limit (README: Security limits)
process.env.RATE_LIMIT_SUBMIT_PER_MINUTE ??= '1000000';
process.env.RATE_LIMIT_SUBMIT_ACCOUNT_PER_MINUTE ??= '1000000';
const silent = { info: () => {}, error: (msg: string, fields?: Record<string, unknown>) => console.error(msg, fields) };
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const PIXEL = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f0005000201a7d4a3a30000000049454e44ae426082',
  'hex',
);

/** The engine of a benchmark run (always named `local`, the queue the API routes imagine to). */
function benchEngine(kind: 'cpu' | 'io', env: NodeJS.ProcessEnv): Engine {
  return defineEngine({
    name: 'local',
    kinds: ENGINE_JOB_KINDS,
    async execute(_job, report, signal) {
      report({ percentage: 10, status: 'running' });
      if (kind === 'cpu') {
        // compute on the event loop, as a job that needs a core does
        const until = performance.now() + Number(env.BENCH_CPU_MS);
        let x = 0;
        while (performance.now() < until) for (let i = 0; i < 10_000; i++) x = (x * 31 + i) % 1_000_003;
        if (x < 0) throw new Error('unreachable');
      } else {
        const res = await fetch(env.BENCH_UPSTREAM_URL ?? '', { signal });
        await res.arrayBuffer();
      }
      const image = { source: 'buffer' as const, data: PIXEL, contentType: 'image/png', width: 1, height: 1 };
      return { engine: 'local', method: 'bench', simulated: true, layout: 'single', image, images: [image], seed: 1 };
    },
  });
}

/** A worker process: connects, says `ready`, starts claiming on `go` (stdin), stops on SIGTERM. */
async function workerProcess(): Promise<void> {
  const env = process.env;
  const db = await openPostgres(env.DATABASE_URL ?? '', { max: 4 });
  const worker = createTaskWorker({
    db,
    media: createDiskMediaStore({ dir: env.MEDIA_DIR ?? '', publicUrl: 'http://localhost:8080' }),
    engines: createEngineRegistry([benchEngine(env.BENCH_ENGINE === 'io' ? 'io' : 'cpu', env)]),
    concurrency: { local: Number(env.WORKER_CONCURRENCY) },
    clusterLimits: env.ENGINE_MAX_RUNNING_LOCAL ? { local: Number(env.ENGINE_MAX_RUNNING_LOCAL) } : undefined,
    pollMs: 200,
    log: silent,
  });
  process.stdin.once('data', () => void worker.start());
  process.once('SIGTERM', async () => {
    await worker.stop();
    await db.close();
    process.exit(0);
  });
  console.log('ready');
}

/** A fake upstream that answers every request after a fixed delay. */
async function startUpstream(latencyMs: number): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'), latencyMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/render`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function spawnWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--worker'], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`bench worker exited (${code}) before it was ready: ${out}`)));
  });
}

async function main() {
  const tasks = Number(values.tasks);
  const cpuMs = Number(values['cpu-ms']);
  const ioMs = Number(values['io-ms']);
  const concurrency = Number(values.concurrency);
  const external = process.env.BENCH_DATABASE_URL;
  const server = external ? undefined : await startPostgres();
  const adminUrl = external ?? server?.url ?? '';
  const name = `bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = adminUrl.replace(/\/[^/]*$/, `/${name}`);
  const db = await openPostgres(url, { max: 10 });
  const mediaDir = await mkdtemp(path.join(os.tmpdir(), 'aim-scale-bench-'));
  const upstream = await startUpstream(ioMs);
  try {
    await migrate(db, { local: true });
    const { rows } = await db.query<{ id: string }>(`insert into auth.users (id, email) values (gen_random_uuid(), 'bench-scale@example.test') returning id`);
    const userId = rows[0].id;
    await db.query('select public.apply_credit($1, $2, $3, $4)', [userId, 1_000_000, `grant:${randomUUID()}`, 'bench']);
    const apiKey = (await db.query<{ api_key: string }>('select api_key from public.mdusers where id = $1', [userId])).rows[0].api_key;
    const media = createDiskMediaStore({ dir: mediaDir, publicUrl: 'http://localhost:8080' });
    const app = createApiApp({
      db,
      config: { embedded: true, publicUrl: 'http://localhost:8080', corsOrigins: [] },
      log: silent,
      media,
      engines: createEngineRegistry([benchEngine('cpu', {})]),
    });

    /** One run: `workers` processes on `engine`; tasks per second from the first claim to the last settlement. */
    async function run(engine: 'cpu' | 'io', workers: number, extra: Record<string, string> = {}) {
      const ids: string[] = [];
      for (let i = 0; i < tasks; i++) {
        const res = await app.request('/pro/imagine', {
          method: 'POST',
          headers: { authorization: apiKey, 'content-type': 'application/json' },
          body: JSON.stringify({ prompt: `${engine} ${workers} #${i}` }),
        });
        if (res.status !== 200) throw new Error(`submit answered ${res.status}: ${await res.text()}`);
        ids.push(((await res.json()) as { task_id: string }).task_id);
      }
      const env = {
        DATABASE_URL: url,
        MEDIA_DIR: mediaDir,
        BENCH_ENGINE: engine,
        BENCH_CPU_MS: String(cpuMs),
        BENCH_UPSTREAM_URL: upstream.url,
        WORKER_CONCURRENCY: String(concurrency),
        ...extra,
      };
      const children = await Promise.all(Array.from({ length: workers }, () => spawnWorker(env)));
      for (const child of children) child.stdin?.write('go\n');
      const wallStart = performance.now();
      for (;;) {
        const { rows: left } = await db.query<{ n: number }>(
          `select count(*)::int as n from public.tasks where id = any($1::uuid[]) and status not in ('finished', 'failed')`,
          [ids],
        );
        if (left[0].n === 0) break;
        if (performance.now() - wallStart > 120_000) throw new Error(`${left[0].n} tasks still running after 2 minutes`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await Promise.all(
        children.map(async (child) => {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGTERM');
          await exited;
        }),
      );
      const { rows: span } = await db.query<{ seconds: number; failed: number; workers: number }>(
        `select extract(epoch from max(t.updated_at) - min(j.claimed_at))::float8 as seconds,
                count(*) filter (where t.status <> 'finished')::int as failed,
                count(distinct j.locked_by)::int as workers
           from public.tasks t join public.task_jobs j on j.task_id = t.id where t.id = any($1::uuid[])`,
        [ids],
      );
      const { seconds, failed } = span[0];
      if (failed > 0) throw new Error(`${failed} ${engine} tasks failed`);
      return { workers, tasksPerSecond: round(tasks / seconds), seconds: round(seconds), workersThatRanJobs: span[0].workers };
    }

    const results: Record<string, unknown> = {};
    for (const engine of ['cpu', 'io'] as const) {
      const one = await run(engine, 1);
      const two = await run(engine, 2);
      results[engine] = { oneWorker: one, twoWorkers: two, ratio: round(two.tasksPerSecond / one.tasksPerSecond) };
    }
    const capped = await run('io', 2, { ENGINE_MAX_RUNNING_LOCAL: String(concurrency) });
    const io = results.io as { oneWorker: { tasksPerSecond: number } };
    results.ioTwoWorkersCappedClusterWide = {
      setting: `ENGINE_MAX_RUNNING_LOCAL=${concurrency}`,
      ...capped,
      ratioToOneWorker: round(capped.tasksPerSecond / io.oneWorker.tasksPerSecond),
    };
    console.log(
      JSON.stringify(
        {
          bench: 'scale-out',
          database: 'postgres',
          tasks,
          cpuMsPerJob: cpuMs,
          upstreamLatencyMs: ioMs,
          workerConcurrency: concurrency,
          cores: os.availableParallelism(),
          baseline: 'oneWorker (the same backlog, engine and settings, one worker process)',
          target: 'ratio near 2 for io; for cpu bounded by the free cores',
          results,
        },
        null,
        2,
      ),
    );
  } finally {
    await upstream.close();
    await db.close();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
    await server?.stop();
    await rm(mediaDir, { recursive: true, force: true });
  }
}

if (values.worker) {
  workerProcess().catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
