import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { createWebhookService, verifyWebhookSignature, type WebhookService } from '../src/webhooks/index.ts';
import { taskRepository } from '../src/repositories/task-repository.ts';
import { createTaskEvents } from '../src/services/tasks/task-events.ts';
import { toTaskView, type TaskView } from '../src/services/tasks/task-view.ts';
import { sendTaskWebhooks } from '../src/webhooks/task-webhooks.ts';
import { asDashboard, captureLogger, createUser, post, type TestUser } from './helpers.ts';
import { grantCredits, openTestDb, taskHarness, waitForTask, type TaskHarness } from './support/tasks.ts';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

// The whole path of a webhook: a task submitted with webhook_url/webhook_secret (or an account
// webhook URL) → the worker's events → signed deliveries to a receiver on loopback.
describe.each(testDatabaseKinds())('task webhooks on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let webhooks: WebhookService;
  let user: TestUser;
  let receiver: http.Server;
  let receiverUrl: string;
  const received: Received[] = [];

  beforeAll(async () => {
    db = await openTestDb(kind);
    h = await taskHarness(db);
    const log = captureLogger();
    webhooks = createWebhookService({ db, log, allowPrivateTargets: true, pollIntervalMs: 50 });
    const worker = h.worker();
    sendTaskWebhooks({ db, events: worker, webhooks, log });
    webhooks.start();
    await worker.start();
    user = await createUser(db);
    await grantCredits(db, user.id, 100);
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await webhooks?.stop();
    await h?.cleanup();
    await new Promise((r) => receiver?.close(r));
    await db?.close();
  });

  const completionFor = async (taskId: string) => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const hit = received.find((r) => r.headers['x-webhook-event'] === 'task.completed' && (JSON.parse(r.body) as { task_id: string }).task_id === taskId);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`no completion webhook for ${taskId}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('delivers the completed task, signed with the request’s secret and echoing it', async () => {
    const res = await post(h.app, '/pro/imagine', {
      key: user.apiKey,
      json: { prompt: 'a red fox', webhook_url: `${receiverUrl}/per-request`, webhook_secret: 's3cret-value' },
    });
    expect(res.status).toBe(200);
    const { task_id } = (await res.json()) as { task_id: string };
    await waitForTask(db, task_id);
    const hit = await completionFor(task_id);
    expect(hit.headers['x-webhook-secret']).toBe('s3cret-value');
    const check = verifyWebhookSignature('s3cret-value', hit.headers as Record<string, string>, hit.body);
    expect(check.ok).toBe(true);
    expect(verifyWebhookSignature('another-secret', hit.headers as Record<string, string>, hit.body).ok).toBe(false);
    // the body is exactly what POST /fetch answers for the finished task (APIFRAME v1)
    const payload = JSON.parse(hit.body) as TaskView;
    const fetched = await post(h.app, '/fetch', { key: user.apiKey, json: { task_id } });
    expect(payload).toEqual({ ...(await fetched.json()), child_task_ids: undefined }); // /fetch's lineage, not in webhook bodies
    expect(payload).toMatchObject({ task_id, task_type: 'imagine', status: 'finished', percentage: '100' });
    expect(payload.image_urls).toHaveLength(4);
    expect(payload.original_image_url).toEqual(expect.any(String));
  });

  it('sends progress as the /fetch view of that moment: v1 statuses, string percentages, each signed', async () => {
    const res = await post(h.app, '/pro/imagine', {
      key: user.apiKey,
      json: { prompt: 'a slow river', webhook_url: `${receiverUrl}/progress`, webhook_secret: 'progress-secret' },
    });
    const { task_id } = (await res.json()) as { task_id: string };
    await waitForTask(db, task_id);
    await completionFor(task_id);
    const mine = received.filter((r) => (JSON.parse(r.body) as TaskView).task_id === task_id);
    const progress = mine.filter((r) => r.headers['x-webhook-event'] === 'task.progress').map((r) => JSON.parse(r.body) as TaskView);
    expect(progress.length).toBeGreaterThan(0);
    for (const hit of mine) expect(verifyWebhookSignature('progress-secret', hit.headers as Record<string, string>, hit.body).ok).toBe(true);
    for (const body of progress) {
      expect(['pending', 'starting', 'processing']).toContain(body.status);
      expect(body.percentage).toMatch(/^\d{1,2}$/);
      expect(body).not.toHaveProperty('actions');
      expect(body).toMatchObject({ task_id, task_type: 'imagine', prompt: 'a slow river', cost: 4 });
    }
    const percentages = progress.map((b) => Number(b.percentage));
    expect(percentages).toEqual([...percentages].sort((a, b) => a - b));
  });

  it('reads a progress body fresh, with what the queue knows: a job waiting for another attempt says retry', async () => {
    const { rows } = await db.query<{ id: string }>(
      `insert into public.tasks (user_id, email, type, status, percentage, prompt) values ($1, $2, 'imagine', 'queued', 30, 'again') returning id`,
      [user.id, user.email],
    );
    const taskId = rows[0].id;
    await db.query(`insert into public.task_jobs (task_id, queue, state, attempts, run_at) values ($1, 'nobody', 'queued', 1, now() + interval '1 hour')`, [
      taskId,
    ]);
    await db.query('insert into public.task_webhooks (task_id, url, secret) values ($1, $2, $3)', [taskId, `${receiverUrl}/retry`, 'retry-secret']);
    // what a worker emits after putting the job back: the row alone cannot tell a retry from a first wait
    const hub = createTaskEvents();
    const stop = sendTaskWebhooks({ db, events: hub, webhooks, log: captureLogger() });
    const row = await taskRepository(db).findById(taskId);
    hub.emit(toTaskView(row!), 'progress', { userId: user.id, email: user.email });
    stop();
    await expect
      .poll(() => received.some((r) => r.headers['x-webhook-event'] === 'task.progress' && JSON.parse(r.body).task_id === taskId), { timeout: 15_000 })
      .toBe(true);
    const hit = received.find((r) => JSON.parse(r.body).task_id === taskId)!;
    expect(verifyWebhookSignature('retry-secret', hit.headers as Record<string, string>, hit.body).ok).toBe(true);
    const fetched = await post(h.app, '/fetch', { key: user.apiKey, json: { task_id: taskId } });
    // /fetch's lineage and queue place (read when asked), not in webhook bodies
    expect(JSON.parse(hit.body)).toEqual({ ...(await fetched.json()), child_task_ids: undefined, queue_position: undefined, estimated_start_at: undefined });
    expect(JSON.parse(hit.body)).toMatchObject({ status: 'retry', percentage: '30' });
  });

  it('falls back to the account webhook URL, without an x-webhook-secret', async () => {
    const set = await post(h.app, '/auth/updateWebhookURL', { ...asDashboard(user), json: { url: `${receiverUrl}/account` } });
    expect(set.status).toBe(200);
    const res = await post(h.app, '/flux/imagine', { key: user.apiKey, json: { prompt: 'a blue lake' } });
    const { task_id } = (await res.json()) as { task_id: string };
    await waitForTask(db, task_id);
    const hit = await completionFor(task_id);
    expect(hit.headers['x-webhook-secret']).toBeUndefined();
    const secret = await webhooks.getSigningSecret(user.id);
    expect(verifyWebhookSignature(secret, hit.headers as Record<string, string>, hit.body).ok).toBe(true);
  });
});
