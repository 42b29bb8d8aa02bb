import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { createWebhookService, verifyWebhookSignature, type WebhookService } from '../src/webhooks/index.ts';
import { sendTaskWebhooks } from '../src/webhooks/task-webhooks.ts';
import { captureLogger, createUser, post, type TestUser } from './helpers.ts';
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
    const payload = JSON.parse(hit.body) as { status: string; image_urls: string[] };
    expect(payload.status).toBe('success');
    expect(payload.image_urls).toHaveLength(4);
  });

  it('falls back to the account webhook URL, without an x-webhook-secret', async () => {
    const set = await post(h.app, '/auth/updateWebhookURL', { key: user.apiKey, json: { url: `${receiverUrl}/account` } });
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
