/**
 * POST /cancel (services/tasks/cancel-task.ts, the worker's side in task-worker.ts): a queued
 * task is removed and refunded and its job never runs; a running one's engine is aborted and
 * the task refunded; a cancel racing a completion settles exactly once; terminal tasks answer
 * 409 (a cancelled one 200 again); another account's task is a 404; the webhook is
 * task.failed with result.cancelled; a worker in another process stops the job. Both databases.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { defineEngine } from '../src/engines/define-engine.ts';
import { type Engine, type EngineResult, ENGINE_JOB_KINDS, TaskCancelled } from '../src/engines/engine.ts';
import { pollUntilDone } from '../src/engines/replicate/client.ts';
import { CANCEL_FAILED_MESSAGE, CANCEL_FINISHED_MESSAGE } from '../src/services/tasks/cancel-task.ts';
import { createUser, expectErrorBody, post, type TestUser } from './helpers.ts';
import {
  balanceOf,
  createPostgresDbWithUrl,
  grantCredits,
  ledgerOf,
  openTestDb,
  readTask,
  taskHarness,
  type TaskHarness,
  waitForTask,
} from './support/tasks.ts';

const IMAGINE_COST = 4;
const CANCELLED_RESULT = { message: 'Cancelled', code: 'cancelled', cancelled: true };

const PIXEL = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f0005000201a7d4a3a30000000049454e44ae426082',
  'hex',
);

/**
 * An engine scripted by the prompt: `hold` reports 30 % and waits on its signal (noting the
 * abort's reason); `quick:<ms>` answers a picture after that long; anything else at once.
 */
function holdingEngine(): Engine & { started: string[]; aborts: unknown[]; upstreamCancels: string[] } {
  const started: string[] = [];
  const aborts: unknown[] = [];
  const upstreamCancels: string[] = [];
  const engine = defineEngine({
    name: 'local',
    kinds: ENGINE_JOB_KINDS,
    async cancelUpstream(upstreamId) {
      upstreamCancels.push(upstreamId);
      if (upstreamId === 'unreachable') throw new Error('upstream down');
    },
    async execute(job, report, signal): Promise<EngineResult> {
      const prompt = 'prompt' in job && job.prompt ? job.prompt : job.kind;
      started.push(prompt);
      const [verb, arg] = prompt.split(':');
      if (verb === 'hold') {
        report({ percentage: 30, status: 'running' });
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        aborts.push(signal.reason);
      } else if (verb === 'quick') {
        await new Promise((resolve) => setTimeout(resolve, Number(arg)));
      } else if (verb === 'fail') {
        throw new Error('scripted failure');
      }
      const image = { source: 'buffer' as const, data: PIXEL, contentType: 'image/png', width: 1, height: 1 };
      return { engine: 'local', method: 'scripted', simulated: true, layout: 'single', image, images: [image], seed: 1 };
    },
  });
  return Object.assign(engine, { started, aborts, upstreamCancels });
}

describe('a hosted prediction when its task is cancelled', () => {
  const watch = (signal: AbortSignal, cancelled: string[]) =>
    pollUntilDone(
      { id: 'p1', status: 'processing' },
      {
        get: async (id) => ({ id, status: 'processing' }),
        cancel: async (id) => {
          cancelled.push(id);
        },
        onActive: () => {},
        timedOut: () => new Error('timed out') as never,
        intervalMs: 20,
        maxIntervalMs: 20,
        timeoutMs: 60_000,
        maxFailures: 3,
      },
      signal,
    );

  it('should be cancelled upstream (Replicate POST /v1/predictions/{id}/cancel) on a cancel, not on another abort', async () => {
    const cancelled: string[] = [];
    const byOwner = new AbortController();
    const run = watch(byOwner.signal, cancelled);
    setTimeout(() => byOwner.abort(new TaskCancelled()), 50);
    await expect(run).rejects.toThrow();
    expect(cancelled).toEqual(['p1']);
    // a worker stopping or losing its lease hands the prediction to the next attempt: left running
    const stopping = new AbortController();
    const other = watch(stopping.signal, cancelled);
    setTimeout(() => stopping.abort(new Error('worker stopping')), 50);
    await expect(other).rejects.toThrow();
    expect(cancelled).toEqual(['p1']);
  });
});

