/**
 * Per-job time limits (workers/time-limits.ts, task-worker.ts): a job past its engine's limit
 * is stopped (its signal aborts: a worker thread running it is terminated, an upstream fetch
 * is cut), its task fails with a clear message and is refunded once, its row is no longer
 * renewed by the heartbeat, the worker goes on with the next job, and an answer arriving
 * after the limit changes nothing. Both databases.
 */
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import type { Engine } from '../src/engines/engine.ts';
import { requestFaceWork } from '../src/engines/local-face/face-worker-client.ts';
import { closeLocalFaceEngine, embedLargestFace } from '../src/engines/local-face/index.ts';
import { prepareImage } from '../src/engines/local-face/images.ts';
import { createMidjourneyProxyEngine } from '../src/engines/midjourney-proxy/index.ts';
import { defaultTimeLimitMs, timeLimitMessage, timeLimitsFromEnv, timeLimitVariable } from '../src/workers/time-limits.ts';
import { captureLogger, createUser, post, type TestUser } from './helpers.ts';
import { threadEngine, unrulyEngine } from './support/scripted-engine.ts';
import { balanceOf, grantCredits, ledgerOf, openTestDb, readTask, taskHarness, type TaskHarness, waitForTask } from './support/tasks.ts';

const IMAGINE_COST = 4;

describe('time limits from the environment', () => {
  it('should give each engine its built-in limit, JOB_TIME_LIMIT_SECONDS to all, and JOB_TIME_LIMIT_SECONDS_<ENGINE> to one', () => {
    const names = ['local', 'local-video', 'midjourney-proxy', 'replicate-lora', 'something-new'];
    expect(timeLimitsFromEnv(names, {})).toEqual({
      local: 60_000,
      'local-video': 300_000,
      'midjourney-proxy': 900_000,
      'replicate-lora': 9_000_000,
      'something-new': 900_000,
    });
    expect(timeLimitsFromEnv(names, { JOB_TIME_LIMIT_SECONDS: '120', JOB_TIME_LIMIT_SECONDS_LOCAL_VIDEO: '600' })).toEqual({
      local: 120_000,
      'local-video': 600_000,
      'midjourney-proxy': 120_000,
      'replicate-lora': 120_000,
      'something-new': 120_000,
    });
    expect(timeLimitVariable('midjourney-proxy')).toBe('JOB_TIME_LIMIT_SECONDS_MIDJOURNEY_PROXY');
    expect(() => timeLimitsFromEnv(names, { JOB_TIME_LIMIT_SECONDS: '1m' })).toThrow('JOB_TIME_LIMIT_SECONDS must be a positive whole number of seconds');
    expect(() => timeLimitsFromEnv(names, { JOB_TIME_LIMIT_SECONDS_LOCAL: '0' })).toThrow('JOB_TIME_LIMIT_SECONDS_LOCAL');
  });

  it('should keep every hosted engine above its own upstream deadline', () => {
    // the engines give up watching after 10 (pictures, Midjourney), 20 (video, music) and 120 minutes (LoRA training)
    for (const name of ['midjourney-proxy', 'replicate-faceswap', 'replicate-flux', 'replicate-ideogram'])
      expect(defaultTimeLimitMs(name)).toBeGreaterThan(10 * 60_000);
    for (const name of ['replicate-video', 'replicate-audio']) expect(defaultTimeLimitMs(name)).toBeGreaterThan(20 * 60_000);
    expect(defaultTimeLimitMs('replicate-lora')).toBeGreaterThan(125 * 60_000);
  });

  it('should say the limit in whole seconds', () => {
    expect(timeLimitMessage(60_000)).toBe('The task took longer than its 60-second limit and was stopped; your credits were refunded.');
    expect(timeLimitMessage(400)).toBe('The task took longer than its 1-second limit and was stopped; your credits were refunded.');
  });
});

