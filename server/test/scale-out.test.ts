import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { createJobQueue } from '../src/queue/job-queue.ts';
import { createEngineRegistry } from '../src/services/tasks/engine-registry.ts';
import { clusterLimitsFromEnv, engineCapVariable, workerTimingFromEnv } from '../src/workers/runtime.ts';
import { captureLogger, createUser, post, type TestUser } from './helpers.ts';
import { sampleLeases } from './support/leases.ts';
import { grantCredits, openTestDb, readTask, scriptedEngine, taskHarness, waitForTask, type TaskHarness } from './support/tasks.ts';

describe('scaling settings from the environment', () => {
  const engines = createEngineRegistry([scriptedEngine('midjourney-proxy'), scriptedEngine('local')]);

  it('should cap no engine cluster-wide by default, every engine with ENGINE_MAX_RUNNING, one with its own variable', () => {
    expect(engineCapVariable('midjourney-proxy')).toBe('ENGINE_MAX_RUNNING_MIDJOURNEY_PROXY');
    expect(clusterLimitsFromEnv(engines, {})).toEqual({});
    expect(clusterLimitsFromEnv(engines, { ENGINE_MAX_RUNNING: '8' })).toEqual({ 'midjourney-proxy': 8, local: 8 });
    expect(clusterLimitsFromEnv(engines, { ENGINE_MAX_RUNNING: '8', ENGINE_MAX_RUNNING_MIDJOURNEY_PROXY: '3' })).toEqual({ 'midjourney-proxy': 3, local: 8 });
    expect(clusterLimitsFromEnv(engines, { ENGINE_MAX_RUNNING_LOCAL: '1' })).toEqual({ local: 1 });
    expect(() => clusterLimitsFromEnv(engines, { ENGINE_MAX_RUNNING: '0' })).toThrow('ENGINE_MAX_RUNNING must be a positive integer');
    expect(() => clusterLimitsFromEnv(engines, { ENGINE_MAX_RUNNING_LOCAL: 'many' })).toThrow('ENGINE_MAX_RUNNING_LOCAL');
  });

  it('should read short leases, their heartbeat and the shutdown grace, refusing a heartbeat as long as the lease', () => {
    expect(workerTimingFromEnv({})).toEqual({ leaseMs: 10_000, heartbeatMs: 3333, shutdownGraceMs: 20_000 });
    expect(workerTimingFromEnv({}, { shutdownGraceMs: 0 }).shutdownGraceMs).toBe(0);
    expect(workerTimingFromEnv({ WORKER_LEASE_MS: '3000', WORKER_HEARTBEAT_MS: '500', WORKER_SHUTDOWN_GRACE_MS: '0' })).toEqual({
      leaseMs: 3000,
      heartbeatMs: 500,
      shutdownGraceMs: 0,
    });
    expect(() => workerTimingFromEnv({ WORKER_LEASE_MS: '1000', WORKER_HEARTBEAT_MS: '1000' })).toThrow('must be shorter than WORKER_LEASE_MS');
    expect(() => workerTimingFromEnv({ WORKER_LEASE_MS: '10s' })).toThrow('WORKER_LEASE_MS must be a positive integer');
    expect(() => workerTimingFromEnv({ WORKER_SHUTDOWN_GRACE_MS: '-1' })).toThrow('WORKER_SHUTDOWN_GRACE_MS');
  });
});

async function jobOf(db: Db, taskId: string) {
  const { rows } = await db.query<{ state: string; attempts: number; locked_by: string | null; run_at: Date; claimed_at: Date | null }>(
    'select state, attempts, locked_by, run_at, claimed_at from public.task_jobs where task_id = $1',
    [taskId],
  );
  return rows[0];
}

