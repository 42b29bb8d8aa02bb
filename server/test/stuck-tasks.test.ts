import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { createApiApp } from '../src/app.ts';
import { createLocalEngine } from '../src/engines/local/index.ts';
import { createLocalFaceEngine } from '../src/engines/local-face/index.ts';
import { createEngineRegistry } from '../src/services/tasks/engine-registry.ts';
import { createTaskSweeper, taskSweepFromEnv } from '../src/workers/task-sweeper.ts';
import { captureLogger, createUser, expectErrorBody, post, testConfig, type TestUser } from './helpers.ts';
import {
  balanceOf,
  grantCredits,
  ledgerOf,
  openTestDb,
  readTask,
  scriptedEngine,
  taskHarness,
  TEST_CELL_SIZE,
  waitForTask,
  type TaskHarness,
} from './support/tasks.ts';

async function jobOf(db: Db, taskId: string) {
  const { rows } = await db.query<{ state: string; last_error: string | null }>('select state, last_error from public.task_jobs where task_id = $1', [taskId]);
  return rows[0];
}

/** Moves a job's "runnable since" back, as if it had waited that long. */
async function age(db: Db, taskId: string, minutes: number) {
  await db.query(`update public.task_jobs set run_at = now() - make_interval(mins => $2) where task_id = $1`, [taskId, minutes]);
}

async function submit(h: TaskHarness, user: TestUser, path: string, prompt: string): Promise<string> {
  const res = await post(h.app, path, { key: user.apiKey, json: { prompt } });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { task_id: string }).task_id;
}

describe.each(testDatabaseKinds())('stuck tasks on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let user: TestUser;
  const sweeperLog = captureLogger();
  // two API instances / workers sweeping the same database, with the default limits
  const sweepers = () => [createTaskSweeper({ db, log: sweeperLog }), createTaskSweeper({ db, log: sweeperLog })];

  beforeAll(async () => {
    db = await openTestDb(kind);
    // the API sends Midjourney kinds to an `upstream` engine; the workers below only have `local`
    h = await taskHarness(db, [scriptedEngine('upstream', ['imagine']), scriptedEngine('local')]);
    user = await createUser(db);
    await grantCredits(db, user.id, 100);
  });
  afterAll(async () => {
    await h?.cleanup();
    await db?.close();
  });

  it('fails and refunds, exactly once, a task whose engine no running worker has', async () => {
    const before = await balanceOf(db, user.id);
    const orphan = await submit(h, user, '/pro/imagine', 'nobody runs me');
    const retired = await submit(h, user, '/flux/imagine', 'my engine was retired');
    await db.query(`update public.task_jobs set queue = 'retired-engine' where task_id = $1`, [retired]);
    const localOnly = h.worker({ workerId: 'local-only', engines: createEngineRegistry([scriptedEngine('local')]) });
    await localOnly.start();

    // not before the grace period: a worker may just be restarting
    expect(await Promise.all(sweepers().map((s) => s.sweep()))).toEqual([0, 0]);
    expect((await readTask(db, orphan)).status).toBe('pending');

    await age(db, orphan, 6);
    await age(db, retired, 6);
    const counts = await Promise.all(sweepers().map((s) => s.sweep()));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(2);
    expect(await sweepers()[0].sweep()).toBe(0);

    for (const [id, cost, queue] of [
      [orphan, 4, 'upstream'],
      [retired, 1, 'retired-engine'],
    ] as const) {
      expect(await readTask(db, id)).toMatchObject({
        status: 'failed',
        refund: cost,
        result: { code: 'no_worker', message: 'No worker is available to run this task. Your credits have been refunded.' },
      });
      expect(await jobOf(db, id)).toEqual({ state: 'failed', last_error: `no live worker serves queue ${queue}` });
      expect((await ledgerOf(db, id)).map((l) => l.source_key)).toEqual([`hold:${id}`, `refund:${id}`]);
    }
    expect((await balanceOf(db, user.id)).credits).toBe(before.credits);
    expect(sweeperLog.lines.filter((l) => l.includes('stuck task failed and refunded') && l.includes('no_worker'))).toHaveLength(2);
    await localOnly.stop();
  });

  it('fails a task queued past the deadline although a worker serves its queue, and leaves the running and the fresh ones alone', async () => {
    const busy = h.worker({ workerId: 'busy', concurrency: { local: 1, upstream: 1 } });
    await busy.start();
    const running = await submit(h, user, '/flux/imagine', 'slow:60000 busy');
    await waitForTask(db, running, { until: (t) => t.percentage > 0 });
    const waiting = await submit(h, user, '/flux/imagine', 'waited too long');
    const fresh = await submit(h, user, '/flux/imagine', 'just arrived');
    await age(db, waiting, 29);
    expect(await sweepers()[0].sweep()).toBe(0);
    await age(db, waiting, 31);
    const counts = await Promise.all(sweepers().map((s) => s.sweep()));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(1);

    expect(await readTask(db, waiting)).toMatchObject({
      status: 'failed',
      refund: 1,
      result: { code: 'queue_timeout', message: 'The task waited too long in the queue. Your credits have been refunded.' },
    });
    expect((await ledgerOf(db, waiting)).map((l) => l.source_key)).toEqual([`hold:${waiting}`, `refund:${waiting}`]);
    expect((await jobOf(db, running)).state).toBe('active');
    expect((await jobOf(db, fresh)).state).toBe('queued');
    await busy.stop();
    await db.query(`update public.task_jobs set state = 'done' where task_id = any($1::uuid[])`, [[running, fresh]]);
  });

  it('fails a job left active by a dead worker when no live worker serves its queue any more', async () => {
    const id = await submit(h, user, '/pro/imagine', 'abandoned upstream');
    await db.query(
      `update public.task_jobs set state = 'active', attempts = 1, lease_token = gen_random_uuid(), locked_by = 'dead',
              lease_expires_at = now() - interval '10 minutes' where task_id = $1`,
      [id],
    );
    expect(await sweepers()[0].sweep()).toBe(1);
    expect(await readTask(db, id)).toMatchObject({ status: 'failed', refund: 4, result: { code: 'no_worker' } });
  });

  it('registers a running worker with its queues and forgets it when it stops', async () => {
    const worker = h.worker({ workerId: 'registered', engines: createEngineRegistry([scriptedEngine('local')]) });
    await worker.start();
    const { rows } = await db.query<{ queues: string[] }>(`select queues from public.task_workers where id = 'registered'`);
    expect(rows).toEqual([{ queues: ['local'] }]);
    await worker.stop();
    expect((await db.query(`select 1 from public.task_workers where id = 'registered'`)).rows).toEqual([]);
  });

  it('runs periodically once started, and stops', async () => {
    const id = await submit(h, user, '/pro/imagine', 'swept by the timer');
    await age(db, id, 60);
    const sweeper = createTaskSweeper({ db, log: captureLogger(), intervalMs: 50 });
    sweeper.start();
    await waitForTask(db, id);
    await sweeper.stop();
    expect((await readTask(db, id)).result).toMatchObject({ code: 'no_worker' });
  });
});

