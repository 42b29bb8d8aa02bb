import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { createApiApp } from '../src/app.ts';
import { initMetrics } from '../src/observability/metrics.ts';
import { taskRepository } from '../src/repositories/task-repository.ts';
import { createBilling, sandboxOf } from '../src/services/billing/billing.ts';
import { handleBillingEvent } from '../src/services/billing/handle-event.ts';
import { settleFailure } from '../src/services/tasks/settle-task.ts';
import { createWebhookService } from '../src/webhooks/index.ts';
import { captureLogger, createUser, post, testConfig, type TestUser } from './helpers.ts';
import { billingState, subscribedUser } from './support/billing.ts';
import { grantCredits, openTestDb, scriptedEngine, taskHarness, type TaskHarness, waitForTask } from './support/tasks.ts';

type App = ReturnType<typeof createApiApp>;

initMetrics('api');

async function scrape(app: App, headers: Record<string, string> = {}): Promise<string> {
  const res = await app.request('/metrics', { headers });
  expect(res.status).toBe(200);
  return res.text();
}

/** The sum of the samples of `name` whose labels include `labels` (0 when none). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) sum += Number(m[3]);
  }
  return sum;
}

/** Scrapes until `name{labels}` differs from `before` (events that land after the call that caused them). */
async function moved(app: App, name: string, labels: Record<string, string>, before: number): Promise<number> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const now = sample(await scrape(app), name, labels);
    if (now !== before || Date.now() > deadline) return now;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('GET /metrics: who may scrape', () => {
  const db = {} as Db;
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('should answer the Prometheus text format in embedded mode (loopback only) without a token, every series labelled with the role', async () => {
    const app = createApiApp({ db, config: testConfig, log: captureLogger() });
    const res = await app.request('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = await res.text();
    expect(text).toContain('# TYPE aim_http_requests_total counter');
    expect(text).toContain('# TYPE aim_queue_depth gauge');
    expect(sample(text, 'process_cpu_user_seconds_total', { role: 'api' })).toBeGreaterThan(0);
  });

  it('should ask for the METRICS_TOKEN bearer when one is set, in any mode', async () => {
    vi.stubEnv('METRICS_TOKEN', 'scrape-secret-1');
    for (const embedded of [true, false]) {
      const app = createApiApp({ db, config: { ...testConfig, embedded }, log: captureLogger(), env: { BILLING_PROVIDER: 'sandbox' } });
      for (const authorization of [undefined, 'Bearer wrong', 'scrape-secret-1', 'Bearer scrape-secret-1x']) {
        const res = await app.request('/metrics', { headers: authorization ? { authorization } : {} });
        expect(res.status, `${embedded} ${authorization}`).toBe(403);
        expect(await res.text()).not.toContain('aim_');
      }
      const ok = await app.request('/metrics', { headers: { authorization: 'Bearer scrape-secret-1' } });
      expect(ok.status).toBe(200);
    }
  });

  it('should stay off outside embedded mode without a token, saying which setting turns it on', async () => {
    const app = createApiApp({ db, config: { ...testConfig, embedded: false }, log: captureLogger(), env: { BILLING_PROVIDER: 'sandbox' } });
    const res = await app.request('/metrics');
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toBe('Metrics are off: set METRICS_TOKEN to scrape them');
  });
});

describe('HTTP metrics', () => {
  it('should count requests and their latency by method, route pattern and status, never by raw path', async () => {
    const app = createApiApp({ db: {} as Db, config: testConfig, log: captureLogger() });
    const health = { method: 'GET', route: '/health', status: '200' };
    const media = { method: 'GET', route: '/media/:key', status: '404' };
    const unmatched = { method: 'POST', route: 'unmatched', status: '404' };
    const before = await scrape(app);
    await app.request('/health');
    await app.request('/health');
    await app.request('/media/nope-1.png');
    await app.request('/media/nope-2.png');
    await app.request('/no/such/route', { method: 'POST' });
    const after = await scrape(app);
    expect(sample(after, 'aim_http_requests_total', health) - sample(before, 'aim_http_requests_total', health)).toBe(2);
    expect(sample(after, 'aim_http_request_duration_seconds_count', health) - sample(before, 'aim_http_request_duration_seconds_count', health)).toBe(2);
    expect(sample(after, 'aim_http_requests_total', media) - sample(before, 'aim_http_requests_total', media)).toBe(2);
    expect(sample(after, 'aim_http_requests_total', unmatched) - sample(before, 'aim_http_requests_total', unmatched)).toBe(1);
    expect(after).not.toContain('nope-1');
    expect(after).not.toContain('/no/such/route');
  });
});

describe.each(testDatabaseKinds())('task, queue, webhook and credit metrics on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let app: App;
  let user: TestUser;
  let receiver: http.Server;
  let receiverUrl: string;
  const answers: number[] = [];

  beforeAll(async () => {
    db = await openTestDb(kind);
    h = await taskHarness(db, [scriptedEngine()]);
    app = createApiApp({ db, config: testConfig, log: captureLogger(), media: h.media, engines: h.engines });
    user = await createUser(db);
    await grantCredits(db, user.id, 100);
    receiver = http.createServer((_req, res) => res.writeHead(answers.shift() ?? 204).end());
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await h?.cleanup();
    await new Promise((r) => receiver?.close(r));
    await db?.close();
  });

  async function submit(prompt: string): Promise<string> {
    const res = await post(app, '/pro/imagine', { key: user.apiKey, json: { prompt } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { task_id: string }).task_id;
  }

  it('should show queue depth, running jobs and the oldest waiting job’s age by engine, read from the database at scrape time', async () => {
    const empty = await scrape(app);
    // an engine of the registry is reported even with nothing queued
    expect(empty).toMatch(/^aim_queue_depth\{[^}]*engine="local"[^}]*\} 0$/m);
    expect(sample(empty, 'aim_queue_depth', { engine: 'local', role: 'api' })).toBe(0);
    const { rows } = await db.query<{ id: string }>(
      `insert into public.tasks (user_id, email, type, status, prompt) select $1, $2, 'imagine', 'pending', 'waits' from generate_series(1, 3) returning id`,
      [user.id, user.email],
    );
    for (const [i, row] of rows.entries()) {
      await db.query(`insert into public.task_jobs (task_id, queue, created_at) values ($1, 'obs-nobody', now() - make_interval(secs => $2))`, [
        row.id,
        90 - i * 30,
      ]);
    }
    const queued = await scrape(app);
    expect(sample(queued, 'aim_queue_depth', { engine: 'obs-nobody' })).toBe(3);
    expect(sample(queued, 'aim_queue_running_jobs', { engine: 'obs-nobody' })).toBe(0);
    expect(sample(queued, 'aim_queue_oldest_job_age_seconds', { engine: 'obs-nobody' })).toBeGreaterThanOrEqual(90);

    await db.query(
      `update public.task_jobs set state = 'active', lease_token = gen_random_uuid(), lease_expires_at = now() + interval '1 minute' where task_id = $1`,
      [rows[0].id],
    );
    const oneRunning = await scrape(app);
    expect(sample(oneRunning, 'aim_queue_depth', { engine: 'obs-nobody' })).toBe(2);
    expect(sample(oneRunning, 'aim_queue_running_jobs', { engine: 'obs-nobody' })).toBe(1);
    const age = sample(oneRunning, 'aim_queue_oldest_job_age_seconds', { engine: 'obs-nobody' });
    expect(age).toBeGreaterThanOrEqual(60);
    expect(age).toBeLessThan(90);

    await db.query(`update public.task_jobs set state = 'done' where queue = 'obs-nobody'`);
    const drained = await scrape(app);
    expect(sample(drained, 'aim_queue_depth', { engine: 'obs-nobody' })).toBe(0);
    expect(sample(drained, 'aim_queue_oldest_job_age_seconds', { engine: 'obs-nobody' })).toBe(0);
  });

  it('should count each job run by engine and outcome with its duration, and the credits held and refunded by task type (refunds once)', async () => {
    const job = (outcome: string) => ({ engine: 'local', outcome });
    const before = await scrape(app);
    const worker = h.worker();
    await worker.start();
    const ok = await submit('all good');
    const bad = await submit('fail:metrics');
    const flaky = await submit('flaky:1');
    for (const id of [ok, bad, flaky]) await waitForTask(db, id);
    // the run's end is counted right after the task row is written
    await moved(app, 'aim_jobs_total', { engine: 'local' }, sample(before, 'aim_jobs_total', { engine: 'local' }) + 3);
    const after = await scrape(app);
    const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('aim_jobs_total', job('success'))).toBe(2);
    expect(delta('aim_jobs_total', job('failed'))).toBe(1);
    expect(delta('aim_jobs_total', job('requeued'))).toBe(1);
    expect(delta('aim_job_duration_seconds_count', job('success'))).toBe(2);
    expect(delta('aim_job_duration_seconds_bucket', { ...job('failed'), le: '+Inf' })).toBe(1);
    expect(delta('aim_credits_spent_total', { kind: 'imagine' })).toBe(12);
    expect(delta('aim_credits_refunded_total', { kind: 'imagine' })).toBe(4);

    // a duplicated settlement of the failed task refunds nothing and counts nothing
    const row = await taskRepository(db).findById(bad);
    await db.transaction((tx) => settleFailure(tx, { ...row!, status: 'processing' }, { message: 'again', code: 'internal' }));
    expect(sample(await scrape(app), 'aim_credits_refunded_total', { kind: 'imagine' })).toBe(sample(after, 'aim_credits_refunded_total', { kind: 'imagine' }));

    // a refused submit (not enough credits) holds nothing
    const poor = await createUser(db);
    const refused = await post(app, '/pro/imagine', { key: poor.apiKey, json: { prompt: 'broke' } });
    expect(refused.status).toBe(402);
    expect(sample(await scrape(app), 'aim_credits_spent_total', { kind: 'imagine' })).toBe(sample(after, 'aim_credits_spent_total', { kind: 'imagine' }));
  });

  it('should count webhook attempts by event and outcome: a retry, then delivered; refused targets', async () => {
    const taskId = await submit('for webhooks');
    let clock = new Date();
    const service = createWebhookService({ db, log: captureLogger(), allowPrivateTargets: true, now: () => clock, random: () => 0.5 });
    const attempts = (outcome: string) => ({ event: 'task.progress', outcome });
    const before = await scrape(app);
    answers.push(500);
    expect(await service.enqueue({ userId: user.id, taskId, url: receiverUrl, event: 'task.progress', payload: { n: 1 } })).toEqual(expect.any(String));
    expect(await service.dispatchDue()).toBe(1);
    const retried = await scrape(app);
    expect(sample(retried, 'aim_webhook_attempts_total', attempts('retry')) - sample(before, 'aim_webhook_attempts_total', attempts('retry'))).toBe(1);
    expect(sample(retried, 'aim_webhook_attempts_total', attempts('delivered'))).toBe(sample(before, 'aim_webhook_attempts_total', attempts('delivered')));

    clock = new Date(clock.getTime() + 24 * 3600_000);
    expect(await service.dispatchDue()).toBe(1);
    const delivered = await scrape(app);
    expect(sample(delivered, 'aim_webhook_attempts_total', attempts('delivered')) - sample(before, 'aim_webhook_attempts_total', attempts('delivered'))).toBe(
      1,
    );

    const guarded = createWebhookService({ db, log: captureLogger(), allowPrivateTargets: false, now: () => clock });
    await guarded.enqueue({ userId: user.id, taskId, url: `${receiverUrl}/private`, event: 'task.progress', payload: { n: 2 } });
    expect(await guarded.dispatchDue()).toBe(1);
    const refused = await scrape(app);
    expect(sample(refused, 'aim_webhook_attempts_total', attempts('refused')) - sample(before, 'aim_webhook_attempts_total', attempts('refused'))).toBe(1);
  });

  it('should count credits granted by payments by kind, once however often the payment event is replayed', async () => {
    const billing = createBilling({ db, log: captureLogger(), embedded: true, env: {} });
    const billed = createApiApp({ db, config: testConfig, log: captureLogger(), billing });
    const subscription = { kind: 'subscription' };
    const before = sample(await scrape(billed), 'aim_credits_granted_total', subscription);
    const payer = await subscribedUser(billed, db);
    const after = await moved(billed, 'aim_credits_granted_total', subscription, before);
    const { rows } = await db.query<{ credits: number }>('select credits from public.mdusers where id = $1', [payer.id]);
    expect(after - before).toBe(rows[0].credits);
    expect(rows[0].credits).toBeGreaterThan(0);

    const { customer_id } = await billingState(db, payer.id);
    const paid = (await sandboxOf(billing)!.events(customer_id!)).filter((e) => e.type === 'invoice.paid');
    expect(paid).toHaveLength(1);
    await Promise.all([0, 1, 2].map((i) => handleBillingEvent(billing, { ...paid[0], id: `evt_obs_replay_${i}` })));
    await handleBillingEvent(billing, paid[0]);
    expect(sample(await scrape(billed), 'aim_credits_granted_total', subscription)).toBe(after);
  });
});
