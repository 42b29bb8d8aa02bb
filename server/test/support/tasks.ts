/**
 * Shared pieces of the task, credit, queue and upload suites: an app and a worker on a
 * temporary media directory, scripted engines, credit grants, and waiting for a task.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { migrate, openPostgres, type Db } from '@aim/supabase/db';
import { createTestDb, type DbKind } from '@aim/supabase/testing';
import { createApiApp } from '../../src/app.ts';
import type { Engine } from '../../src/engines/engine.ts';
import { createLocalEngine } from '../../src/engines/local/index.ts';
import { createEngineRegistry, type EngineRegistry } from '../../src/services/tasks/engine-registry.ts';
import { createDiskMediaStore } from '../../src/storage/disk-media-store.ts';
import type { MediaStore } from '../../src/storage/media-store.ts';
import { createTaskWorker, type TaskWorkerOptions } from '../../src/workers/task-worker.ts';
import { captureLogger, testConfig } from '../helpers.ts';

export { scriptedEngine } from './scripted-engine.ts';

export const TERMINAL = ['success', 'finished', 'failed'];

/** Small cells keep the real local engine fast in tests (the grid is 2× this). */
export const TEST_CELL_SIZE = 128;

function testLocalEngine(): Engine {
  return createLocalEngine({ cellSize: TEST_CELL_SIZE });
}

export interface TaskHarness {
  media: MediaStore;
  mediaDir: string;
  engines: EngineRegistry;
  app: ReturnType<typeof createApiApp>;
  /** Every line the app logged (e.g. to prove no request ended in a 500). */
  appLog: ReturnType<typeof captureLogger>;
  /** A worker on the same db, media and engines (not started). */
  worker(options?: Partial<TaskWorkerOptions>): ReturnType<typeof createTaskWorker>;
  cleanup(): Promise<void>;
}

export async function taskHarness(db: Db, engines: Engine[] = [testLocalEngine()]): Promise<TaskHarness> {
  const mediaDir = await mkdtemp(path.join(os.tmpdir(), 'aim-media-'));
  const media = createDiskMediaStore({ dir: mediaDir, publicUrl: testConfig.publicUrl });
  const registry = createEngineRegistry(engines);
  const appLog = captureLogger();
  const app = createApiApp({ db, config: testConfig, log: appLog, media, engines: registry });
  const workers: ReturnType<typeof createTaskWorker>[] = [];
  return {
    media,
    mediaDir,
    engines: registry,
    app,
    appLog,
    worker(options = {}) {
      const worker = createTaskWorker({ db, media, engines: registry, log: captureLogger(), pollMs: 100, backoffMs: 50, maxBackoffMs: 200, ...options });
      workers.push(worker);
      return worker;
    },
    async cleanup() {
      for (const worker of workers) await worker.stop();
      await rm(mediaDir, { recursive: true, force: true });
    },
  };
}

/** Gives a user credits through the ledger, as a payment would. */
export async function grantCredits(db: Db, userId: string, credits: number): Promise<void> {
  await db.query('select public.apply_credit($1, $2, $3, $4)', [userId, credits, `grant:${randomUUID()}`, 'test grant']);
}

export async function balanceOf(db: Db, userId: string): Promise<{ credits: number; ledgerSum: number; ledgerRows: number }> {
  const { rows } = await db.query<{ credits: number; ledger_sum: number; ledger_rows: number }>(
    `select u.credits, coalesce(sum(l.delta), 0)::int as ledger_sum, count(l.id)::int as ledger_rows
       from public.mdusers u left join public.credit_ledger l on l.user_id = u.id
      where u.id = $1 group by u.credits`,
    [userId],
  );
  return { credits: rows[0].credits, ledgerSum: rows[0].ledger_sum, ledgerRows: rows[0].ledger_rows };
}

export async function ledgerOf(db: Db, taskId: string): Promise<{ delta: number; source_key: string }[]> {
  const { rows } = await db.query<{ delta: number; source_key: string }>('select delta, source_key from public.credit_ledger where task_id = $1 order by id', [
    taskId,
  ]);
  return rows;
}

export interface TaskState {
  id: string;
  status: string;
  percentage: number;
  refund: number;
  cost: number;
  image_url: string | null;
  image_urls: string[] | null;
  seed: string | null;
  result: Record<string, unknown> | null;
}

export async function readTask(db: Db, id: string): Promise<TaskState> {
  const { rows } = await db.query<TaskState>(
    'select id, status, percentage, refund, cost, image_url, image_urls, seed, result from public.tasks where id = $1',
    [id],
  );
  return rows[0];
}

/** Polls the task row until it is terminal (or `until` holds). */
export async function waitForTask(db: Db, id: string, opts: { timeoutMs?: number; until?: (t: TaskState) => boolean } = {}): Promise<TaskState> {
  const until = opts.until ?? ((t) => TERMINAL.includes(t.status));
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  for (;;) {
    const task = await readTask(db, id);
    if (task && until(task)) return task;
    if (Date.now() > deadline) throw new Error(`task ${id} did not get there in time: ${JSON.stringify(task)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A fresh migrated database like createTestDb, except that the PostgreSQL one is dropped
 * only once its connections are gone: pg-pool's end() resolves before its clients have
 * disconnected, and `drop database … with (force)` would then kill them mid-goodbye
 * (an unhandled 57P01 error in the test run).
 */
export async function openTestDb(kind: DbKind): Promise<Db> {
  return kind === 'pglite' ? createTestDb(kind) : (await createPostgresDbWithUrl()).db;
}

/** A fresh migrated PostgreSQL database with its URL, for a worker in a child process. */
export async function createPostgresDbWithUrl(): Promise<{ db: Db; url: string }> {
  const admin = inject('pgAdminUrl' as never) as string | null;
  if (!admin) throw new Error('no PostgreSQL test server');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  const url = admin.replace(/\/[^/]*$/, `/${name}`);
  const db = await openPostgres(url, { max: 10 });
  await migrate(db, { local: true });
  const close = db.close;
  return {
    url,
    db: Object.assign(db, {
      async close() {
        await close();
        const c = new pg.Client({ connectionString: admin });
        await c.connect();
        for (let i = 0; i < 100; i++) {
          const { rows } = await c.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where datname = $1', [name]);
          if (rows[0].n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await c.query(`drop database if exists ${name} with (force)`);
        await c.end();
      },
    }),
  };
}