describe.each(testDatabaseKinds())('POST /cancel on %s', (kind) => {
  let db: Db;
  let user: TestUser;
  let engine: ReturnType<typeof holdingEngine>;
  let h: TaskHarness;

  beforeAll(async () => {
    db = await openTestDb(kind);
    user = await createUser(db);
    await grantCredits(db, user.id, 1000);
    engine = holdingEngine();
    h = await taskHarness(db, [engine]);
  });
  afterAll(async () => {
    await h?.cleanup();
    await db?.close();
  });

  async function submit(prompt: string, extra: Record<string, unknown> = {}, who: TestUser = user): Promise<string> {
    const res = await post(h.app, '/pro/imagine', { key: who.apiKey, json: { prompt, ...extra } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { task_id: string }).task_id;
  }

  const cancel = (taskId: string, who: TestUser = user) => post(h.app, '/cancel', { key: who.apiKey, json: { task_id: taskId } });

  /** Failed as cancelled, refunded once: the hold and its refund, one settlement. */
  async function expectCancelledAndRefunded(taskId: string) {
    expect(await readTask(db, taskId)).toMatchObject({ status: 'failed', refund: IMAGINE_COST, image_url: null, result: CANCELLED_RESULT });
    expect((await ledgerOf(db, taskId)).map((l) => `${l.source_key} ${l.delta}`)).toEqual([
      `hold:${taskId} -${IMAGINE_COST}`,
      `refund:${taskId} ${IMAGINE_COST}`,
    ]);
    const { rows } = await db.query<{ outcome: string }>('select outcome from public.task_settlements where task_id = $1', [taskId]);
    expect(rows).toEqual([{ outcome: 'refunded' }]);
  }

  async function jobOf(taskId: string) {
    const { rows } = await db.query<{ state: string; lease_token: string | null }>('select state, lease_token from public.task_jobs where task_id = $1', [
      taskId,
    ]);
    return rows[0];
  }

  it('should remove a queued task, refund it in full, and never run its job', async () => {
    const before = await balanceOf(db, user.id);
    const taskId = await submit('never runs');
    const res = await cancel(taskId);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ task_id: taskId, status: 'failed', message: 'Cancelled', refund: IMAGINE_COST, result: CANCELLED_RESULT });
    await expectCancelledAndRefunded(taskId);
    expect(await balanceOf(db, user.id)).toMatchObject({ credits: before.credits });
    expect(await jobOf(taskId)).toMatchObject({ state: 'failed', lease_token: null });
    // a worker started afterwards never takes it
    const worker = h.worker();
    await worker.start();
    const after = await submit('after the cancel');
    expect((await waitForTask(db, after)).status).toBe('finished');
    await worker.stop();
    expect(engine.started).not.toContain('never runs');
  });

  it('should stop a running task: the engine is aborted, the task failed as Cancelled and refunded, the slot freed', async () => {
    const worker = h.worker({ concurrency: { local: 1 }, leaseMs: 10_000 });
    await worker.start();
    try {
      const taskId = await submit('hold');
      await waitForTask(db, taskId, { until: (t) => t.percentage >= 30 });
      const res = await cancel(taskId);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: 'failed', message: 'Cancelled', result: CANCELLED_RESULT });
      await expectCancelledAndRefunded(taskId);
      // the one slot is free again well before the 10 s lease would have told the worker
      const next = await submit('quick:1');
      expect((await waitForTask(db, next, { timeoutMs: 5000 })).status).toBe('finished');
      expect(engine.aborts.at(-1)).toBeInstanceOf(TaskCancelled);
      expect(worker.running).toBe(0);
      await expectCancelledAndRefunded(taskId);
    } finally {
      await worker.stop();
    }
  });

  it('should cancel the upstream job of a task whose worker died holding it (nobody else would), and only such a job', async () => {
    // a queued task has no upstream job: nothing to stop there
    const queued = await submit('queued, no upstream');
    expect((await cancel(queued)).status).toBe(200);
    // what a worker that died after the upstream accepted the job leaves behind: an active job,
    // its lease and the upstream id, and no process left to act on a cancel
    const orphans: string[] = [];
    for (const upstreamId of ['pred-orphan', 'unreachable']) {
      const taskId = await submit(`orphan of ${upstreamId}`);
      await db.query(
        "update public.task_jobs set state = 'active', lease_token = gen_random_uuid(), lease_expires_at = now() + interval '10 seconds', attempts = 1, upstream_id = $2 where task_id = $1",
        [taskId, upstreamId],
      );
      orphans.push(taskId);
    }
    for (const taskId of orphans) {
      const res = await cancel(taskId);
      expect(res.status).toBe(200);
      await expectCancelledAndRefunded(taskId);
    }
    // an upstream that cannot be reached does not fail the cancel: the task is refunded anyway
    expect(engine.upstreamCancels).toEqual(['pred-orphan', 'unreachable']);
  });

  it('should answer 200 with the same task to a second cancel, and 409 to a finished or failed task', async () => {
    const worker = h.worker();
    await worker.start();
    try {
      const queued = await submit('cancelled twice');
      const first = await (await cancel(queued)).json();
      const again = await cancel(queued);
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual(first);
      await expectCancelledAndRefunded(queued);

      const finished = await submit('finishes');
      expect((await waitForTask(db, finished)).status).toBe('finished');
      const late = await cancel(finished);
      expect(late.status).toBe(409);
      expect(await expectErrorBody(late)).toEqual({ code: 'conflict', msg: CANCEL_FINISHED_MESSAGE });
      expect(await readTask(db, finished)).toMatchObject({ status: 'finished', refund: 0 });

      const failed = await submit('fail:now');
      expect((await waitForTask(db, failed)).status).toBe('failed');
      const res = await cancel(failed);
      expect(res.status).toBe(409);
      expect(await expectErrorBody(res)).toEqual({ code: 'conflict', msg: CANCEL_FAILED_MESSAGE });
    } finally {
      await worker.stop();
    }
  });

  it("should answer 404 for another account's task and leave it alone, and refuse a key without the generate scope", async () => {
    const other = await createUser(db);
    const taskId = await submit('not yours');
    const res = await cancel(taskId, other);
    expect(res.status).toBe(404);
    expect(await expectErrorBody(res)).toEqual({ code: 'not_found', msg: 'Task not found' });
    expect(await readTask(db, taskId)).toMatchObject({ status: 'pending', refund: 0 });
    const unknown = await cancel('00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect((await post(h.app, '/cancel', { json: { task_id: taskId } })).status).toBe(401);
    expect((await cancel(taskId)).status).toBe(200);
  });

  it('should record the task.failed webhook with result.cancelled', async () => {
    const taskId = await submit('with a webhook', { webhook_url: 'https://example.com/hook' });
    expect((await cancel(taskId)).status).toBe(200);
    const { rows } = await db.query<{ event: string; payload: Record<string, unknown> }>(
      `select event, payload from public.webhook_deliveries where task_id = $1 and event <> 'task.progress'`,
      [taskId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].event).toBe('task.failed');
    expect(rows[0].payload).toMatchObject({ task_id: taskId, status: 'failed', message: 'Cancelled', result: CANCELLED_RESULT });
  });

  it('should settle exactly once when cancels race completions', async () => {
    const worker = h.worker({ concurrency: { local: 8 }, pollMs: 20 });
    await worker.start();
    const before = await balanceOf(db, user.id);
    try {
      const ids = await Promise.all(Array.from({ length: 24 }, (_, i) => submit(`quick:${i % 6}`)));
      const answers = await Promise.all(
        ids.map(async (id, i) => {
          await new Promise((resolve) => setTimeout(resolve, (i * 7) % 60));
          const res = await cancel(id);
          return { id, status: res.status };
        }),
      );
      let cancelled = 0;
      for (const { id, status } of answers) {
        const task = await waitForTask(db, id);
        const ledger = (await ledgerOf(db, id)).map((l) => l.source_key.split(':')[0]);
        const { rows } = await db.query<{ outcome: string }>('select outcome from public.task_settlements where task_id = $1', [id]);
        if (status === 200) {
          cancelled += 1;
          expect(task).toMatchObject({ status: 'failed', refund: IMAGINE_COST, result: CANCELLED_RESULT });
          expect(ledger).toEqual(['hold', 'refund']);
          expect(rows).toEqual([{ outcome: 'refunded' }]);
        } else {
          expect(status).toBe(409);
          expect(task).toMatchObject({ status: 'finished', refund: 0 });
          expect(ledger).toEqual(['hold']);
          expect(rows).toEqual([{ outcome: 'charged' }]);
        }
      }
      const charged = ids.length - cancelled;
      expect(await balanceOf(db, user.id)).toMatchObject({ credits: before.credits - charged * IMAGINE_COST });
      const after = await balanceOf(db, user.id);
      expect(after.ledgerSum).toBe(after.credits);
    } finally {
      await worker.stop();
    }
  }, 30_000);
});

