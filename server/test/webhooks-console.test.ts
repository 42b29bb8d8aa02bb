import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { Db } from '@aim/supabase/db';
import { createTestDb, testDatabaseKinds } from '@aim/supabase/testing';
import { createWebhookService, verifyWebhookSignature } from '../src/webhooks/index.ts';
import { asDashboard, captureLogger, createUser, expectErrorBody, post, testApp, type TestUser } from './helpers.ts';

// The API Keys screen's webhook console: the signing secret (reveal, rotate with a 24 h overlap),
// the recent deliveries with their attempts, Resend and Send test event, each for its owner only.

type Received = { headers: Record<string, string>; body: string };

async function startReceiver(status: (n: number) => number = () => 200) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status(received.length));
      res.end(`answer ${received.length}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const HOUR = 3600_000;

describe.each(testDatabaseKinds())('webhook console on %s', (kind) => {
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
    for (const close of closers.splice(0)) await close();
    await db.exec('delete from public.webhook_deliveries');
  });

  // as the dashboard does: the API key, and the session (the signing secret needs it)
  const get = (path: string, user?: TestUser) => app.request(path, { headers: user ? { authorization: user.apiKey, 'x-session-token': user.session } : {} });
  const json = async <T>(res: Response | Promise<Response>, status = 200): Promise<T> => {
    const r = await res;
    expect(r.status, await r.clone().text()).toBe(status);
    return (await r.json()) as T;
  };
  type Secret = { secret: string; created_at: string; previous_secret: string | null; previous_expires_at: string | null };
  type Delivery = {
    id: string;
    event: string;
    task_id: string | null;
    status: string;
    attempt_count: number;
    last_status_code: number | null;
    latency_ms: number | null;
    next_attempt_at: string | null;
    payload: Record<string, unknown>;
    attempts: { attempt: number; status_code: number | null; response_excerpt: string | null; latency_ms: number }[];
  };
  type Page = { deliveries: Delivery[]; next_before: string | null };

  async function receiver(status?: (n: number) => number) {
    const r = await startReceiver(status);
    closers.push(r.close);
    return r;
  }
  function dispatcher(now: () => Date = () => new Date()) {
    const svc = createWebhookService({ db, log: captureLogger(), allowPrivateTargets: true, now, random: () => 0.5, timeoutMs: 2000 });
    closers.push(() => svc.stop());
    return svc;
  }
  const setWebhookUrl = (user: TestUser, url: string | null) =>
    db.query('update public.mdusers set integration_webhook_url = $2 where id = $1', [user.id, url]);
  const completion = (user: TestUser, url: string) => {
    const taskId = randomUUID();
    return { userId: user.id, taskId, url, event: 'task.completed' as const, payload: { task_id: taskId, status: 'finished', percentage: '100' } };
  };

  it('shows the account signing secret to its owner only, whsec_ + base64 of 32 bytes, the same on every read', async () => {
    expect((await get('/auth/webhook-signing-secret')).status).toBe(401);
    const res = await get('/auth/webhook-signing-secret', alice);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const a = await json<Secret>(res);
    expect(a.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.secret.slice(6), 'base64')).toHaveLength(32);
    expect(a).toMatchObject({ previous_secret: null, previous_expires_at: null });
    expect((await json<Secret>(get('/auth/webhook-signing-secret', alice))).secret).toBe(a.secret);
    // another tenant's key reads its own secret, never alice's
    const b = await json<Secret>(get('/auth/webhook-signing-secret', bob));
    expect(b.secret).not.toBe(a.secret);
    // and the client roles cannot read the secrets table at all
    await expect(
      db.transaction(async (tx) => {
        await tx.exec("set local role authenticated; select set_config('request.jwt.claims', json_build_object('sub', gen_random_uuid())::text, true)");
        return tx.query('select secret from public.webhook_signing_secrets');
      }),
    ).rejects.toThrow(/permission denied/);
  });

  it('rotates: the old secret signs beside the new one for 24 h (both verify with the official library), then only the new one', async () => {
    const rx = await receiver();
    const before = await json<Secret>(get('/auth/webhook-signing-secret', alice));
    const rotated = await json<Secret>(post(app, '/auth/webhook-signing-secret/rotate', { ...asDashboard(alice) }));
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(before.secret);
    expect(rotated.previous_secret).toBe(before.secret);
    const expires = new Date(rotated.previous_expires_at as string).getTime();
    expect(expires - new Date(rotated.created_at).getTime()).toBe(24 * HOUR);
    expect(await json<Secret>(get('/auth/webhook-signing-secret', alice))).toEqual(rotated);
    // bob's secret did not move
    expect((await json<Secret>(get('/auth/webhook-signing-secret', bob))).previous_secret).toBeNull();

    // during the overlap (now): two v1 signatures, the official library verifies with either secret
    let now = new Date();
    const svc = dispatcher(() => now);
    await svc.enqueue(completion(alice, rx.url));
    await svc.dispatchDue();
    const during = rx.received[0];
    expect(during.headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [rotated.secret, before.secret]) expect(new Webhook(secret).verify(during.body, during.headers)).toMatchObject({ status: 'finished' });

    // a second past the overlap: one signature, by the new secret; the old one no longer verifies
    now = new Date(expires + 1000);
    await svc.enqueue(completion(alice, rx.url));
    await svc.dispatchDue();
    const after = rx.received[1];
    expect(after.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(verifyWebhookSignature(rotated.secret, after.headers, after.body, { now })).toMatchObject({ ok: true });
    expect(verifyWebhookSignature(before.secret, after.headers, after.body, { now })).toMatchObject({ ok: false });
    const { rows } = await db.query<{ previous_secret: string | null }>('select previous_secret from public.webhook_signing_secrets where user_id = $1', [
      alice.id,
    ]);
    expect(rows[0].previous_secret).toBeNull();
  });

  it('a rotation during an overlap drops the oldest secret: only the last two sign', async () => {
    const first = await json<Secret>(get('/auth/webhook-signing-secret', bob));
    const second = await json<Secret>(post(app, '/auth/webhook-signing-secret/rotate', { ...asDashboard(bob) }));
    const third = await json<Secret>(post(app, '/auth/webhook-signing-secret/rotate', { ...asDashboard(bob) }));
    expect(third.previous_secret).toBe(second.secret);
    expect([third.secret, third.previous_secret]).not.toContain(first.secret);
  });

  it('lists the owner deliveries newest first with every attempt, filters by status, pages, and hides those of other tenants', async () => {
    const rx = await receiver((n) => (n === 1 ? 500 : 200));
    const svc = dispatcher();
    const failedFirst = await svc.enqueue(completion(alice, rx.url));
    await svc.dispatchDue(); // 500: pending, retry in ~10 s
    const second = await svc.enqueue(completion(alice, rx.url));
    await svc.dispatchDue(); // 200
    await svc.enqueue(completion(bob, rx.url));
    await svc.dispatchDue();

    const page = await json<Page>(get('/auth/webhook-deliveries', alice));
    expect(page.deliveries.map((d) => d.id)).toEqual([second, failedFirst]);
    expect(page.next_before).toBeNull();
    const [ok, retrying] = page.deliveries;
    expect(ok).toMatchObject({ event: 'task.completed', status: 'delivered', attempt_count: 1, last_status_code: 200, next_attempt_at: null });
    expect(ok.payload).toMatchObject({ status: 'finished' });
    expect(ok.attempts).toEqual([expect.objectContaining({ attempt: 1, status_code: 200, response_excerpt: 'answer 2' })]);
    expect(ok.latency_ms).toBe(ok.attempts[0].latency_ms);
    expect(retrying).toMatchObject({ status: 'pending', attempt_count: 1, last_status_code: 500 });
    expect(new Date(retrying.next_attempt_at as string).getTime()).toBeGreaterThan(Date.now());
    expect(retrying.attempts[0]).toMatchObject({ status_code: 500, response_excerpt: 'answer 1' });

    expect((await json<Page>(get('/auth/webhook-deliveries?status=pending', alice))).deliveries.map((d) => d.id)).toEqual([failedFirst]);
    expect((await json<Page>(get('/auth/webhook-deliveries?status=failed', alice))).deliveries).toEqual([]);
    const first = await json<Page>(get('/auth/webhook-deliveries?limit=1', alice));
    expect(first.deliveries.map((d) => d.id)).toEqual([second]);
    const next = await json<Page>(get(`/auth/webhook-deliveries?limit=1&before=${first.next_before}`, alice));
    expect(next.deliveries.map((d) => d.id)).toEqual([failedFirst]);

    // bob sees only his own; alice's id is no cursor for him
    const bobs = await json<Page>(get('/auth/webhook-deliveries', bob));
    expect(bobs.deliveries).toHaveLength(1);
    expect(bobs.deliveries[0].id).not.toBe(second);
    expect((await get(`/auth/webhook-deliveries?before=${second}`, bob)).status).toBe(400);
    expect((await get('/auth/webhook-deliveries?status=lost', alice)).status).toBe(400);
    expect((await get('/auth/webhook-deliveries?limit=101', alice)).status).toBe(400);
    expect((await get('/auth/webhook-deliveries')).status).toBe(401);
  });

  it('resends a delivery with the same webhook-id, once per click; never one of another tenant, a superseded or an in-flight one', async () => {
    const rx = await receiver();
    const svc = dispatcher();
    const id = (await svc.enqueue(completion(alice, rx.url))) as string;
    await svc.dispatchDue();

    // bob cannot resend alice's delivery, nor learn that it exists
    expect((await post(app, `/auth/webhook-deliveries/${id}/resend`, { key: bob.apiKey })).status).toBe(404);
    expect((await post(app, `/auth/webhook-deliveries/${randomUUID()}/resend`, { key: alice.apiKey })).status).toBe(404);
    expect((await post(app, '/auth/webhook-deliveries/not-a-uuid/resend', { key: alice.apiKey })).status).toBe(400);

    // a double click queues it once
    expect(await json(post(app, `/auth/webhook-deliveries/${id}/resend`, { key: alice.apiKey }))).toEqual({ id, status: 'pending' });
    expect(await json(post(app, `/auth/webhook-deliveries/${id}/resend`, { key: alice.apiKey }))).toEqual({ id, status: 'pending' });
    expect(await svc.dispatchDue()).toBe(1);
    expect(await svc.dispatchDue()).toBe(0);
    expect(rx.received.map((r) => r.headers['webhook-id'])).toEqual([id, id]);
    expect(rx.received[1].body).toBe(rx.received[0].body);
    const [d] = (await json<Page>(get('/auth/webhook-deliveries', alice))).deliveries;
    expect(d).toMatchObject({ id, status: 'delivered', attempt_count: 2 });
    expect(d.attempts.map((a) => a.attempt)).toEqual([1, 2]);

    // in flight (claimed, lease running): 409
    await db.query(
      "update public.webhook_deliveries set status = 'pending', claim_token = gen_random_uuid(), next_attempt_at = now() + interval '1 minute' where id = $1",
      [id],
    );
    const busy = await post(app, `/auth/webhook-deliveries/${id}/resend`, { key: alice.apiKey });
    expect(busy.status).toBe(409);
    expect((await expectErrorBody(busy)).msg).toMatch(/being sent right now/);
    await db.query("update public.webhook_deliveries set status = 'superseded', claim_token = null where id = $1", [id]);
    expect((await post(app, `/auth/webhook-deliveries/${id}/resend`, { key: alice.apiKey })).status).toBe(409);
  });

  it('sends a test event to the account webhook URL, signed with the secret the owner sees', async () => {
    await setWebhookUrl(alice, null);
    const none = await post(app, '/auth/webhook-test', { key: alice.apiKey });
    expect(none.status).toBe(400);
    expect((await expectErrorBody(none)).msg).toBe('Set a webhook URL first');

    const rx = await receiver();
    await setWebhookUrl(alice, rx.url);
    const queued = await json<{ id: string; url: string }>(post(app, '/auth/webhook-test', { key: alice.apiKey }));
    expect(queued.url).toBe(rx.url);
    await dispatcher().dispatchDue();
    const [hit] = rx.received;
    expect(hit.headers['x-webhook-event']).toBe('webhook.test');
    expect(hit.headers['webhook-id']).toBe(queued.id);
    const { secret } = await json<Secret>(get('/auth/webhook-signing-secret', alice));
    expect(new Webhook(secret).verify(hit.body, hit.headers)).toMatchObject({ event: 'webhook.test' });
    const [d] = (await json<Page>(get('/auth/webhook-deliveries', alice))).deliveries;
    expect(d).toMatchObject({ id: queued.id, event: 'webhook.test', task_id: null, status: 'delivered' });
    expect((await json<Page>(get('/auth/webhook-deliveries', bob))).deliveries.map((x) => x.id)).not.toContain(queued.id);
    await setWebhookUrl(alice, null);
  });

  it('keeps test events apart from task events: two test events to one URL are both delivered, in any order', async () => {
    const rx = await receiver();
    await setWebhookUrl(bob, rx.url);
    await json(post(app, '/auth/webhook-test', { key: bob.apiKey }));
    await json(post(app, '/auth/webhook-test', { key: bob.apiKey }));
    await dispatcher().dispatchDue();
    expect(rx.received).toHaveLength(2);
    expect(new Set(rx.received.map((r) => r.headers['webhook-id'])).size).toBe(2);
    await setWebhookUrl(bob, null);
  });
});
