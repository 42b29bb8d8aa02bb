import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { backoffMs, createJobQueue } from '../src/queue/job-queue.ts';
import { taskRepository } from '../src/repositories/task-repository.ts';
import { createUser, post, type TestUser } from './helpers.ts';
import { sampleLeases } from './support/leases.ts';
import {
  balanceOf,
  createPostgresDbWithUrl,
  grantCredits,
  ledgerOf,
  openTestDb,
  readTask,
  scriptedEngine,
  taskHarness,
  TERMINAL,
  waitForTask,
  type TaskHarness,
} from './support/tasks.ts';

const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('backoff', () => {
  it('should double per attempt from the base, capped, with at most 20% jitter below', () => {
    expect([1, 2, 3, 4].map((a) => backoffMs(a, 1000, 5000, () => 1))).toEqual([1000, 2000, 4000, 5000]);
    expect(backoffMs(2, 1000, 60_000, () => 0)).toBe(1600);
  });
});

async function submit(h: TaskHarness, user: TestUser, prompt: string): Promise<string> {
  const res = await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { task_id: string }).task_id;
}

async function jobOf(db: Db, taskId: string) {
  const { rows } = await db.query<{ state: string; attempts: number; locked_by: string | null }>(
    'select state, attempts, locked_by from public.task_jobs where task_id = $1',
    [taskId],
  );
  return rows[0];
}

describe.each(testDatabaseKinds())('job queue on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let engine: ReturnType<typeof scriptedEngine>;
  let user: TestUser;

  beforeAll(async () => {
    db = await openTestDb(kind);
    engine = scriptedEngine();
    h = await taskHarness(db, [engine]);
    user = await createUser(db);
    await grantCredits(db, user.id, 400);
  });
  afterAll(async () => {
    await h?.cleanup();
    await db?.close();
  });

  it('should run every job exactly once across two workers, each adding its own engine limit', async () => {
    const ids = await Promise.all(Array.from({ length: 6 }, (_, i) => submit(h, user, `slow:500 #${i}`)));
    const a = h.worker({ workerId: 'a', concurrency: { local: 2 } });
    const b = h.worker({ workerId: 'b', concurrency: { local: 2 } });
    const sample = await sampleLeases(db);
    await Promise.all([a.start(), b.start()]);
    const tasks = await Promise.all(ids.map((id) => waitForTask(db, id)));
    const { total, perWorker } = await sample.stop();
    await Promise.all([a.stop(), b.stop()]);
    expect(tasks.map((t) => t.status)).toEqual(ids.map(() => 'finished'));
    for (let i = 0; i < 6; i++) expect(engine.runs.get(`slow:500 #${i}`)).toBe(1);
    // the limit is per worker: two workers ran more than one worker's limit at once
    expect(total).toBeGreaterThan(2);
    expect(total).toBeLessThanOrEqual(4);
    expect(Object.keys(perWorker).sort()).toEqual(['a', 'b']);
    for (const n of Object.values(perWorker)) expect(n).toBeLessThanOrEqual(2);
    const lockers = new Set((await Promise.all(ids.map((id) => jobOf(db, id)))).map((j) => j.state));
    expect(lockers).toEqual(new Set(['done']));
  });

  it('should only ever raise the percentage, in SQL, and leave a terminal task alone', async () => {
    const id = await submit(h, user, 'progress check');
    const tasks = taskRepository(db);
    expect((await tasks.recordProgress(id, 50, 'running'))?.percentage).toBe(50);
    expect(await tasks.recordProgress(id, 30, 'running')).toBeUndefined();
    expect((await tasks.recordProgress(id, 30, 'starting'))?.percentage).toBe(50);
    expect((await readTask(db, id)).percentage).toBe(50);
    // finished, and success as rows written before v1 compatibility say
    for (const terminal of ['finished', 'success']) {
      await db.query(`update public.tasks set status = $2 where id = $1`, [id, terminal]);
      expect(await tasks.recordProgress(id, 80, 'running')).toBeUndefined();
    }
    await db.query(`update public.task_jobs set state = 'done', lease_token = null where task_id = $1`, [id]);
  });

  it('should recover a job whose worker vanished (lease expired) and fence the old claim out', async () => {
    const id = await submit(h, user, 'abandoned');
    const ghost = createJobQueue(db, { workerId: 'ghost', leaseMs: 200, backoffMs: 10, maxBackoffMs: 10 });
    const [claimed] = await ghost.claim('local', 1, 10, []);
    expect(claimed).toMatchObject({ task_id: id, attempts: 1 });
    // the ghost never heartbeats; a live worker takes over once the lease ran out
    const worker = h.worker({ workerId: 'rescuer' });
    await worker.start();
    const task = await waitForTask(db, id);
    await worker.stop();
    expect(task.status).toBe('finished');
    expect(await jobOf(db, id)).toEqual({ state: 'done', attempts: 2, locked_by: 'rescuer' });
    // the ghost's late writes are refused
    expect(await ghost.heartbeat(claimed)).toBe(false);
    expect(await ghost.retryLater(claimed, 'late')).toBe(false);
  });

  it('should fail and refund once a job whose worker died on its last attempt', async () => {
    const poor = await createUser(db);
    await grantCredits(db, poor.id, 4);
    const res = await post(h.app, '/pro/imagine', { key: poor.apiKey, json: { prompt: 'doomed' } });
    const { task_id } = (await res.json()) as { task_id: string };
    await db.query(
      `update public.task_jobs set state = 'active', attempts = max_attempts, lease_token = gen_random_uuid(),
              locked_by = 'dead', lease_expires_at = now() - interval '1 second' where task_id = $1`,
      [task_id],
    );
    const worker = h.worker();
    await worker.start();
    const task = await waitForTask(db, task_id);
    await worker.stop();
    expect(task).toMatchObject({ status: 'failed', refund: 4, result: { code: 'worker_lost', message: 'The generation failed, please try again.' } });
    expect(engine.runs.get('doomed')).toBeUndefined();
    expect((await ledgerOf(db, task_id)).map((l) => l.source_key)).toEqual([`hold:${task_id}`, `refund:${task_id}`]);
    expect(await balanceOf(db, poor.id)).toMatchObject({ credits: 4, ledgerSum: 4 });
  });

  it('should give a running job back to the queue on a graceful stop, without counting the attempt', async () => {
    const id = await submit(h, user, 'slow:5000 stop');
    const worker = h.worker();
    await worker.start();
    await waitForTask(db, id, { until: (t) => t.percentage > 0 });
    await worker.stop();
    expect(await jobOf(db, id)).toMatchObject({ state: 'queued', attempts: 0 });
    const task = await readTask(db, id);
    expect(task.status).toBe('queued');
    expect(task.percentage).toBeGreaterThan(0);
    await db.query(`update public.task_jobs set state = 'done' where task_id = $1`, [id]);
  });
});