describe('the sweep limits from the environment', () => {
  it.each([
    [{}, { deadlineMs: 1_800_000, unservedGraceMs: 300_000 }],
    [
      { TASK_QUEUE_DEADLINE_SECONDS: '600', TASK_UNSERVED_GRACE_SECONDS: '90' },
      { deadlineMs: 600_000, unservedGraceMs: 90_000 },
    ],
    [{ TASK_QUEUE_DEADLINE_SECONDS: '' }, { deadlineMs: 1_800_000, unservedGraceMs: 300_000 }],
  ])('%j → %j', (env, limits) => {
    expect(taskSweepFromEnv(env)).toEqual(limits);
  });

  it.each(['0', '-5', '1.5', 'ten'])('refuses TASK_QUEUE_DEADLINE_SECONDS=%s', (value) => {
    expect(() => taskSweepFromEnv({ TASK_QUEUE_DEADLINE_SECONDS: value })).toThrow(/TASK_QUEUE_DEADLINE_SECONDS must be a whole number of seconds above 0/);
  });
});

// Outside embedded mode nobody may pay for a procedural stand-in picture by mistake.
describe.each(testDatabaseKinds())('simulated engines at submit time on %s', (kind) => {
  let db: Db;
  let user: TestUser;

  beforeAll(async () => {
    db = await openTestDb(kind);
    user = await createUser(db);
    await grantCredits(db, user.id, 20);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });
  afterAll(async () => {
    await db?.close();
  });

  const appWith = (
    config: { embedded: boolean; allowSimulatedEngines?: boolean },
    engines = createEngineRegistry([createLocalEngine({ cellSize: TEST_CELL_SIZE })]),
  ) => {
    // billing outside embedded mode needs a provider: the sandbox, by explicit opt-in
    vi.stubEnv('BILLING_PROVIDER', 'sandbox');
    return createApiApp({ db, config: { ...testConfig, ...config }, log: captureLogger(), engines });
  };

  it('refuses a kind whose only engine is the simulated local one with a clear 400, holding nothing', async () => {
    const app = appWith({ embedded: false });
    const before = await balanceOf(db, user.id);
    for (const [path, type] of [
      ['/pro/imagine', 'imagine'],
      ['/flux/imagine', 'flux-imagine'],
      ['/ideogram/imagine', 'ideogram-imagine'],
    ]) {
      const res = await post(app, path, { key: user.apiKey, json: { prompt: 'a simulated cat' } });
      expect(res.status).toBe(400);
      expect(await expectErrorBody(res)).toEqual({
        code: 'engine_unavailable',
        msg: `${type} tasks are not available on this server: no generation engine is configured for them`,
      });
    }
    expect(await balanceOf(db, user.id)).toEqual(before);
    expect((await db.query('select 1 from public.tasks where user_id = $1', [user.id])).rows).toEqual([]);
  });

  it("counts the local face engine's template AI photos as simulated, its faceswap, upload and training as real", () => {
    const engines = createEngineRegistry([createLocalFaceEngine()]);
    expect(engines.isSimulated('ai-photo-generate')).toBe(true);
    for (const kind of ['faceswap', 'ai-photo-upload', 'ai-photo-train'] as const) expect(engines.isSimulated(kind), kind).toBe(false);
  });

  it('accepts them with ALLOW_SIMULATED_ENGINES, in embedded mode, and for kinds a real engine runs', async () => {
    for (const config of [{ embedded: false, allowSimulatedEngines: true }, { embedded: true }]) {
      const res = await post(appWith(config), '/flux/imagine', { key: user.apiKey, json: { prompt: 'allowed' } });
      expect(res.status, JSON.stringify(config)).toBe(200);
    }
    // a real upstream for Midjourney kinds: imagine is sold, flux (still only simulated) is not
    const app = appWith({ embedded: false }, createEngineRegistry([scriptedEngine('upstream', ['imagine']), createLocalEngine({ cellSize: TEST_CELL_SIZE })]));
    expect((await post(app, '/pro/imagine', { key: user.apiKey, json: { prompt: 'real' } })).status).toBe(200);
    expect((await post(app, '/flux/imagine', { key: user.apiKey, json: { prompt: 'still simulated' } })).status).toBe(400);
  });
});