describe.each(testDatabaseKinds())('scale-out workers on %s', (kind) => {
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

  async function submit(prompt: string): Promise<string> {
    const res = await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { task_id: string }).task_id;
  }

  it('should hold a cluster-wide engine cap across workers whatever each worker could take', async () => {
    const ids = await Promise.all(Array.from({ length: 5 }, (_, i) => submit(`slow:300 capped #${i}`)));
    const a = h.worker({ workerId: 'cap-a', concurrency: { local: 2 }, clusterLimits: { local: 2 } });
    const b = h.worker({ workerId: 'cap-b', concurrency: { local: 2 }, clusterLimits: { local: 2 } });
    const sample = await sampleLeases(db);
    await Promise.all([a.start(), b.start()]);
    const tasks = await Promise.all(ids.map((id) => waitForTask(db, id)));
    const { total } = await sample.stop();
    await Promise.all([a.stop(), b.stop()]);
    expect(tasks.map((t) => t.status)).toEqual(ids.map(() => 'finished'));
    for (let i = 0; i < 5; i++) expect(engine.runs.get(`slow:300 capped #${i}`)).toBe(1);
    expect(total).toBe(2);
  });

  it('should never let a dead worker’s lease hold capacity once it ran out', async () => {
    const dead = await submit('dead lease');
    const other = await submit('after the dead lease');
    const ghost = createJobQueue(db, { workerId: 'ghost', leaseMs: 300, backoffMs: 10, maxBackoffMs: 10 });
    expect((await ghost.claim('local', 1, null, [])).map((j) => j.task_id)).toEqual([dead]);
    // the cluster allows one job at once: the ghost's lease, until it expires
    const worker = h.worker({ workerId: 'after-ghost', clusterLimits: { local: 1 } });
    await worker.start();
    const tasks = await Promise.all([waitForTask(db, dead), waitForTask(db, other)]);
    await worker.stop();
    expect(tasks.map((t) => t.status)).toEqual(['finished', 'finished']);
    expect(await jobOf(db, dead)).toMatchObject({ state: 'done', attempts: 2, locked_by: 'after-ghost' });
  });

  it('should keep a short lease alive with heartbeats as long as the job runs', async () => {
    const id = await submit('slow:1500 heartbeat');
    const a = h.worker({ workerId: 'beating', leaseMs: 400, heartbeatMs: 100 });
    await a.start();
    await waitForTask(db, id, { until: (t) => t.percentage > 0 });
    // a second worker polling all along never takes the job over
    const b = h.worker({ workerId: 'watching', leaseMs: 400, heartbeatMs: 100 });
    await b.start();
    const task = await waitForTask(db, id);
    await Promise.all([a.stop(), b.stop()]);
    expect(task.status).toBe('finished');
    expect(engine.runs.get('slow:1500 heartbeat')).toBe(1);
    expect(await jobOf(db, id)).toMatchObject({ state: 'done', attempts: 1, locked_by: 'beating' });
  });

  it('should abandon a job whose lease another worker took over, without settling it', async () => {
    const id = await submit('slow:3000 stolen');
    const log = captureLogger();
    const worker = h.worker({ workerId: 'robbed', leaseMs: 400, heartbeatMs: 100, log });
    await worker.start();
    await waitForTask(db, id, { until: (t) => t.percentage > 0 });
    // what a takeover after an expiry looks like to the old holder: the token is no longer its own
    await db.query(`update public.task_jobs set lease_token = gen_random_uuid(), locked_by = 'thief' where task_id = $1`, [id]);
    await expect.poll(() => log.lines.some((l) => l.includes('task abandoned: lease lost')), { timeout: 10_000 }).toBe(true);
    await worker.stop();
    expect((await readTask(db, id)).status).not.toMatch(/finished|failed/);
    expect(await jobOf(db, id)).toMatchObject({ state: 'active', locked_by: 'thief' });
    await db.query(`update public.task_jobs set state = 'done', lease_token = null where task_id = $1`, [id]);
  });

  it('should let a running job finish within the shutdown grace period', async () => {
    const id = await submit('slow:400 graceful');
    const worker = h.worker({ workerId: 'graceful', shutdownGraceMs: 20_000 });
    await worker.start();
    await waitForTask(db, id, { until: (t) => t.percentage > 0 });
    await worker.stop();
    expect(worker.stopping).toBe(true);
    expect(worker.running).toBe(0);
    expect((await readTask(db, id)).status).toBe('finished');
    expect(await jobOf(db, id)).toMatchObject({ state: 'done', attempts: 1 });
  });

  it('should hand a job still running after the grace period back to its place in the queue', async () => {
    const id = await submit('slow:20000 handed back');
    const before = await jobOf(db, id);
    const worker = h.worker({ workerId: 'draining', shutdownGraceMs: 200 });
    await worker.start();
    await waitForTask(db, id, { until: (t) => t.percentage > 0 });
    const later = await submit('submitted later');
    await worker.stop();
    const released = await jobOf(db, id);
    expect(released).toMatchObject({ state: 'queued', attempts: 0, locked_by: null, claimed_at: null });
    expect(released.run_at.getTime()).toBe(before.run_at.getTime());
    expect((await readTask(db, id)).status).toBe('queued');
    // first in line again, ahead of what came after it
    const next = createJobQueue(db, { workerId: 'next', leaseMs: 60_000, backoffMs: 10, maxBackoffMs: 10, fairness: { mode: 'fifo' } });
    const claimed = await next.claim('local', 1, null, []);
    expect(claimed.map((j) => j.task_id)).toEqual([id]);
    await db.query(`update public.task_jobs set state = 'done', lease_token = null where task_id = any($1::uuid[])`, [[id, later]]);
  });
});
