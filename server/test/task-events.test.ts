/**
 * Live task events (server-sent events): GET /tasks/{task_id}/events and GET /events. Tasks
 * change the way the worker changes them (taskRepository's progress and settlement writes),
 * or through a real worker in another process (PostgreSQL). Covers order to the terminal event
 * and the end of the stream, Last-Event-ID resume (also on a second API instance after the
 * first shut down), heartbeats, tenant isolation, authentication, the type filter and the
 * per-account stream cap.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { createApiApp } from '../src/app.ts';
import { taskRepository } from '../src/repositories/task-repository.ts';
import { createTaskEventHub, type TaskEventHub } from '../src/services/task-events/task-event-hub.ts';
import { captureLogger, createUser, DASHBOARD_ORIGIN, post, testConfig, type TestUser } from './helpers.ts';
import { readSse } from './support/sse.ts';
import { createPostgresDbWithUrl, grantCredits, openTestDb, scriptedEngine, taskHarness } from './support/tasks.ts';

const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function apiInstance(db: Db, opts: { maxStreamsPerAccount?: number; heartbeatMs?: number } = {}) {
  const log = captureLogger();
  const hub: TaskEventHub = createTaskEventHub({ db, log, ...opts });
  return { app: createApiApp({ db, config: testConfig, log, taskEvents: hub }), hub };
}

type App = ReturnType<typeof createApiApp>;

function stream(app: App, pathname: string, opts: { key?: string; session?: string; lastEventId?: string } = {}) {
  const headers: Record<string, string> = {};
  if (opts.key) headers.authorization = opts.key;
  if (opts.session) headers['x-session-token'] = opts.session;
  if (opts.lastEventId) headers['last-event-id'] = opts.lastEventId;
  return app.request(pathname, { headers });
}

async function insertTask(db: Db, user: TestUser, type = 'imagine'): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `insert into public.tasks (user_id, email, type, status, prompt, cost) values ($1, $2, $3, 'pending', 'a lighthouse', 4) returning id`,
    [user.id, user.email, type],
  );
  return rows[0].id;
}

const body = (data: string) => JSON.parse(data) as { task_id: string; status: string; percentage: string; image_url?: string; task_type: string };

describe.each(testDatabaseKinds())('task events (SSE) on %s', (kind) => {
  let db: Db;
  let api: ReturnType<typeof apiInstance>;
  let user: TestUser;

  beforeAll(async () => {
    db = await openTestDb(kind);
    api = apiInstance(db, { heartbeatMs: 100 });
    user = await createUser(db);
  });
  afterAll(async () => {
    await api?.hub.close();
    await db?.close();
  });

  it('streams the current state, each progress step in order, then completed, and ends', async () => {
    const taskId = await insertTask(db, user);
    const res = await stream(api.app, `/tasks/${taskId}/events`, { key: user.apiKey });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const sse = readSse(res);
    const first = await sse.next();
    expect(first).toMatchObject({ event: 'progress' });
    expect(body(first!.data)).toMatchObject({ task_id: taskId, status: 'pending', percentage: '0' });

    const tasks = taskRepository(db);
    await tasks.recordProgress(taskId, 30, 'running');
    const second = await sse.next();
    expect(body(second!.data)).toMatchObject({ status: 'processing', percentage: '30' });
    await tasks.recordProgress(taskId, 70, 'running');
    const third = await sse.next();
    expect(body(third!.data)).toMatchObject({ status: 'processing', percentage: '70' });
    await tasks.markSucceeded(taskId, { imageUrl: 'http://localhost:8080/media/x.png', imageUrls: null, seed: null, result: { engine: 'test' } });
    const last = await sse.next();
    expect(last).toMatchObject({ event: 'completed' });
    expect(JSON.parse(last!.data)).toMatchObject({ status: 'finished', percentage: '100', original_image_url: 'http://localhost:8080/media/x.png' });
    const ids = [first, second, third, last].map((e) => Number(e!.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(4);
    expect(await sse.next()).toBeUndefined();
    // heartbeats were comments, never events
    expect(sse.comments).toContain('connected');
  });

  it('sends heartbeat comments while nothing changes', async () => {
    const taskId = await insertTask(db, user);
    const sse = readSse(await stream(api.app, `/tasks/${taskId}/events`, { key: user.apiKey }));
    await sse.next();
    await expect(sse.next(400)).rejects.toThrow(/no event within/);
    expect(sse.comments.filter((c) => c === 'heartbeat').length).toBeGreaterThanOrEqual(2);
    await sse.cancel();
  });

  it('resumes from Last-Event-ID with what was missed, on another API instance after the first shut down', async () => {
    const taskId = await insertTask(db, user);
    const first = apiInstance(db);
    const sse = readSse(await stream(first.app, `/tasks/${taskId}/events`, { key: user.apiKey }));
    const seen = await sse.next();
    await taskRepository(db).recordProgress(taskId, 20, 'running');
    const progress = await sse.next();
    expect(body(progress!.data).percentage).toBe('20');
    // the first API process stops: its streams end
    await first.hub.close();
    expect(await sse.next()).toBeUndefined();

    await taskRepository(db).recordProgress(taskId, 60, 'running');
    const second = apiInstance(db);
    try {
      const resumed = readSse(await stream(second.app, `/tasks/${taskId}/events`, { key: user.apiKey, lastEventId: progress!.id }));
      const missed = await resumed.next();
      expect(body(missed!.data).percentage).toBe('60');
      expect(Number(missed!.id)).toBeGreaterThan(Number(progress!.id));
      await taskRepository(db).markFailed(taskId, { message: 'Engine gave up', code: 'engine_failed' }, 4);
      const end = await resumed.next();
      expect(end).toMatchObject({ event: 'failed' });
      expect(body(end!.data)).toMatchObject({ status: 'failed' });
      expect(await resumed.next()).toBeUndefined();
      // a reconnect after the terminal event: nothing more (EventSource-style clients stop on 204)
      expect((await stream(second.app, `/tasks/${taskId}/events`, { key: user.apiKey, lastEventId: end!.id })).status).toBe(204);
      // an older id: the terminal state once more
      const late = readSse(await stream(second.app, `/tasks/${taskId}/events`, { key: user.apiKey, lastEventId: seen!.id }));
      expect(await late.next()).toMatchObject({ event: 'failed', id: end!.id });
      expect(await late.next()).toBeUndefined();
    } finally {
      await second.hub.close();
    }
  });

  it('keeps tenants apart: another account’s task is 404, its changes never reach another account’s stream', async () => {
    const other = await createUser(db);
    const taskId = await insertTask(db, user);
    const refused = await stream(api.app, `/tasks/${taskId}/events`, { key: other.apiKey });
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as { errors: { code: string }[] }).errors[0].code).toBe('not_found');
    expect((await stream(api.app, `/tasks/${taskId}/events`)).status).toBe(401);

    const theirs = readSse(await stream(api.app, '/events', { key: other.apiKey }));
    const mine = readSse(await stream(api.app, '/events', { key: user.apiKey }));
    await taskRepository(db).recordProgress(taskId, 50, 'running');
    expect(body((await mine.next())!.data)).toMatchObject({ task_id: taskId, percentage: '50' });
    await expect(theirs.next(300)).rejects.toThrow(/no event within/);
    await theirs.cancel();
    await mine.cancel();
  });

  it('lets the dashboard resume from another origin: Last-Event-ID passes the CORS preflight', async () => {
    const res = await api.app.request('/events', {
      method: 'OPTIONS',
      headers: {
        origin: DASHBOARD_ORIGIN,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization,last-event-id,x-session-token',
      },
    });
    expect(res.status).toBe(204);
    const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',');
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'last-event-id', 'x-session-token']));
  });

  it('accepts the dashboard session too', async () => {
    const taskId = await insertTask(db, user);
    const res = await stream(api.app, `/tasks/${taskId}/events`, { key: user.apiKey, session: user.session });
    expect(res.status).toBe(200);
    const sse = readSse(res);
    expect(body((await sse.next())!.data).task_id).toBe(taskId);
    await sse.cancel();
  });

  it('GET /events follows every task of the account, filtered by ?type=, and resumes from Last-Event-ID', async () => {
    const owner = await createUser(db);
    const sse = readSse(await stream(api.app, '/events?type=faceswap,upscale%231', { key: owner.apiKey }));
    const imagine = await insertTask(db, owner, 'imagine');
    const swap = await insertTask(db, owner, 'faceswap');
    const created = await sse.next();
    expect(body(created!.data)).toMatchObject({ task_id: swap, task_type: 'faceswap', status: 'pending' });
    await taskRepository(db).recordProgress(imagine, 40, 'running');
    await taskRepository(db).recordProgress(swap, 40, 'running');
    const step = await sse.next();
    expect(body(step!.data)).toMatchObject({ task_id: swap, percentage: '40' });
    await sse.cancel();

    // missed while away: the current state of each task that changed after the id
    await taskRepository(db).recordProgress(swap, 90, 'running');
    await taskRepository(db).markSucceeded(imagine, { imageUrl: null, imageUrls: ['a', 'b', 'c', 'd'], seed: null, result: {} });
    const all = readSse(await stream(api.app, '/events', { key: owner.apiKey, lastEventId: step!.id }));
    const replay = [await all.next(), await all.next()].map((e) => ({ event: e!.event, ...body(e!.data) }));
    expect(replay).toEqual([
      expect.objectContaining({ task_id: swap, event: 'progress', percentage: '90' }),
      expect.objectContaining({ task_id: imagine, event: 'completed', status: 'finished' }),
    ]);
    await all.cancel();
  });

  // two connections: a change whose version was drawn first commits after a later one
  if (kind === 'postgres') {
    it('GET /events resumed after a later version still gets a change that committed after it (ids drawn out of commit order)', async () => {
      const owner = await createUser(db);
      const [early, late] = [await insertTask(db, owner), await insertTask(db, owner)];
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let drawn!: () => void;
      const versionDrawn = new Promise<void>((resolve) => {
        drawn = resolve;
      });
      // a worker's write on another connection: its version is drawn now, committed later
      const slow = db.transaction(async (tx) => {
        await taskRepository(tx).recordProgress(early, 30, 'running');
        drawn();
        await held;
      });
      await versionDrawn;
      const live = readSse(await stream(api.app, '/events', { key: owner.apiKey }));
      await taskRepository(db).recordProgress(late, 50, 'running');
      const seen = await live.next();
      expect(body(seen!.data)).toMatchObject({ task_id: late, percentage: '50' });
      await live.cancel();
      // the client is away when the earlier version commits, and comes back with the later id
      release();
      await slow;
      const resumed = readSse(await stream(api.app, '/events', { key: owner.apiKey, lastEventId: seen!.id }));
      const events = [await resumed.next(), await resumed.next()].map((e) => body(e!.data));
      expect(Number(seen!.id)).toBeGreaterThan(0);
      expect(events).toEqual(
        expect.arrayContaining([expect.objectContaining({ task_id: early, percentage: '30' }), expect.objectContaining({ task_id: late, percentage: '50' })]),
      );
      await resumed.cancel();
    });
  }

  it('counts each connect as a read against the rate limits', async () => {
    const log = captureLogger();
    const hub = createTaskEventHub({ db, log });
    const limited = createApiApp({
      db,
      config: testConfig,
      log,
      taskEvents: hub,
      rateLimits: { submitPerKey: 100, submitPerAccount: 100, readPerKey: 2, accountPerAccount: 100, perAddress: 1000, trustProxyHops: 0 },
    });
    try {
      const owner = await createUser(db);
      const taskId = await insertTask(db, owner);
      for (let i = 0; i < 2; i++) {
        const res = await stream(limited, `/tasks/${taskId}/events`, { key: owner.apiKey });
        expect(res.status).toBe(200);
        await res.body?.cancel();
      }
      const third = await stream(limited, '/events', { key: owner.apiKey });
      expect(third.status).toBe(429);
      expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await hub.close();
    }
  });

  it('caps the streams one account holds open (429) and frees a slot when a client leaves', async () => {
    const capped = apiInstance(db, { maxStreamsPerAccount: 2 });
    try {
      const owner = await createUser(db);
      const a = readSse(await stream(capped.app, '/events', { key: owner.apiKey }));
      const taskId = await insertTask(db, owner);
      const b = await stream(capped.app, `/tasks/${taskId}/events`, { key: owner.apiKey });
      expect(b.status).toBe(200);
      const third = await stream(capped.app, '/events', { key: owner.apiKey });
      expect(third.status).toBe(429);
      expect(((await third.json()) as { errors: { msg: string }[] }).errors[0].msg).toMatch(/At most 2 event streams/);
      // another account is not affected
      expect((await stream(capped.app, '/events', { key: user.apiKey })).status).toBe(200);
      await a.cancel();
      await new Promise((r) => setTimeout(r, 20));
      expect((await stream(capped.app, '/events', { key: owner.apiKey })).status).toBe(200);
    } finally {
      await capped.hub.close();
    }
  });
});

for (const kind of testDatabaseKinds().filter((k) => k === 'postgres')) {
  describe(`task events from a worker in another process on ${kind}`, () => {
    const children: ChildProcess[] = [];
    afterAll(() => {
      for (const child of children) child.kill('SIGKILL');
    });

    it('streams the progress and completion a worker process writes, to an API process that only listens', async () => {
      const { db, url } = await createPostgresDbWithUrl();
      const h = await taskHarness(db, [scriptedEngine()]);
      try {
        const user = await createUser(db);
        await grantCredits(db, user.id, 10);
        const res = await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt: 'slow:400 from afar' } });
        const { task_id } = (await res.json()) as { task_id: string };
        const sse = readSse(await stream(h.app, `/tasks/${task_id}/events`, { key: user.apiKey }));
        expect(body((await sse.next())!.data).status).toBe('pending');

        const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/queue-child-worker.ts'], {
          cwd: serverDir,
          env: { ...process.env, DATABASE_URL: url, MEDIA_DIR: h.mediaDir, LEASE_MS: '5000' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        children.push(child);
        const events = [];
        for (;;) {
          const event = await sse.next(15_000);
          if (!event) break;
          events.push({ event: event.event, ...body(event.data) });
        }
        expect(events.at(-1)).toMatchObject({ event: 'completed', status: 'finished', percentage: '100' });
        const percentages = events.map((e) => Number(e.percentage));
        expect(percentages).toEqual([...percentages].sort((a, b) => a - b));
        expect(events.filter((e) => e.event === 'progress' && e.status === 'processing').length).toBeGreaterThan(0);
        child.kill('SIGTERM');
      } finally {
        await h.cleanup();
        await db.close();
      }
    }, 30_000);
  });
}
