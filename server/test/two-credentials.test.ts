import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_JWT_SECRET, signJwt } from '@aim/supabase';
import type { Db } from '@aim/supabase/db';
import { createTestDb, testDatabaseKinds } from '@aim/supabase/testing';
import { asDashboard, captureLogger, createUser, expectErrorBody, post, signIn, testApp, type TestUser } from './helpers.ts';

type Operation = { security?: Record<string, string[]>[]; requestBody?: unknown };
type Doc = { paths: Record<string, Record<string, Operation>> };

const SESSION_REQUIRED =
  'This action needs a signed-in dashboard session: an API key alone cannot change billing, keys or webhooks. Sign in to the dashboard and try again.';
const SESSION_INVALID = 'Your dashboard session has expired. Sign in again.';

/** What the account looks like to someone who would steal from it. */
async function moneyState(db: Db, userId: string) {
  const { rows } = await db.query(
    `select u.api_key, u.auto_topup, u.auto_topup_min, u.auto_topup_amount, u.integration_webhook_url, u.customer_id, u.plan,
            (select count(*)::int from public.billing_checkouts c where c.user_id = u.id) as checkouts
       from public.mdusers u where u.id = $1`,
    [userId],
  );
  return rows[0];
}

// Issue 20, part 1: the API key runs the generation API; everything that moves money or
// changes credentials needs the signed-in dashboard session too.
describe.each(testDatabaseKinds())('two credentials, two powers on %s', (kind) => {
  let db: Db;
  let app: ReturnType<typeof testApp>;
  let sessionOperations: [string, string][];

  beforeAll(async () => {
    db = await createTestDb(kind);
    app = testApp(db, captureLogger());
    const doc = (await (await app.request('/openapi.json')).json()) as Doc;
    sessionOperations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.security?.some((s) => 'dashboardSession' in s))
        .map(([method]) => [method.toUpperCase(), path] as [string, string]),
    );
  });
  afterAll(async () => {
    await db?.close();
  });

  const send = (method: string, path: string, headers: Record<string, string>, json: unknown = {}) =>
    app.request(path.replace('{id}', randomUUID()), {
      method,
      headers: { ...headers, ...(method === 'GET' ? {} : { 'content-type': 'application/json' }) },
      body: method === 'GET' ? undefined : JSON.stringify(json),
    });

  it('refuses the API key alone on every call that moves money or changes credentials, and changes nothing', async () => {
    expect(sessionOperations.length).toBeGreaterThanOrEqual(19);
    const user = await createUser(db);
    const before = await moneyState(db, user.id);
    // the leaked key of the issue: auto top-up of $10,000 at 2,500 credits, the priciest plan, a new key, our webhook
    const body = { auto_topup: true, auto_topup_min: 2500, auto_topup_amount: 10000, plan: 'scale3', amount: 10000, url: 'https://thief.example/hook' };
    for (const [method, path] of sessionOperations) {
      const res = await send(method, path, { authorization: user.apiKey }, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(await expectErrorBody(res), `${method} ${path}`).toEqual({ msg: SESSION_REQUIRED, code: 'session_required' });
    }
    expect(await moneyState(db, user.id)).toEqual(before);
  });

  it('answers the usual 401s without a key or with an unknown one, before saying a session is missing', async () => {
    const res = await post(app, '/auth/update-auto-topup', { json: {} });
    expect(res.status).toBe(401);
    expect(await expectErrorBody(res)).toEqual({ msg: 'Missing API key', code: 'missing_api_key' });
    const unknown = await post(app, '/auth/update-auto-topup', { key: 'f'.repeat(64), json: {} });
    expect(await expectErrorBody(unknown)).toEqual({ msg: 'Invalid API key', code: 'invalid_api_key' });
  });

  it('accepts the dashboard session with the key, or alone', async () => {
    const user = await createUser(db);
    const both = await post(app, '/auth/updateWebhookURL', { ...asDashboard(user), json: { url: 'https://me.example/hook' } });
    expect(both.status).toBe(200);
    const alone = await post(app, '/auth/updateWebhookURL', { session: user.session, json: { url: 'https://me.example/other' } });
    expect(alone.status).toBe(200);
    expect((await moneyState(db, user.id)).integration_webhook_url).toBe('https://me.example/other');
    const cards = await app.request('/auth/payment-methods', { headers: { authorization: user.apiKey, 'x-session-token': user.session } });
    expect(cards.status).toBe(200);
  });

  it('keeps the generation API and the reads on the API key alone', async () => {
    const user = await createUser(db);
    expect((await app.request('/account', { headers: { authorization: user.apiKey } })).status).toBe(200);
    expect((await app.request('/billing/config', { headers: { authorization: user.apiKey } })).status).toBe(200);
    expect((await app.request('/auth/webhook-deliveries', { headers: { authorization: user.apiKey } })).status).toBe(200);
    expect((await post(app, '/auth/update-onboarding-status', { key: user.apiKey })).status).toBe(200);
    const fetch = await post(app, '/fetch', { key: user.apiKey, json: { task_id: randomUUID() } });
    expect(fetch.status).toBe(404);
  });

  describe('refuses sessions that are not a live session of the key’s owner', () => {
    let user: TestUser;
    let other: TestUser;
    beforeAll(async () => {
      user = await createUser(db);
      other = await createUser(db);
    });

    const claims = (u: TestUser, extra: Record<string, unknown> = {}) => ({
      sub: u.id,
      email: u.email,
      role: 'authenticated',
      aud: 'authenticated',
      exp: Math.floor(Date.now() / 1000) + 600,
      ...extra,
    });

    it.each([
      ['a token that is not a JWT', async () => 'not-a-jwt'],
      ['a token signed with another secret', async (u: TestUser) => signJwt(claims(u), 'another-secret-another-secret-another-secret')],
      ['an expired token', async (u: TestUser) => signJwt(claims(u, { exp: Math.floor(Date.now() / 1000) - 120 }), DEFAULT_JWT_SECRET)],
      ['the anon key', async (u: TestUser) => signJwt({ role: 'anon', sub: u.id, exp: Math.floor(Date.now() / 1000) + 600 }, DEFAULT_JWT_SECRET)],
      ['a service_role token', async (u: TestUser) => signJwt(claims(u, { role: 'service_role' }), DEFAULT_JWT_SECRET)],
      ['a token without a session', async (u: TestUser) => signJwt(claims(u), DEFAULT_JWT_SECRET)],
      ['a token of a session that does not exist', async (u: TestUser) => signJwt(claims(u, { session_id: randomUUID() }), DEFAULT_JWT_SECRET)],
      ['an oversized header', async () => 'x'.repeat(10_000)],
    ])('%s: 401 invalid_session', async (_name, token) => {
      const res = await post(app, '/auth/updateWebhookURL', { key: user.apiKey, session: await token(user), json: { url: null } });
      expect(res.status).toBe(401);
      expect(await expectErrorBody(res)).toEqual({ msg: SESSION_INVALID, code: 'invalid_session' });
    });

    it('a session that signed out is refused at once, not when its token expires', async () => {
      const token = await signIn(db, user.id, user.email);
      expect((await post(app, '/auth/updateWebhookURL', { key: user.apiKey, session: token, json: { url: null } })).status).toBe(200);
      const { session_id } = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { session_id: string };
      await db.query('delete from auth.sessions where id = $1', [session_id]);
      expect((await post(app, '/auth/updateWebhookURL', { key: user.apiKey, session: token, json: { url: null } })).status).toBe(401);
    });

    it('another user’s session beside this key: 403, nothing changes for either', async () => {
      const before = [await moneyState(db, user.id), await moneyState(db, other.id)];
      const res = await post(app, '/auth/revokeAndCreateNewAPIKey', { key: user.apiKey, session: other.session });
      expect(res.status).toBe(403);
      expect((await expectErrorBody(res)).code).toBe('forbidden');
      expect([await moneyState(db, user.id), await moneyState(db, other.id)]).toEqual(before);
    });

    it('a rotated key beside a live session is refused like any unknown key', async () => {
      const fresh = await createUser(db);
      const rotated = await post(app, '/auth/revokeAndCreateNewAPIKey', asDashboard(fresh));
      expect(rotated.status).toBe(200);
      const stale = await post(app, '/auth/updateWebhookURL', { ...asDashboard(fresh), json: { url: null } });
      expect(stale.status).toBe(401);
      expect((await expectErrorBody(stale)).code).toBe('invalid_api_key');
    });
  });
});
