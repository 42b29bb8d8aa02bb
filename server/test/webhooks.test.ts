import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { Db } from '@aim/supabase/db';
import { createTestDb, testDatabaseKinds } from '@aim/supabase/testing';
import { createWebhookService, MAX_ATTEMPTS, verifyWebhookSignature, type WebhookServiceOptions } from '../src/webhooks/index.ts';
import { deliveryRepository } from '../src/webhooks/delivery-repository.ts';
import { captureLogger, createUser, type TestUser } from './helpers.ts';

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
type Answer = { status: number; body?: string; headers?: Record<string, string> };

/** A webhook receiver on 127.0.0.1 that records every request and answers with `respond`. */
async function startReceiver(respond: (req: Received, n: number) => Answer | Promise<Answer> = () => ({ status: 200 })) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const r = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      const a = await respond(r, received.length);
      res.writeHead(a.status, a.headers);
      res.end(a.body ?? '');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A clock the test moves by hand. */
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

const payloadFor = (taskId: string, status: string, percentage: number) => ({
  task_id: taskId,
  status,
  percentage,
  image_urls: status === 'finished' ? ['https://media.test/a.png'] : [],
});

describe.each(testDatabaseKinds())('webhook delivery on %s', (kind) => {
  let db: Db;
  let user: TestUser;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    db = await createTestDb(kind);
    user = await createUser(db);
  });
  afterAll(() => db?.close());
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    await db.exec('delete from public.webhook_deliveries');
  });

  async function receiver(respond?: Parameters<typeof startReceiver>[0]) {
    const r = await startReceiver(respond);
    closers.push(r.close);
    return r;
  }

  function service(clock: ReturnType<typeof testClock>, extra: Partial<WebhookServiceOptions> = {}) {
    const log = captureLogger();
    const svc = createWebhookService({ db, log, allowPrivateTargets: true, now: clock.now, random: () => 0.5, timeoutMs: 2000, ...extra });
    closers.push(() => svc.stop());
    return Object.assign(svc, { log });
  }

  async function deliveryRow(id: string) {
    const { rows } = await db.query<{
      status: string;
      attempt_count: number;
      next_attempt_at: Date;
      last_status_code: number | null;
      last_error: string | null;
    }>('select status, attempt_count, next_attempt_at, last_status_code, last_error from public.webhook_deliveries where id = $1', [id]);
    return rows[0];
  }

  it('POSTs the payload with the secret echoed and a Standard Webhooks signature, and records the attempt', async () => {
    const rx = await receiver(() => ({ status: 200, body: 'thanks' }));
    const clock = testClock();
    const svc = service(clock);
    const taskId = randomUUID();
    const payload = payloadFor(taskId, 'finished', 100);
    const id = await svc.enqueue({ userId: user.id, taskId, url: `${rx.url}/hook?x=1`, secret: 'my-request-secret', event: 'task.completed', payload });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    expect(await svc.dispatchDue()).toBe(1);
    expect(rx.received).toHaveLength(1);
    const [req] = rx.received;
    expect(req.path).toBe('/hook?x=1');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['user-agent']).toMatch(/^AIM-Webhooks\//);
    expect(req.headers['x-webhook-secret']).toBe('my-request-secret');
    expect(req.headers['x-webhook-event']).toBe('task.completed');
    expect(req.headers['webhook-id']).toBe(id);
    expect(Number(req.headers['webhook-timestamp'])).toBe(Math.floor(clock.now().getTime() / 1000));
    expect(JSON.parse(req.body)).toEqual(payload);
    expect(verifyWebhookSignature('my-request-secret', req.headers as Record<string, string>, req.body)).toMatchObject({ ok: true, id });
    expect(verifyWebhookSignature('another-secret', req.headers as Record<string, string>, req.body).ok).toBe(false);
    expect(new Webhook('my-request-secret', { format: 'raw' }).verify(req.body, req.headers as Record<string, string>)).toEqual(payload);

    const [delivery] = await svc.listDeliveries(user.id, taskId);
    expect(delivery).toMatchObject({ id, status: 'delivered', attempt_count: 1, last_status_code: 200, event: 'task.completed' });
    expect(delivery.attempts).toHaveLength(1);
    expect(delivery.attempts[0]).toMatchObject({ attempt: 1, status_code: 200, response_snippet: 'thanks', error: null });
    expect(delivery.attempts[0].latency_ms).toBeGreaterThanOrEqual(0);
    expect(svc.log.lines.join('\n')).not.toContain('my-request-secret');
    expect(svc.log.lines.join('\n')).not.toContain('/hook');
    expect(await svc.dispatchDue()).toBe(0);
  });

  it('signs with the account secret when the request gave none, and sends no x-webhook-secret', async () => {
    const rx = await receiver();
    const svc = service(testClock());
    const taskId = randomUUID();
    await svc.enqueue({ userId: user.id, taskId, url: rx.url, event: 'task.failed', payload: payloadFor(taskId, 'failed', 40) });
    await svc.dispatchDue();
    const [req] = rx.received;
    expect(req.headers['x-webhook-secret']).toBeUndefined();
    const secret = await svc.getSigningSecret(user.id);
    expect(secret).toMatch(/^whsec_/);
    expect(await svc.getSigningSecret(user.id)).toBe(secret);
    expect(new Webhook(secret).verify(req.body, req.headers as Record<string, string>)).toMatchObject({ status: 'failed' });
  });

  it('retries a receiver answering 500 twice with backoff, then delivers on the 3rd attempt', async () => {
    const rx = await receiver((_r, n) => (n <= 2 ? { status: 500, body: `boom ${n}` } : { status: 204 }));
    const clock = testClock();
    const svc = service(clock);
    const taskId = randomUUID();
    const id = (await svc.enqueue({
      userId: user.id,
      taskId,
      url: rx.url,
      secret: 's',
      event: 'task.completed',
      payload: payloadFor(taskId, 'finished', 100),
    }))!;

    await svc.dispatchDue();
    let row = await deliveryRow(id);
    expect(row).toMatchObject({ status: 'pending', attempt_count: 1, last_status_code: 500, last_error: 'HTTP 500' });
    // random() = 0.5 → no jitter: exactly the first step of the schedule
    expect(row.next_attempt_at.getTime() - clock.now().getTime()).toBe(10_000);

    clock.advance(9_000);
    expect(await svc.dispatchDue()).toBe(0);
    clock.set(row.next_attempt_at);
    await svc.dispatchDue();
    row = await deliveryRow(id);
    expect(row).toMatchObject({ status: 'pending', attempt_count: 2 });
    expect(row.next_attempt_at.getTime() - clock.now().getTime()).toBe(30_000);

    clock.set(row.next_attempt_at);
    await svc.dispatchDue();
    expect(await deliveryRow(id)).toMatchObject({ status: 'delivered', attempt_count: 3, last_status_code: 204, last_error: null });
    expect(rx.received.map((r) => r.headers['webhook-id'])).toEqual([id, id, id]);

    const [delivery] = await svc.listDeliveries(user.id, taskId);
    expect(delivery.attempts.map((a) => [a.attempt, a.status_code, a.response_snippet, a.error])).toEqual([
      [1, 500, 'boom 1', 'HTTP 500'],
      [2, 500, 'boom 2', 'HTTP 500'],
      [3, 204, null, null],
    ]);
    for (const a of delivery.attempts) expect(a.latency_ms).toBeGreaterThanOrEqual(0);
  });

  it(`gives up after ${MAX_ATTEMPTS} attempts when the receiver never answers 2xx`, async () => {
    const long = 'x'.repeat(3000);
    const rx = await receiver(() => ({ status: 503, body: long }));
    const clock = testClock();
    const svc = service(clock, { random: Math.random });
    const taskId = randomUUID();
    const id = (await svc.enqueue({ userId: user.id, taskId, url: rx.url, event: 'task.completed', payload: payloadFor(taskId, 'finished', 100) }))!;
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      const row = await deliveryRow(id);
      expect(row.status).toBe('pending');
      clock.set(row.next_attempt_at);
      expect(await svc.dispatchDue()).toBe(1);
    }
    expect(await deliveryRow(id)).toMatchObject({ status: 'failed', attempt_count: MAX_ATTEMPTS, last_status_code: 503 });
    clock.advance(30 * 24 * 3600_000);
    expect(await svc.dispatchDue()).toBe(0);
    expect(rx.received).toHaveLength(MAX_ATTEMPTS);
    const [delivery] = await svc.listDeliveries(user.id, taskId);
    expect(delivery.attempts).toHaveLength(MAX_ATTEMPTS);
    expect(delivery.attempts[0].response_snippet).toHaveLength(500);
  });

  it('records a timeout as a failed attempt and retries it', async () => {
    const rx = await receiver(() => new Promise<Answer>(() => {}));
    const svc = service(testClock(), { timeoutMs: 150 });
    const taskId = randomUUID();
    const id = (await svc.enqueue({ userId: user.id, taskId, url: rx.url, event: 'task.completed', payload: {} }))!;
    await svc.dispatchDue();
    expect(await deliveryRow(id)).toMatchObject({ status: 'pending', attempt_count: 1, last_status_code: null, last_error: 'timed out after 150 ms' });
  });

  it('refuses loopback and private targets when private targets are not allowed, without connecting', async () => {
    const rx = await receiver();
    const svc = service(testClock(), { allowPrivateTargets: false });
    const urls = [
      `http://localhost:${rx.port}/hook`,
      `${rx.url}/hook`,
      `http://[::1]:${rx.port}/hook`,
      `http://[::ffff:127.0.0.1]:${rx.port}/hook`,
      'http://169.254.169.254/latest/meta-data/',
      'http://192.168.0.10/hook',
    ];
    const ids = new Map<string, string>();
    for (const url of urls) {
      const taskId = randomUUID();
      await svc.enqueue({ userId: user.id, taskId, url, secret: 's', event: 'task.completed', payload: {} });
      ids.set(url, taskId);
    }
    expect(await svc.dispatchDue()).toBe(urls.length);
    expect(rx.received).toHaveLength(0);
    for (const [url, taskId] of ids) {
      const [d] = await svc.listDeliveries(user.id, taskId);
      expect(d.status, url).toBe('refused');
      expect(d.last_error, url).toMatch(/^refused: .* a (loopback|link-local|private) address$/);
      expect(d.attempts, url).toHaveLength(1);
      expect(d.attempts[0]).toMatchObject({ status_code: null, error: d.last_error });
    }
    expect(await svc.dispatchDue()).toBe(0);
  });

  it('does not follow redirects', async () => {
    const target = await receiver();
    const rx = await receiver(() => ({ status: 302, headers: { location: `${target.url}/elsewhere` } }));
    const svc = service(testClock());
    const taskId = randomUUID();
    const id = (await svc.enqueue({ userId: user.id, taskId, url: rx.url, event: 'task.completed', payload: {} }))!;
    await svc.dispatchDue();
    expect(rx.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
    expect(await deliveryRow(id)).toMatchObject({ status: 'pending', last_status_code: 302, last_error: 'redirect not followed (HTTP 302)' });
  });

  it('coalesces waiting progress events and always delivers the completion', async () => {
    const rx = await receiver();
    const clock = testClock();
    const svc = service(clock);
    const taskId = randomUUID();
    const send = (event: 'task.progress' | 'task.completed', pct: number) =>
      svc.enqueue({ userId: user.id, taskId, url: rx.url, event, payload: payloadFor(taskId, event === 'task.completed' ? 'finished' : 'processing', pct) });

    await send('task.progress', 10);
    await send('task.progress', 40);
    await svc.dispatchDue();
    expect(rx.received.map((r) => JSON.parse(r.body).percentage)).toEqual([40]);

    await send('task.progress', 70);
    await send('task.progress', 90);
    await send('task.completed', 100);
    // a late progress event after the final one is dropped
    expect(await send('task.progress', 95)).toBeNull();
    await svc.dispatchDue();
    expect(rx.received.map((r) => JSON.parse(r.body).percentage)).toEqual([40, 100]);
    expect(rx.received[1].headers['x-webhook-event']).toBe('task.completed');
    const statuses = (await svc.listDeliveries(user.id, taskId)).map((d) => `${d.event}:${d.status}`);
    expect(statuses).toEqual([
      'task.progress:superseded',
      'task.progress:delivered',
      'task.progress:superseded',
      'task.progress:superseded',
      'task.completed:delivered',
    ]);
  });

  it('a progress event being retried is superseded by the completion, which is delivered at once', async () => {
    const rx = await receiver((r) => (JSON.parse(r.body).status === 'processing' ? { status: 500 } : { status: 200 }));
    const clock = testClock();
    const svc = service(clock);
    const taskId = randomUUID();
    await svc.enqueue({ userId: user.id, taskId, url: rx.url, event: 'task.progress', payload: payloadFor(taskId, 'processing', 50) });
    await svc.dispatchDue();
    await svc.enqueue({ userId: user.id, taskId, url: rx.url, event: 'task.completed', payload: payloadFor(taskId, 'finished', 100) });
    await svc.dispatchDue();
    expect(rx.received.map((r) => JSON.parse(r.body).status)).toEqual(['processing', 'finished']);
    expect((await svc.listDeliveries(user.id, taskId)).map((d) => d.status)).toEqual(['superseded', 'delivered']);
  });

  it('keeps one task’s events in order for a target: a completion waits for the progress event in flight', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let arrived!: () => void;
    const progressArrived = new Promise<void>((r) => (arrived = r));
    const rx = await receiver(async (r) => {
      if (JSON.parse(r.body).status === 'processing') {
        arrived();
        await released;
      }
      return { status: 200 };
    });
    const svc = service(testClock());
    const taskId = randomUUID();
    await svc.enqueue({ userId: user.id, taskId, url: rx.url, event: 'task.progress', payload: payloadFor(taskId, 'processing', 50) });
    const dispatching = svc.dispatchDue();
    await progressArrived;
    await svc.enqueue({ userId: user.id, taskId, url: rx.url, event: 'task.completed', payload: payloadFor(taskId, 'finished', 100) });
    release();
    expect(await dispatching).toBe(2);
    expect(rx.received.map((r) => JSON.parse(r.body).status)).toEqual(['processing', 'finished']);
    expect((await svc.listDeliveries(user.id, taskId)).map((d) => d.status)).toEqual(['delivered', 'delivered']);
  });

  it('concurrent dispatchers never deliver the same event twice', async () => {
    const rx = await receiver(() => new Promise<Answer>((r) => setTimeout(() => r({ status: 200 }), 20)));
    const clock = testClock();
    const dispatchers = [service(clock, { batchSize: 2 }), service(clock, { batchSize: 2 }), service(clock, { batchSize: 2 })];
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const taskId = randomUUID();
      ids.push((await dispatchers[0].enqueue({ userId: user.id, taskId, url: rx.url, event: 'task.completed', payload: { i } }))!);
    }
    const counts = await Promise.all(dispatchers.map((d) => d.dispatchDue()));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(12);
    const seen = rx.received.map((r) => r.headers['webhook-id']);
    expect(seen).toHaveLength(12);
    expect(new Set(seen)).toEqual(new Set(ids));
    const { rows } = await db.query<{ n: number }>('select count(*)::int as n from public.webhook_attempts where delivery_id = any($1::uuid[])', [ids]);
    expect(rows[0].n).toBe(12);
  });

  // PGlite has one connection, so two claims can never overlap there; this needs a second session.
  if (kind === 'postgres') {
    it('a claim skips rows another dispatcher is claiming, instead of waiting or taking them too', async () => {
      const clock = testClock();
      const svc = service(clock);
      for (let i = 0; i < 3; i++) {
        await svc.enqueue({ userId: user.id, taskId: randomUUID(), url: 'http://127.0.0.1:9/', event: 'task.completed', payload: { i } });
      }
      const now = clock.now();
      const claim = (q: Db | Parameters<Parameters<Db['transaction']>[0]>[0], limit: number) =>
        deliveryRepository(q).claimDue({ now, leaseUntil: new Date(now.getTime() + 70_000), limit, token: randomUUID() });
      let second: Awaited<ReturnType<typeof claim>> | undefined;
      const first = await db.transaction(async (tx) => {
        const mine = await claim(tx, 1);
        // the other dispatcher claims while this transaction still holds its row
        second = await Promise.race([
          claim(db, 10),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the second claim waited for the first')), 3000).unref()),
        ]);
        return mine;
      });
      expect(first).toHaveLength(1);
      expect(second!.map((d) => d.id)).not.toContain(first[0].id);
      expect(second).toHaveLength(2);
    });
  }

  it('takes over a delivery whose dispatcher died once its lease is over', async () => {
    const rx = await receiver();
    const clock = testClock();
    const svc = service(clock);
    const taskId = randomUUID();
    const id = (await svc.enqueue({ userId: user.id, taskId, url: rx.url, event: 'task.completed', payload: {} }))!;
    // a dispatcher claims it and crashes before sending
    const now = clock.now();
    const lease = new Date(now.getTime() + 70_000);
    expect(await deliveryRepository(db).claimDue({ now, leaseUntil: lease, limit: 10, token: randomUUID() })).toHaveLength(1);
    expect(await svc.dispatchDue()).toBe(0);
    clock.set(lease);
    expect(await svc.dispatchDue()).toBe(1);
    expect(await deliveryRow(id)).toMatchObject({ status: 'delivered', attempt_count: 2 });
    expect(rx.received).toHaveLength(1);
  });

  it('start() delivers soon after an enqueue and stop() ends the polling', async () => {
    const rx = await receiver();
    const svc = service(testClock(), { pollIntervalMs: 50 });
    svc.start();
    const taskId = randomUUID();
    await svc.enqueue({ userId: user.id, taskId, url: rx.url, event: 'task.completed', payload: {} });
    await expect.poll(() => rx.received.length, { timeout: 5000, interval: 20 }).toBe(1);
    await svc.stop();
    await svc.enqueue({ userId: user.id, taskId: randomUUID(), url: rx.url, event: 'task.completed', payload: {} });
    await new Promise((r) => setTimeout(r, 150));
    expect(rx.received).toHaveLength(1);
  });

  it('enqueues inside the caller’s transaction: nothing is sent when it rolls back', async () => {
    const rx = await receiver();
    const svc = service(testClock());
    const taskId = randomUUID();
    await expect(
      db.transaction(async (tx) => {
        await svc.enqueue({ userId: user.id, taskId, url: rx.url, event: 'task.completed', payload: {} }, { tx });
        throw new Error('task update failed');
      }),
    ).rejects.toThrow('task update failed');
    expect(await svc.dispatchDue()).toBe(0);
    expect(await svc.listDeliveries(user.id, taskId)).toEqual([]);
  });

  it('lets clients read their own deliveries and attempts, never secrets, and write nothing', async () => {
    const rx = await receiver();
    const svc = service(testClock());
    const other = await createUser(db);
    const taskId = randomUUID();
    await svc.enqueue({ userId: user.id, taskId, url: rx.url, secret: 'hidden', event: 'task.completed', payload: {} });
    await svc.enqueue({ userId: other.id, taskId: randomUUID(), url: rx.url, event: 'task.completed', payload: {} });
    await svc.dispatchDue();

    const asUser = (userId: string, sql: string) =>
      db.transaction(async (tx) => {
        await tx.query("select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)", [
          JSON.stringify({ sub: userId, role: 'authenticated' }),
        ]);
        return (await tx.query(sql)).rows;
      });
    const mine = await asUser(user.id, 'select * from public.webhook_deliveries');
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ task_id: taskId, status: 'delivered' });
    expect(JSON.stringify(mine)).not.toContain('hidden');
    expect(await asUser(user.id, 'select * from public.webhook_attempts')).toHaveLength(1);
    await expect(asUser(user.id, 'select * from public.webhook_delivery_secrets')).rejects.toThrow(/permission denied/);
    await expect(asUser(user.id, 'select * from public.webhook_signing_secrets')).rejects.toThrow(/permission denied/);
    await expect(asUser(user.id, "update public.webhook_deliveries set status = 'pending'")).rejects.toThrow(/permission denied/);
    await expect(
      asUser(
        user.id,
        `insert into public.webhook_attempts (delivery_id, user_id, attempt, latency_ms) select id, user_id, 9, 1 from public.webhook_deliveries`,
      ),
    ).rejects.toThrow(/permission denied/);
  });
});
