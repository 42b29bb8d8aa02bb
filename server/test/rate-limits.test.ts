import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { createTestDb, testDatabaseKinds } from '@aim/supabase/testing';
import { createApiApp } from '../src/app.ts';
import { DEFAULT_RATE_LIMITS, rateLimitsFromEnv, routeClassOf, type RateLimits } from '../src/middleware/rate-limit/index.ts';
import { asDashboard, captureLogger, createUser, DASHBOARD_ORIGIN, expectErrorBody, post, testConfig, type TestUser } from './helpers.ts';
import { recording } from './support/recording-db.ts';
import { grantCredits } from './support/tasks.ts';

type App = ReturnType<typeof createApiApp>;

const TIGHT: RateLimits = { submitPerKey: 3, submitPerAccount: 5, readPerKey: 4, accountPerAccount: 2, perAddress: 10, trustProxyHops: 0 };

/** A socket peer, as @hono/node-server hands it to the app. */
const from = (remoteAddress: string) => ({ incoming: { socket: { remoteAddress } } });

function appOn(db: Db, limits: RateLimits = TIGHT): App {
  return createApiApp({ db, config: testConfig, log: captureLogger(), rateLimits: limits });
}

const imagine = (app: App, key: string, env?: object, headers: Record<string, string> = {}) =>
  app.request(
    '/pro/imagine',
    {
      method: 'POST',
      headers: { authorization: key, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ prompt: 'a lighthouse at dusk' }),
    },
    env,
  );

async function rich(db: Db): Promise<TestUser> {
  const user = await createUser(db);
  await grantCredits(db, user.id, 100_000);
  return user;
}

async function namedKey(app: App, user: TestUser, name: string): Promise<string> {
  const res = await post(app, '/auth/api-keys', { ...asDashboard(user), json: { name, scopes: ['generate', 'read'] } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { key: string }).key;
}

function expectLimitHeaders(res: Response, limit: number, remaining: number) {
  expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('ratelimit-remaining')).toBe(String(remaining));
  const reset = Number(res.headers.get('ratelimit-reset'));
  expect(reset).toBeGreaterThanOrEqual(1);
  expect(reset).toBeLessThanOrEqual(60);
}

describe('rate limit configuration', () => {
  it('has defaults a normal integration never reaches, changed by the environment', () => {
    expect(rateLimitsFromEnv({})).toEqual(DEFAULT_RATE_LIMITS);
    expect(DEFAULT_RATE_LIMITS).toEqual({
      submitPerKey: 120,
      submitPerAccount: 240,
      readPerKey: 600,
      accountPerAccount: 60,
      perAddress: 1200,
      trustProxyHops: 0,
    });
    expect(rateLimitsFromEnv({ RATE_LIMIT_SUBMIT_PER_MINUTE: '1000', TRUST_PROXY: '1', RATE_LIMIT_ADDRESS_PER_MINUTE: ' 5000 ' })).toMatchObject({
      submitPerKey: 1000,
      perAddress: 5000,
      trustProxyHops: 1,
    });
    expect(() => rateLimitsFromEnv({ RATE_LIMIT_READ_PER_MINUTE: 'lots' })).toThrow(/RATE_LIMIT_READ_PER_MINUTE/);
    expect(() => rateLimitsFromEnv({ RATE_LIMIT_ACCOUNT_PER_MINUTE: '0' })).toThrow(/at least 1/);
  });

  it.each([
    ['generate', 'POST', 'submit'],
    [['read', 'generate'], 'POST', 'read'],
    ['read', 'GET', 'read'],
    ['primary', 'GET', 'read'],
    ['primary', 'POST', 'account'],
  ] as const)('a route needing %j called with %s is a %s call', (need, method, cls) => {
    expect(routeClassOf(need, method)).toBe(cls);
  });
});