// a second process needs a database both can reach: the PostgreSQL leg only (as scale-out-chaos.test.ts)
for (const kind of testDatabaseKinds().filter((k) => k === 'postgres')) {
  describe(`POST /cancel with the worker in another process on ${kind}`, () => {
    let db: Db;
    let child: ChildProcess | undefined;
    let mediaDir: string;
    let h: TaskHarness;

    beforeAll(async () => {
      const created = await createPostgresDbWithUrl();
      db = created.db;
      mediaDir = await mkdtemp(path.join(os.tmpdir(), 'aim-cancel-'));
      // the API of this process has no worker; the child's scripted engine runs the jobs
      h = await taskHarness(db, [holdingEngine()]);
      const script = new URL('./support/queue-child-worker.ts', import.meta.url).pathname;
      child = spawn(process.execPath, ['--import', 'tsx', script], {
        env: { ...process.env, DATABASE_URL: created.url, MEDIA_DIR: mediaDir, LEASE_MS: '15000' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve, reject) => {
        child?.stdout?.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('ready')) resolve();
        });
        child?.on('exit', (code) => reject(new Error(`worker exited with ${code}`)));
      });
    }, 20_000);
    afterAll(async () => {
      child?.kill('SIGKILL');
      await h?.cleanup();
      await rm(mediaDir, { recursive: true, force: true });
      await db?.close();
    });

    it('should stop the job running in the worker process within moments, long before its lease would tell', async () => {
      const user = await createUser(db);
      await grantCredits(db, user.id, 100);
      // two long jobs fill the child's two slots
      const ids: string[] = [];
      for (const prompt of ['slow:30000', 'slow:30000']) {
        const res = await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt } });
        ids.push(((await res.json()) as { task_id: string }).task_id);
      }
      for (const id of ids) await waitForTask(db, id, { until: (t) => t.percentage >= 10 });
      const started = Date.now();
      for (const id of ids) expect((await post(h.app, '/cancel', { key: user.apiKey, json: { task_id: id } })).status).toBe(200);
      // a new job runs only once the child freed a slot: the cancels reached it (NOTIFY), not the 15 s lease
      const res = await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt: 'after the cancels' } });
      const next = ((await res.json()) as { task_id: string }).task_id;
      expect((await waitForTask(db, next, { timeoutMs: 10_000 })).status).toBe('finished');
      expect(Date.now() - started).toBeLessThan(5000);
      for (const id of ids) expect(await readTask(db, id)).toMatchObject({ status: 'failed', refund: IMAGINE_COST, result: CANCELLED_RESULT });
      expect(await balanceOf(db, user.id)).toMatchObject({ credits: 100 - IMAGINE_COST });
    }, 20_000);
  });
}
