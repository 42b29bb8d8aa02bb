import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { createTestDb, testDatabaseKinds } from '@aim/supabase/testing';
import { createWebhookService, type WebhookServiceOptions } from '../src/webhooks/index.ts';
import { deliveryRepository } from '../src/webhooks/delivery-repository.ts';
import { TEST_EVENT_LIMITS } from '../src/webhooks/console.ts';
import { captureLogger, createUser, expectErrorBody, post, testApp, type TestUser } from './helpers.ts';

// Webhooks fair across accounts (issue 21): one account's dead receiver must not hold another
// account's deliveries; a per-account cap across dispatchers; a circuit breaker per endpoint;
// a limit on console test events.

/**
 * A receiver on 127.0.0.1 that records each request (path, arrival time) and answers with
 * `respond`; `never` leaves it unanswered (a silent endpoint). Tracks requests open per path.
 */
async function startReceiver(respond: (path: string) => number | 'never' | Promise<number> = () => 200) {
  const received: { path: string; at: number; body: string }[] = [];
  const open = new Map<string, number>();
  const maxOpen = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = req.url ?? '';
    const at = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      received.push({ path, at, body: Buffer.concat(chunks).toString('utf8') });
      open.set(path, (open.get(path) ?? 0) + 1);
      maxOpen.set(path, Math.max(maxOpen.get(path) ?? 0, open.get(path)!));
      const status = await respond(path);
      if (status === 'never') return;
      open.set(path, open.get(path)! - 1);
      res.writeHead(status);
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    received,
    maxOpen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function testClock() {
  let ms = Date.now();
  return {
    now: () => new Date(ms),
    set: (d: Date) => {
      ms = d.getTime();
    },
    advance: (by: number) => {
      ms += by;
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(testDatabaseKinds())('webhook fairness on %s', (kind) => {
  let db: Db;
  let app: ReturnType<typeof testApp>;
  let alice: TestUser;
  let bob: TestUser;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    db = await createTestDb(kind);
    app = testApp(db);
    alice = await createUser(db);
    bob = await createUser(db);
  });
  afterAll(() => db?.close());
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await db.exec('delete from public.webhook_deliveries; delete from public.webhook_endpoints');
  });

  async function receiver(respond?: Parameters<typeof startReceiver>[0]) {
    const r = await startReceiver(respond);
    closers.push(r.close);
    return r;
  }

  function service(extra: Partial<WebhookServiceOptions> = {}) {
    const svc = createWebhookService({ db, log: captureLogger(), allowPrivateTargets: true, random: () => 0.5, timeoutMs: 2000, pollIntervalMs: 50, ...extra });
    closers.push(() => svc.stop());
    return svc;
  }

  it("200 test events to a silent endpoint do not delay another account's task.completed", async () => {
    const silent = await receiver(() => 'never');
    const healthy = await receiver();
    const repo = deliveryRepository(db);
    for (let i = 0; i < 200; i++) await repo.insertTestEvent(alice.id, `${silent.url}/alice`, { i }, new Date());
    const svc = service();
    svc.start();
    // alice's first sends are out and hanging
    while (silent.received.length < 4) await sleep(20);
    await sleep(300);

    const taskId = randomUUID();
    const id = await svc.enqueue({ userId: bob.id, taskId, url: `${healthy.url}/bob`, event: 'task.completed', payload: { task_id: taskId } });
    const deadline = Date.now() + 5000;
    while (healthy.received.length === 0 && Date.now() < deadline) await sleep(5);
    expect(healthy.received).toHaveLength(1);
    const { rows } = await db.query<{ created_at: Date }>('select created_at from public.webhook_deliveries where id = $1', [id]);
    const delayMs = healthy.received[0].at - new Date(rows[0].created_at).getTime();
    console.log(`[fairness ${kind}] bob's task.completed arrived ${delayMs} ms after it was recorded, alice had 200 to a silent endpoint`);
    expect(delayMs).toBeLessThan(1000);
    // alice never has more than her cap (4) in flight
    expect(silent.maxOpen.get('/alice')).toBeLessThanOrEqual(4);
  });

  it('the breaker pauses an endpoint after 5 failures in a row, its deliveries wait, and Resume sends them', async () => {
    let status = 500;
    const rx = await receiver(() => status);
    const url = `${rx.url}/flaky`;
    const clock = testClock();
    const svc = service({ now: clock.now, accountConcurrency: 1 });
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      ids.push((await svc.enqueue({ userId: alice.id, taskId: randomUUID(), url, event: 'task.completed', payload: { i } }))!);
    }
    expect(await svc.dispatchDue()).toBe(5);
    expect(rx.received).toHaveLength(5);
    const endpoint = async () =>
      (
        await db.query<{ consecutive_failures: number; paused_until: Date | null; pauses: number }>(
          'select consecutive_failures, paused_until, pauses from public.webhook_endpoints where user_id = $1 and url = $2',
          [alice.id, url],
        )
      ).rows[0];
    const opened = await endpoint();
    expect(opened.consecutive_failures).toBe(5);
    expect(new Date(opened.paused_until!).getTime()).toBe(clock.now().getTime() + 60_000);

    // paused: nothing is attempted, even once the retries come due; nothing fails
    clock.advance(45_000);
    expect(await svc.dispatchDue()).toBe(0);
    const { rows } = await db.query<{ status: string; attempt_count: number }>(
      'select status, attempt_count from public.webhook_deliveries where id = any($1::uuid[]) order by seq',
      [ids],
    );
    expect(rows.map((r) => r.status)).toEqual(Array(8).fill('pending'));
    expect(rows.map((r) => r.attempt_count)).toEqual([1, 1, 1, 1, 1, 0, 0, 0]);

    // after the cool-down one more failure pauses it again, for twice as long
    clock.advance(16_000);
    expect(await svc.dispatchDue()).toBe(1);
    const reopened = await endpoint();
    expect(reopened.pauses).toBe(2);
    expect(new Date(reopened.paused_until!).getTime()).toBe(clock.now().getTime() + 120_000);

    // the console shows it, with the reason
    const list = await app.request('/auth/webhook-deliveries', { headers: { authorization: alice.apiKey } });
    expect(list.status).toBe(200);
    const page = (await list.json()) as { paused_endpoints: { url: string; reason: string; consecutive_failures: number; paused_until: string }[] };
    expect(page.paused_endpoints).toHaveLength(1);
    expect(page.paused_endpoints[0]).toMatchObject({ url, consecutive_failures: 6 });
    expect(page.paused_endpoints[0].reason).toMatch(/^Paused after 6 failures in a row; resumes at \d{4}-/);
    // someone else's console does not see it, nor resume it
    const theirs = (await (await app.request('/auth/webhook-deliveries', { headers: { authorization: bob.apiKey } })).json()) as {
      paused_endpoints: unknown[];
    };
    expect(theirs.paused_endpoints).toEqual([]);
    expect((await post(app, '/auth/webhook-endpoint/resume', { key: bob.apiKey, json: { url } })).status).toBe(404);

    // Resume: everything waiting is sent now, and a success closes the breaker
    status = 200;
    const resumed = await post(app, '/auth/webhook-endpoint/resume', { key: alice.apiKey, json: { url } });
    expect(resumed.status, await resumed.clone().text()).toBe(200);
    expect(await resumed.json()).toEqual({ url, resumed: 8 });
    clock.set(new Date(Date.now() + 1000));
    expect(await svc.dispatchDue()).toBe(8);
    const delivered = await db.query<{ status: string }>('select status from public.webhook_deliveries where id = any($1::uuid[])', [ids]);
    expect(delivered.rows.map((r) => r.status)).toEqual(Array(8).fill('delivered'));
    expect(await endpoint()).toMatchObject({ consecutive_failures: 0, paused_until: null, pauses: 0 });
  });

  it('a success closes the breaker: failures must be in a row', async () => {
    let n = 0;
    // fails 4 times, succeeds, fails 4 times: never paused
    const rx = await receiver(() => (++n === 5 ? 200 : 500));
    const clock = testClock();
    const svc = service({ now: clock.now, accountConcurrency: 1 });
    for (let i = 0; i < 9; i++) await svc.enqueue({ userId: alice.id, taskId: randomUUID(), url: rx.url, event: 'task.completed', payload: { i } });
    expect(await svc.dispatchDue()).toBe(9);
    const { rows } = await db.query<{ consecutive_failures: number; paused_until: Date | null }>(
      'select consecutive_failures, paused_until from public.webhook_endpoints where user_id = $1',
      [alice.id],
    );
    expect(rows).toEqual([{ consecutive_failures: 4, paused_until: null }]);
  });

  it('the per-account cap holds across two dispatchers on one database', async () => {
    const rx = await receiver(async () => {
      await sleep(150);
      return 200;
    });
    const a = service({ accountConcurrency: 2 });
    const b = service({ accountConcurrency: 2 });
    for (let i = 0; i < 12; i++) await a.enqueue({ userId: alice.id, taskId: randomUUID(), url: `${rx.url}/alice`, event: 'task.completed', payload: { i } });
    for (let i = 0; i < 3; i++) await a.enqueue({ userId: bob.id, taskId: randomUUID(), url: `${rx.url}/bob`, event: 'task.completed', payload: { i } });
    const counts = await Promise.all([a.dispatchDue(), b.dispatchDue(), a.dispatchDue(), b.dispatchDue()]);
    expect(counts.reduce((x, y) => x + y, 0)).toBe(15);
    expect(rx.received.filter((r) => r.path === '/alice')).toHaveLength(12);
    expect(rx.maxOpen.get('/alice')).toBeLessThanOrEqual(2);
    expect(rx.maxOpen.get('/bob')).toBeLessThanOrEqual(2);
    // bob was not queued behind alice's twelve: his last arrived before alice's last
    const last = (path: string) => Math.max(...rx.received.filter((r) => r.path === path).map((r) => r.at));
    expect(last('/bob')).toBeLessThan(last('/alice'));
    const { rows } = await db.query<{ n: number }>("select count(*)::int as n from public.webhook_deliveries where status = 'delivered'");
    expect(rows[0].n).toBe(15);
  });

  it(`limits test events: ${TEST_EVENT_LIMITS.pending} waiting at once, ${TEST_EVENT_LIMITS.perMinute} a minute (429 too_many_requests)`, async () => {
    await db.query('update public.mdusers set integration_webhook_url = $2 where id = $1', [alice.id, 'http://127.0.0.1:9/hook']);
    await db.query('update public.mdusers set integration_webhook_url = $2 where id = $1', [bob.id, 'http://127.0.0.1:9/hook']);
    const send = (user: TestUser) => post(app, '/auth/webhook-test', { key: user.apiKey });
    for (let i = 0; i < TEST_EVENT_LIMITS.pending; i++) expect((await send(alice)).status).toBe(200);
    const waiting = await send(alice);
    expect(waiting.status).toBe(429);
    const e1 = await expectErrorBody(waiting);
    expect(e1.code).toBe('too_many_requests');
    expect(e1.msg).toMatch(/still waiting to be delivered/);
    // another account is not limited by alice's
    expect((await send(bob)).status).toBe(200);

    // delivered ones free the waiting slots, up to the per-minute limit
    await db.query("update public.webhook_deliveries set status = 'delivered' where user_id = $1", [alice.id]);
    for (let i = TEST_EVENT_LIMITS.pending; i < TEST_EVENT_LIMITS.perMinute; i++) {
      expect((await send(alice)).status).toBe(200);
      await db.query("update public.webhook_deliveries set status = 'delivered' where user_id = $1", [alice.id]);
    }
    const perMinute = await send(alice);
    expect(perMinute.status).toBe(429);
    expect((await expectErrorBody(perMinute)).msg).toMatch(/At most 10 test events a minute/);

    // a minute later it is allowed again
    await db.query("update public.webhook_deliveries set created_at = created_at - interval '61 seconds' where user_id = $1", [alice.id]);
    expect((await send(alice)).status).toBe(200);
  });
});