describe.each(testDatabaseKinds())('rate limits on %s', (kind) => {
  let db: Db;
  let app: App;

  beforeAll(async () => {
    db = await createTestDb(kind);
    app = appOn(db);
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(async () => {
    await db?.close();
  });

  it('answers 429 too_many_requests with Retry-After, the RateLimit headers and a clear message over the submit limit of a key', async () => {
    const user = await rich(db);
    for (let i = 0; i < TIGHT.submitPerKey; i++) {
      const ok = await imagine(app, user.apiKey);
      expect(ok.status).toBe(200);
      expectLimitHeaders(ok, TIGHT.submitPerKey, TIGHT.submitPerKey - i - 1);
    }
    const res = await imagine(app, user.apiKey);
    expect(res.status).toBe(429);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expectLimitHeaders(res, TIGHT.submitPerKey, 0);
    expect(res.headers.get('ratelimit-reset')).toBe(String(retryAfter));
    expect(await expectErrorBody(res)).toEqual({
      code: 'too_many_requests',
      msg: `Too many requests: at most 3 submits per minute for this API key. Retry in ${retryAfter} s.`,
    });
    // a refused submit created no task
    const { rows } = await db.query<{ n: number }>('select count(*)::int as n from public.tasks where user_id = $1', [user.id]);
    expect(rows[0].n).toBe(TIGHT.submitPerKey);
    // reads are another class: still fine
    const read = await post(app, '/fetch-many', { key: user.apiKey, json: { task_ids: [] } });
    expect(read.status).not.toBe(429);
  });

  it('limits each key of an account alone, and the account as a whole', async () => {
    const user = await rich(db);
    const setup = appOn(db, DEFAULT_RATE_LIMITS);
    const a = await namedKey(setup, user, 'a');
    const b = await namedKey(setup, user, 'b');
    for (let i = 0; i < TIGHT.submitPerKey; i++) expect((await imagine(app, a)).status).toBe(200);
    expect((await imagine(app, a)).status).toBe(429);
    // a refused request uses up nothing: b still has the account's remaining two
    expect((await imagine(app, b)).status).toBe(200);
    expect((await imagine(app, b)).status).toBe(200);
    const res = await imagine(app, user.apiKey);
    expect(res.status).toBe(429);
    expect((await expectErrorBody(res)).msg).toMatch(/^Too many requests: at most 5 submits per minute for this account\. Retry in \d+ s\.$/);
    // another account is not affected
    expect((await imagine(app, (await rich(db)).apiKey)).status).toBe(200);
  });

  it('limits account calls per account, dashboard session included', async () => {
    const user = await rich(db);
    const onboard = () => post(app, '/auth/update-onboarding-status', { ...asDashboard(user), json: {} });
    for (let i = 0; i < TIGHT.accountPerAccount; i++) expect((await onboard()).status).not.toBe(429);
    const res = await onboard();
    expect(res.status).toBe(429);
    expect((await expectErrorBody(res)).msg).toMatch(/at most 2 account calls per minute for this account/);
  });

  it('limits reads per key', async () => {
    const user = await rich(db);
    const account = () => app.request('/account', { headers: { authorization: user.apiKey } });
    for (let i = 0; i < TIGHT.readPerKey; i++) expect((await account()).status).toBe(200);
    const res = await account();
    expect(res.status).toBe(429);
    expect((await expectErrorBody(res)).msg).toMatch(/at most 4 reads per minute for this API key/);
  });

  it('limits a client address, before authentication too: unauthenticated and bad-key floods end in 429', async () => {
    const addr = '203.0.113.7';
    for (let i = 0; i < 5; i++) expect((await app.request('/openapi.json', {}, from(addr))).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await imagine(app, 'f'.repeat(64), from(`::ffff:${addr}`))).status).toBe(401);
    const anonymous = await app.request('/openapi.json', {}, from(addr));
    expect(anonymous.status).toBe(429);
    expect(anonymous.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await expectErrorBody(anonymous)).msg).toMatch(/^Too many requests: at most 10 requests per minute for this address\. Retry in \d+ s\.$/);
    const badKey = await imagine(app, 'f'.repeat(64), from(addr));
    expect(badKey.status).toBe(429);
    expect(badKey.headers.get('retry-after')).toMatch(/^\d+$/);
    // a valid key from that address too, and no task is made
    const user = await rich(db);
    expect((await imagine(app, user.apiKey, from(addr))).status).toBe(429);
    // another address, and the health probe, are not affected
    expect((await imagine(app, user.apiKey, from('198.51.100.1'))).status).toBe(200);
    expect((await app.request('/health', {}, from(addr))).status).toBe(200);
  });

  it("counts a primary key's limits in the statement that looks the key up: a submit is two database calls", async () => {
    const user = await rich(db);
    const { db: recorded, calls } = recording(db);
    const counted = appOn(recorded, { ...TIGHT, perAddress: 1_000 });
    const addr = '203.0.113.80';
    const res = await imagine(counted, user.apiKey, from(addr));
    expect(res.status).toBe(200);
    expectLimitHeaders(res, TIGHT.submitPerKey, TIGHT.submitPerKey - 1);
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatch(/rate_limit_hit/);
    expect(calls[1]).toMatch(/submit_task/);
    const count = async (key: string) =>
      (await db.query<{ count: number }>('select count from public.rate_limit_buckets where key = $1', [key])).rows[0]?.count ?? 0;
    expect(await count(`submit:primary:${user.id}`)).toBe(1);
    expect(await count(`submit:account:${user.id}`)).toBe(1);
    expect(await count(`address:${addr}`)).toBe(1);
    // an unknown key counts no account's buckets, only its address (after the 401)
    calls.length = 0;
    expect((await imagine(counted, 'e'.repeat(64), from(addr))).status).toBe(401);
    expect(calls).toHaveLength(2);
    expect(await count(`address:${addr}`)).toBe(2);
    expect(await count(`submit:primary:${user.id}`)).toBe(1);
    // over the limit, the same single statement refuses before submit_task
    for (let i = 1; i < TIGHT.submitPerKey; i++) expect((await imagine(counted, user.apiKey, from(addr))).status).toBe(200);
    calls.length = 0;
    expect((await imagine(counted, user.apiKey, from(addr))).status).toBe(429);
    expect(calls).toHaveLength(1);
    expect(await count(`address:${addr}`)).toBe(2 + TIGHT.submitPerKey - 1);
  });

  it('believes X-Forwarded-For only for the TRUST_PROXY hops', async () => {
    const direct = appOn(db, { ...TIGHT, perAddress: 2 });
    // without trusted proxies, the header is ignored: every request comes from the proxy's socket
    const proxy = '10.9.0.1';
    for (const client of ['192.0.2.1', '192.0.2.2'])
      expect((await direct.request('/openapi.json', { headers: { 'x-forwarded-for': client } }, from(proxy))).status).toBe(200);
    expect((await direct.request('/openapi.json', { headers: { 'x-forwarded-for': '192.0.2.3' } }, from(proxy))).status).toBe(429);
    // one trusted hop: the right-most entry is the client; what the client itself put left of it does not count
    const behind = appOn(db, { ...TIGHT, perAddress: 2, trustProxyHops: 1 });
    const via = (xff: string) => behind.request('/openapi.json', { headers: { 'x-forwarded-for': xff } }, from('10.9.0.2'));
    expect((await via('1.1.1.1, 192.0.2.50')).status).toBe(200);
    expect((await via('2.2.2.2, 192.0.2.50')).status).toBe(200);
    expect((await via('3.3.3.3, 192.0.2.50')).status).toBe(429);
    expect((await via('192.0.2.51')).status).toBe(200);
  });

  it('shares the counts between API processes on one database', async () => {
    const user = await rich(db);
    const other = appOn(db);
    expect((await imagine(app, user.apiKey)).status).toBe(200);
    expect((await imagine(other, user.apiKey)).status).toBe(200);
    expect((await imagine(app, user.apiKey)).status).toBe(200);
    expect((await imagine(other, user.apiKey)).status).toBe(429);
    expect((await imagine(app, user.apiKey)).status).toBe(429);
  });

  it('starts counting again in the next one-minute window', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-28T06:00:05Z'));
    const user = await rich(db);
    for (let i = 0; i < TIGHT.submitPerKey; i++) expect((await imagine(app, user.apiKey)).status).toBe(200);
    const refused = await imagine(app, user.apiKey);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('55');
    vi.setSystemTime(new Date('2026-11-28T06:00:59Z'));
    expect((await imagine(app, user.apiKey)).status).toBe(429);
    vi.setSystemTime(new Date('2026-11-28T06:01:00Z'));
    const again = await imagine(app, user.apiKey);
    expect(again.status).toBe(200);
    expectLimitHeaders(again, TIGHT.submitPerKey, TIGHT.submitPerKey - 1);
  });

  it('leaves the v1 paths alone under the defaults, and shows the headers to the dashboard', async () => {
    const defaults = appOn(db, DEFAULT_RATE_LIMITS);
    const user = await rich(db);
    for (let i = 0; i < 20; i++) {
      const res = await defaults.request(
        '/imagine',
        {
          method: 'POST',
          headers: { authorization: user.apiKey, 'content-type': 'application/json', origin: DASHBOARD_ORIGIN },
          body: JSON.stringify({ prompt: `p ${i}` }),
        },
        from('127.0.0.1'),
      );
      expect(res.status).toBe(200);
      const { task_id } = (await res.json()) as { task_id: string };
      const fetched = await post(defaults, '/fetch', { key: user.apiKey, json: { task_id } });
      expect(fetched.status).toBe(200);
      if (i === 19) {
        expectLimitHeaders(res, 120, 100);
        expect(res.headers.get('access-control-expose-headers')).toMatch(/RateLimit-Remaining/i);
        expect(res.headers.get('access-control-expose-headers')).toMatch(/Retry-After/i);
      }
    }
    const account = await defaults.request('/account', { headers: { authorization: user.apiKey } });
    expect(account.status).toBe(200);
  });

  it('documents the 429 and its headers on every authenticated operation', async () => {
    const doc = (await (await app.request('/openapi.json')).json()) as {
      paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, { description: string; headers?: Record<string, unknown> }> }>>;
    };
    const secured = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.security?.length)
        .map(([method, op]) => ({ at: `${method} ${path}`, op })),
    );
    expect(secured.length).toBeGreaterThan(40);
    let shared = 0;
    for (const { at, op } of secured) {
      expect(op.responses['429'], at).toBeDefined();
      // a route may describe its own 429 (an upload quota, the webhook test-event limit) over the shared one
      if (!op.responses['429'].description.startsWith('Over a request rate limit')) continue;
      shared++;
      expect(Object.keys(op.responses['429'].headers ?? {}).sort(), at).toEqual(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After']);
    }
    expect(shared).toBeGreaterThan(40);
  });
});