// A real crash needs a real process: PostgreSQL only (PGlite lives inside this process).
for (const kind of testDatabaseKinds().filter((k) => k === 'postgres')) {
  describe(`worker processes on ${kind}`, () => {
    let db: Db;
    let url: string;
    let h: TaskHarness;
    const children: ChildProcess[] = [];

    function spawnWorker(script: string, env: Record<string, string>): ChildProcess {
      const child = spawn(process.execPath, ['--import', 'tsx', script], {
        cwd: serverDir,
        env: { ...process.env, DATABASE_URL: url, MEDIA_DIR: h.mediaDir, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      return child;
    }
    async function ready(child: ChildProcess, line: RegExp) {
      let out = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (line.test(out)) resolve();
        });
        child.once('exit', (code) => reject(new Error(`worker exited (${code}) before it was ready: ${out}`)));
      });
    }

    beforeAll(async () => {
      ({ db, url } = await createPostgresDbWithUrl());
      h = await taskHarness(db, [scriptedEngine()]);
    });
    afterAll(async () => {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await h?.cleanup();
      await db?.close();
    });

    it('should finish every task after its worker is SIGKILLed mid-task, refunding failed ones once', async () => {
      const user = await createUser(db);
      await grantCredits(db, user.id, 40);
      const first = spawnWorker('test/support/queue-child-worker.ts', { LEASE_MS: '1500' });
      await ready(first, /ready/);
      const slow = [await submit(h, user, 'slow:3000 a'), await submit(h, user, 'slow:3000 b')];
      await waitForTask(db, slow[0], { until: (t) => t.percentage > 0 });
      const failing = await submit(h, user, 'fail:after-crash');
      first.kill('SIGKILL');
      await once(first, 'exit');
      expect((await jobOf(db, slow[0])).state).toBe('active');

      const second = spawnWorker('test/support/queue-child-worker.ts', { LEASE_MS: '1500' });
      await ready(second, /ready/);
      const ids = [...slow, failing];
      const tasks = await Promise.all(ids.map((id) => waitForTask(db, id, { timeoutMs: 25_000 })));
      second.kill('SIGKILL');
      await once(second, 'exit');

      expect(tasks.every((t) => TERMINAL.includes(t.status))).toBe(true);
      expect(tasks.map((t) => t.status)).toEqual(['finished', 'finished', 'failed']);
      expect((await jobOf(db, slow[0])).attempts).toBe(2);
      expect(tasks[2].refund).toBe(4);
      for (const id of ids) {
        const refunds = (await ledgerOf(db, id)).filter((l) => l.source_key === `refund:${id}`);
        expect(refunds).toHaveLength(id === failing ? 1 : 0);
      }
      expect(await balanceOf(db, user.id)).toMatchObject({ credits: 40 - 8, ledgerSum: 40 - 8 });
    });

    it('should run the production worker entry (npm run worker) and stop on SIGTERM', async () => {
      const realHarness = await taskHarness(db);
      try {
        const user = await createUser(db);
        await grantCredits(db, user.id, 4);
        const res = await post(realHarness.app, '/flux/imagine', { key: user.apiKey, json: { prompt: 'from the worker process' } });
        const { task_id } = (await res.json()) as { task_id: string };
        const worker = spawnWorker('src/workers/main.ts', { MEDIA_DIR: realHarness.mediaDir, API_PUBLIC_URL: 'http://localhost:8080' });
        await ready(worker, /"engines":"local[^"]*".*"msg":"worker started"/);
        const task = await waitForTask(db, task_id, { timeoutMs: 25_000 });
        expect(task.status).toBe('finished');
        const image = await realHarness.app.request(new URL(task.image_url!).pathname);
        expect(image.status).toBe(200);
        expect(image.headers.get('content-type')).toBe('image/png');
        worker.kill('SIGTERM');
        const [code] = await once(worker, 'exit');
        expect(code).toBe(0);
      } finally {
        await realHarness.cleanup();
      }
    });
  });
}