describe('the face worker thread on abort (real models)', () => {
  afterAll(() => closeLocalFaceEngine());

  it('should terminate the thread busy with an aborted request and answer the next one on a new thread', async () => {
    const photo = readFileSync(new URL('./fixtures/faces/grace-hopper.jpg', import.meta.url));
    const image = await prepareImage(photo, 'source', { maxPixels: 40_000_000, detectionSize: 1024 });
    const controller = new AbortController();
    // the new thread is busy loading its models when the abort comes
    const busy = requestFaceWork({ type: 'embed', image }, () => {}, controller.signal);
    setTimeout(() => controller.abort(new Error('over its time limit')), 50);
    const started = Date.now();
    await expect(busy).rejects.toThrow('over its time limit');
    // (without the abort the request would have answered: the rejection is the proof)
    expect(Date.now() - started).toBeLessThan(3000);
    const embedding = await embedLargestFace(photo);
    expect(embedding).toHaveLength(1024);
  }, 60_000);
});

describe.each(testDatabaseKinds())('job time limits on %s', (kind) => {
  let db: Db;
  let user: TestUser;
  const harnesses: TaskHarness[] = [];

  beforeAll(async () => {
    db = await openTestDb(kind);
    user = await createUser(db);
    await grantCredits(db, user.id, 400);
  });
  afterAll(async () => {
    for (const h of harnesses) await h.cleanup();
    await db?.close();
  });

  async function harness(engine: Engine): Promise<TaskHarness> {
    const h = await taskHarness(db, [engine]);
    harnesses.push(h);
    return h;
  }

  async function submit(h: TaskHarness, prompt: string, who: TestUser = user): Promise<string> {
    const res = await post(h.app, '/pro/imagine', { key: who.apiKey, json: { prompt } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { task_id: string }).task_id;
  }

  async function jobOf(taskId: string) {
    const { rows } = await db.query<{ state: string; lease_expires_at: Date | null; lease_token: string | null; updated_at: Date }>(
      'select state, lease_expires_at, lease_token, updated_at from public.task_jobs where task_id = $1',
      [taskId],
    );
    return rows[0];
  }

  /** The task failed at its limit, refunded exactly once. */
  async function expectStoppedAndRefunded(taskId: string, seconds: number) {
    const task = await readTask(db, taskId);
    expect(task).toMatchObject({
      status: 'failed',
      refund: IMAGINE_COST,
      image_url: null,
      result: { code: 'time_limit', message: `The task took longer than its ${seconds}-second limit and was stopped; your credits were refunded.` },
    });
    expect((await ledgerOf(db, taskId)).map((l) => `${l.source_key} ${l.delta}`)).toEqual([
      `hold:${taskId} -${IMAGINE_COST}`,
      `refund:${taskId} ${IMAGINE_COST}`,
    ]);
    const { rows } = await db.query<{ outcome: string }>('select outcome from public.task_settlements where task_id = $1', [taskId]);
    expect(rows).toEqual([{ outcome: 'refunded' }]);
  }

  it('should stop an engine that never answers, refund once, stop renewing its lease, and run the next job', async () => {
    const engine = unrulyEngine();
    const h = await harness(engine);
    const poor = await createUser(db);
    await grantCredits(db, poor.id, 2 * IMAGINE_COST);
    const hung = await submit(h, 'hang', poor);
    const next = await submit(h, 'after the hang', poor);
    const log = captureLogger();
    const worker = h.worker({ timeLimits: { local: 800 }, concurrency: { local: 1 }, leaseMs: 1000, heartbeatMs: 100, log });
    const started = Date.now();
    await worker.start();
    await waitForTask(db, hung);
    expect(Date.now() - started).toBeGreaterThanOrEqual(750);
    await expectStoppedAndRefunded(hung, 1);
    // the one slot is free again: the next job runs
    expect((await waitForTask(db, next)).status).toBe('finished');
    expect(engine.answered).toEqual(['after the hang']);
    // the stopped job's row is over: several heartbeats later it is still not renewed
    const job = await jobOf(hung);
    expect(job).toMatchObject({ state: 'failed', lease_expires_at: null, lease_token: null });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await jobOf(hung)).updated_at).toEqual(job.updated_at);
    expect(worker.running).toBe(0);
    await worker.stop();
    // one hold charged (the next job), one refunded
    expect(await balanceOf(db, poor.id)).toMatchObject({ credits: IMAGINE_COST, ledgerSum: IMAGINE_COST });
    expect(log.lines.some((line) => line.includes('task stopped: time limit'))).toBe(true);
  });

  it('should terminate a worker thread stuck in a job and run the next job on a new thread', async () => {
    const engine = threadEngine();
    try {
      const h = await harness(engine);
      const warm = await submit(h, 'warm');
      const worker = h.worker({ timeLimits: { local: 800 }, concurrency: { local: 1 }, heartbeatMs: 100, leaseMs: 1000 });
      await worker.start();
      expect((await waitForTask(db, warm)).status).toBe('finished');
      expect(engine.counts.threads).toBe(1);
      const hung = await submit(h, 'hang');
      const next = await submit(h, 'after the hang');
      await waitForTask(db, hung);
      await expectStoppedAndRefunded(hung, 1);
      expect((await waitForTask(db, next)).status).toBe('finished');
      expect(engine.counts).toEqual({ threads: 2, terminated: 1 });
      await worker.stop();
    } finally {
      await engine.close();
    }
  });

  describe('a hosted engine whose upstream never answers', () => {
    let upstream: Server;
    let baseUrl: string;
    const requests: { path: string; at: number; closedAt?: number }[] = [];

    beforeAll(async () => {
      upstream = createServer((req, res) => {
        const seen: (typeof requests)[number] = { path: req.url ?? '', at: Date.now() };
        requests.push(seen);
        // never answers; notes when the caller hangs up
        res.on('close', () => {
          seen.closedAt = Date.now();
        });
      });
      await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
      baseUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mj`;
    });
    afterAll(async () => {
      upstream.closeAllConnections();
      await new Promise((resolve) => upstream.close(resolve));
    });

    it('should abort the upstream fetch at the limit and fail the task with a refund', async () => {
      // the engine's own request timeout is far away: only the job's signal can cut the fetch
      const engine = createMidjourneyProxyEngine({ baseUrl, requestTimeoutMs: 60_000, pollIntervalMs: 50 });
      const h = await harness(engine);
      const id = await submit(h, 'a lighthouse in fog');
      const worker = h.worker({ timeLimits: { 'midjourney-proxy': 1000 }, heartbeatMs: 100, leaseMs: 1000 });
      await worker.start();
      await waitForTask(db, id);
      const limitAt = Date.now();
      await expectStoppedAndRefunded(id, 1);
      expect(requests).toHaveLength(1);
      expect(requests[0].path).toBe('/mj/submit/imagine');
      // the connection is hung up on by the abort, not left open until a timeout
      for (let i = 0; i < 40 && requests[0].closedAt === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(requests[0].closedAt).toBeDefined();
      expect((requests[0].closedAt as number) - requests[0].at).toBeGreaterThanOrEqual(500);
      expect((requests[0].closedAt as number) - limitAt).toBeLessThan(1000);
      await worker.stop();
    });
  });

  it('should keep a task failed when its result arrives after the limit', async () => {
    const engine = unrulyEngine();
    const h = await harness(engine);
    const id = await submit(h, 'late:1500');
    const log = captureLogger();
    const worker = h.worker({ timeLimits: { local: 500 }, heartbeatMs: 100, leaseMs: 1000, log });
    await worker.start();
    await waitForTask(db, id);
    await expectStoppedAndRefunded(id, 1);
    const before = await readTask(db, id);
    // the engine answers a second later; give the worker time to (not) write it
    for (let i = 0; i < 100 && !engine.answered.includes('late:1500'); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(engine.answered).toEqual(['late:1500']);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await readTask(db, id)).toEqual(before);
    await expectStoppedAndRefunded(id, 1);
    expect((await jobOf(id)).state).toBe('failed');
    // nothing of the late result reached the media store
    expect((await readdir(h.mediaDir)).filter((name) => name.startsWith(id))).toEqual([]);
    expect(log.lines.some((line) => line.includes('task run ended after its time limit'))).toBe(true);
    await worker.stop();
  });
});
