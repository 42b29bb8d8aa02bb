import { spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { taskRepository } from '../src/repositories/task-repository.ts';
import { settleSuccess } from '../src/services/tasks/settle-task.ts';
import { createWebhookService, type WebhookService } from '../src/webhooks/index.ts';
import { recordCompletionWebhook, sendTaskWebhooks } from '../src/webhooks/task-webhooks.ts';
import { createTaskWorker } from '../src/workers/task-worker.ts';
import { asDashboard, captureLogger, createUser, post, type TestUser } from './helpers.ts';
import { crashAfterSettlement } from './support/crash-after-settlement.ts';
import {
  createPostgresDbWithUrl,
  grantCredits,
  ledgerOf,
  openTestDb,
  scriptedEngine,
  taskHarness,
  TERMINAL,
  waitForTask,
  type TaskHarness,
} from './support/tasks.ts';

const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface Received {
  event: string;
  taskId: string;
  webhookId: string;
}

// A worker dies right after the transaction that settles a task commits, before anything
// it meant to do next (emitting the event that used to enqueue the webhook). The completion
// must still reach the receiver, exactly once. On PostgreSQL the worker is a real process,
// SIGKILLed at that point; PGlite lives inside this process, so there the worker's code
// after the commit is cut off by a throw instead.
describe.each(testDatabaseKinds())('completion webhooks survive a worker crash after settlement on %s', (kind) => {
  let db: Db;
  let url = '';
  let h: TaskHarness;
  let user: TestUser;
  let receiver: http.Server;
  let receiverUrl: string;
  let dispatcher: WebhookService;
  const received: Received[] = [];

  beforeAll(async () => {
    if (kind === 'postgres') ({ db, url } = await createPostgresDbWithUrl());
    else db = await openTestDb(kind);
    h = await taskHarness(db, [scriptedEngine()]);
    user = await createUser(db);
    await grantCredits(db, user.id, 40);
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const taskId = (JSON.parse(body) as { task_id: string }).task_id;
        received.push({ event: String(req.headers['x-webhook-event']), taskId, webhookId: String(req.headers['webhook-id']) });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    // another process's dispatcher (an API instance): it was never told about the task
    dispatcher = createWebhookService({ db, log: captureLogger(), allowPrivateTargets: true, pollIntervalMs: 50 });
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await h?.cleanup();
    await new Promise((r) => receiver?.close(r));
    await db?.close();
  });

  /** Runs a worker until it has settled the one queued task, and kills it right after that commit. */
  async function runWorkerThatDiesAfterSettling(taskId: string): Promise<void> {
    if (kind === 'postgres') {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/settle-crash-worker.ts'], {
        cwd: serverDir,
        env: { ...process.env, DATABASE_URL: url, MEDIA_DIR: h.mediaDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
      expect({ code, signal }, stderr).toEqual({ code: null, signal: 'SIGKILL' });
    } else {
      const log = captureLogger();
      const crashing = crashAfterSettlement(db, () => {
        throw new Error('worker crashed right after the settlement commit');
      });
      const worker = createTaskWorker({ db: crashing, media: h.media, engines: h.engines, log, pollMs: 100 });
      const webhooks = createWebhookService({ db: crashing, log, allowPrivateTargets: true });
      sendTaskWebhooks({ db: crashing, events: worker, webhooks, log });
      await worker.start();
      await waitForTask(db, taskId);
      await worker.stop();
      expect(log.lines.join('\n')).toContain('worker crashed right after the settlement commit');
    }
    expect(TERMINAL).toContain((await waitForTask(db, taskId)).status);
  }

  const finalsFor = (taskId: string) => received.filter((r) => r.taskId === taskId && r.event !== 'task.progress');

  async function finalDeliveryRows(taskId: string) {
    const { rows } = await db.query<{ event: string; status: string }>(
      `select event, status from public.webhook_deliveries where task_id = $1 and event <> 'task.progress'`,
      [taskId],
    );
    return rows;
  }

  it('delivers task.completed and task.failed exactly once although the worker died before dispatching them', async () => {
    const submitted = await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt: 'durable success', webhook_url: `${receiverUrl}/per-request` } });
    expect(submitted.status).toBe(200);
    const { task_id: succeeded } = (await submitted.json()) as { task_id: string };
    await runWorkerThatDiesAfterSettling(succeeded);

    // the account's webhook URL this time, and an engine failure (refunded)
    expect((await post(h.app, '/auth/updateWebhookURL', { ...asDashboard(user), json: { url: `${receiverUrl}/account` } })).status).toBe(200);
    const failedRes = await post(h.app, '/flux/imagine', { key: user.apiKey, json: { prompt: 'fail:durable' } });
    const { task_id: failed } = (await failedRes.json()) as { task_id: string };
    await runWorkerThatDiesAfterSettling(failed);
    expect((await waitForTask(db, failed)).refund).toBe(1);

    expect(received).toEqual([]);
    dispatcher.start();
    await expect.poll(() => finalsFor(succeeded).length + finalsFor(failed).length, { timeout: 15_000, interval: 20 }).toBe(2);
    await dispatcher.stop();

    expect(finalsFor(succeeded).map((r) => r.event)).toEqual(['task.completed']);
    expect(finalsFor(failed).map((r) => r.event)).toEqual(['task.failed']);
    expect(await finalDeliveryRows(succeeded)).toEqual([{ event: 'task.completed', status: 'delivered' }]);
    expect(await finalDeliveryRows(failed)).toEqual([{ event: 'task.failed', status: 'delivered' }]);
    expect((await ledgerOf(db, failed)).map((l) => l.source_key)).toEqual([`hold:${failed}`, `refund:${failed}`]);
  });

  it('never records or sends a second completion: a replayed settlement, a late enqueue and late progress are dropped', async () => {
    const res = await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt: 'settled twice', webhook_url: `${receiverUrl}/twice` } });
    const { task_id: taskId } = (await res.json()) as { task_id: string };
    await runWorkerThatDiesAfterSettling(taskId);
    const row = (await taskRepository(db).findById(taskId))!;

    // a second settlement of the same task changes nothing; the outbox row is written again
    // (as a retried settlement might) and by an old-style enqueue after the commit
    expect(await db.transaction((tx) => settleSuccess(tx, row, { imageUrl: null, imageUrls: null, seed: null, result: {} }))).toBeUndefined();
    await db.transaction((tx) => recordCompletionWebhook(tx, row));
    const late = { userId: user.id, taskId, url: `${receiverUrl}/twice`, payload: { task_id: taskId } };
    expect(await dispatcher.enqueue({ ...late, event: 'task.completed' })).toBeNull();
    expect(await dispatcher.enqueue({ ...late, event: 'task.progress' })).toBeNull();
    expect(await finalDeliveryRows(taskId)).toEqual([{ event: 'task.completed', status: 'pending' }]);

    // two dispatchers at once, then again once everything is sent
    const other = createWebhookService({ db, log: captureLogger(), allowPrivateTargets: true });
    await Promise.all([dispatcher.dispatchDue(), other.dispatchDue()]);
    expect(await dispatcher.dispatchDue()).toBe(0);
    expect(finalsFor(taskId).map((r) => r.event)).toEqual(['task.completed']);
    expect(await finalDeliveryRows(taskId)).toEqual([{ event: 'task.completed', status: 'delivered' }]);
  });
});
