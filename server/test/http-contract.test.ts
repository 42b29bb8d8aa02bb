import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { createTestDb, testDatabaseKinds } from '@aim/supabase/testing';
import type { AppEnv } from '../src/context.ts';
import { ApiError } from '../src/errors.ts';
import { errorHandler } from '../src/middleware/error-handler/index.ts';
import { asDashboard, captureLogger, createUser, DASHBOARD_ORIGIN, expectErrorBody, post, testApp, type TestUser } from './helpers.ts';

const ACCOUNT_PATHS = ['/auth/revokeAndCreateNewAPIKey', '/auth/updateWebhookURL', '/auth/update-onboarding-status', '/auth/recordReference'];
const UNEXPECTED = 'An unexpected error occured, Please refresh and try again!';

describe.each(testDatabaseKinds())('HTTP contract on %s', (kind) => {
  let db: Db;
  let log: ReturnType<typeof captureLogger>;
  let app: ReturnType<typeof testApp>;
  let user: TestUser;

  beforeAll(async () => {
    db = await createTestDb(kind);
    log = captureLogger();
    app = testApp(db, log);
    user = await createUser(db);
  });
  afterAll(async () => {
    await db?.close();
  });

  describe('API-key authentication', () => {
    it.each(ACCOUNT_PATHS)('should answer 401 Missing API key on %s without a key', async (path) => {
      const res = await post(app, path, { json: { url: 'https://x.io', reference: 'abc' } });
      expect(res.status).toBe(401);
      expect(await expectErrorBody(res)).toEqual({ msg: 'Missing API key', code: 'missing_api_key' });
    });

    it.each([
      ['an empty header', ''],
      ['a bare Bearer', 'Bearer'],
      ['Bearer and spaces', 'Bearer    '],
    ])('should treat %s as a missing key', async (_name, header) => {
      const res = await post(app, '/auth/update-onboarding-status', { key: header });
      expect(res.status).toBe(401);
      expect((await expectErrorBody(res)).code).toBe('missing_api_key');
    });

    it.each([
      ['an unknown key', 'f'.repeat(64)],
      ['a Bearer unknown key', `Bearer ${'0'.repeat(64)}`],
      ['a key with a space inside', 'abc def'],
      ['an absurdly long key', 'k'.repeat(5000)],
      ['SQL', "' or '1'='1"],
      ['Basic credentials', 'Basic dXNlcjpwYXNz'],
    ])('should answer 401 Invalid API key for %s', async (_name, header) => {
      const res = await post(app, '/auth/update-onboarding-status', { key: header });
      expect(res.status).toBe(401);
      expect(await expectErrorBody(res)).toEqual({ msg: 'Invalid API key', code: 'invalid_api_key' });
    });

    it.each([
      ['raw', (k: string) => k],
      ['Bearer', (k: string) => `Bearer ${k}`],
      ['lower-case bearer', (k: string) => `bearer ${k}`],
      ['padded', (k: string) => `  BEARER   ${k}  `],
    ])('should accept the key %s', async (_name, format) => {
      const res = await post(app, '/auth/update-onboarding-status', { key: format(user.apiKey) });
      expect(res.status).toBe(200);
    });

    it('should check the key before validating the body', async () => {
      const res = await post(app, '/auth/recordReference', { key: 'nope', json: '{garbage' });
      expect(res.status).toBe(401);
    });
  });

  describe('error contract', () => {
    it.each([
      ['garbage JSON', '{"url": '],
      ['an empty JSON body', ''],
      ['a lone word', 'undefined'],
    ])('should answer 400 invalid_json for %s', async (_name, body) => {
      const res = await post(app, '/auth/updateWebhookURL', { ...asDashboard(user), json: body });
      expect(res.status).toBe(400);
      expect(await expectErrorBody(res)).toEqual({ msg: 'Malformed JSON in request body', code: 'invalid_json' });
    });

    it('should answer 415 for a body that is not JSON', async () => {
      const res = await post(app, '/auth/recordReference', {
        key: user.apiKey,
        json: 'reference=abc',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(res.status).toBe(415);
      expect((await expectErrorBody(res)).code).toBe('unsupported_media_type');
    });

    it('should answer 413 for a body over 1 MiB, without reading it into the route', async () => {
      const huge = JSON.stringify({ reference: 'x'.repeat(1024 * 1024 + 10) });
      const res = await post(app, '/auth/recordReference', { key: user.apiKey, json: huge });
      expect(res.status).toBe(413);
      expect(await expectErrorBody(res)).toEqual({ msg: 'Request body is too large', code: 'payload_too_large' });
    });

    it('should accept a body just under the limit and judge it on its merits', async () => {
      const big = JSON.stringify({ reference: 'x'.repeat(1000 * 1000) });
      const res = await post(app, '/auth/recordReference', { key: user.apiKey, json: big });
      expect(res.status).toBe(400);
      expect((await expectErrorBody(res)).msg).toBe('reference: At most 100 characters');
    });

    it.each([
      ['GET', '/nope'],
      ['POST', '/auth/nope'],
      ['GET', '/auth/revokeAndCreateNewAPIKey'],
      ['DELETE', '/health'],
    ])('should answer 404 for %s %s', async (method, path) => {
      const res = await app.request(path, { method, headers: { authorization: user.apiKey } });
      expect(res.status).toBe(404);
      expect(await expectErrorBody(res)).toEqual({ msg: `Not found: ${method} ${path}`, code: 'not_found' });
    });

    it('should answer a generic 500 without internals when the database fails, and log it with the request id', async () => {
      const brokenDb = await createTestDb(kind);
      const other = await createUser(brokenDb);
      const brokenLog = captureLogger();
      const broken = testApp(brokenDb, brokenLog);
      await brokenDb.close();

      const res = await post(broken, '/auth/update-onboarding-status', { key: other.apiKey, headers: { 'x-request-id': 'req-500-test' } });
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({ message: UNEXPECTED, errors: [{ msg: UNEXPECTED, code: 'internal_error' }] });
      expect(text).not.toMatch(/pglite|pool|closed|stack/i);
      expect(res.headers.get('x-request-id')).toBe('req-500-test');
      const errorLine = brokenLog.lines.find((l) => l.startsWith('error unhandled error'));
      expect(errorLine).toContain('request_id=req-500-test');
      expect(brokenLog.lines.join('\n')).not.toContain(other.apiKey);
    });
  });

  describe('the top-level message (APIFRAME v1 clients read `message`)', () => {
    const UNKNOWN_TASK = '00000000-0000-4000-8000-000000000000';

    it.each([
      [400, 'a field that fails validation', () => post(app, '/fetch', { key: user.apiKey, json: {} }), 'task_id: Required', 'validation_failed'],
      [400, 'malformed JSON', () => post(app, '/fetch', { key: user.apiKey, json: '{' }), 'Malformed JSON in request body', 'invalid_json'],
      [401, 'no key', () => post(app, '/fetch', { json: { task_id: UNKNOWN_TASK } }), 'Missing API key', 'missing_api_key'],
      [401, 'an unknown key', () => app.request('/account', { headers: { authorization: 'f'.repeat(64) } }), 'Invalid API key', 'invalid_api_key'],
      [
        402,
        'a balance too short',
        () => post(app, '/pro/imagine', { key: user.apiKey, json: { prompt: 'a cat' } }),
        'Not enough credits',
        'insufficient_credits',
      ],
      [404, 'an unknown task', () => post(app, '/fetch', { key: user.apiKey, json: { task_id: UNKNOWN_TASK } }), 'Task not found', 'not_found'],
      [404, 'an unknown route', () => app.request('/v1/nope'), 'Not found: GET /v1/nope', 'not_found'],
    ])('should answer %i for %s with message = errors[0].msg', async (status, _name, send, msg, code) => {
      const res = await send();
      expect(res.status).toBe(status);
      expect(await res.json()).toEqual({ message: msg, errors: [{ msg, code }] });
    });

    it('should put the first of several messages on top', async () => {
      const res = await post(app, '/pro/imagine', { key: user.apiKey, json: { prompt: 5, mode: 'slow' } });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { message: string; errors: { msg: string }[] };
      expect(body.errors.length).toBe(2);
      expect(body.message).toBe(body.errors[0].msg);
    });

    // No route limits rates yet; the handler gives a 429 the same body whichever way it is thrown.
    it.each([
      ['an ApiError', () => new ApiError('too_many_requests', 'Too many trainings at once'), 'Too many trainings at once'],
      ["Hono's HTTPException", () => new HTTPException(429), 'Too many requests; try again later'],
    ])('should answer 429 from %s with the contract and its message', async (_name, error, msg) => {
      const probe = new Hono<AppEnv>();
      probe.onError(errorHandler(captureLogger()));
      probe.get('/limited', () => {
        throw error();
      });
      const res = await probe.request('/limited');
      expect(res.status).toBe(429);
      expect(await res.json()).toEqual({ message: msg, errors: [{ msg, code: 'too_many_requests' }] });
    });
  });

  describe('request id and logging', () => {
    it('should give every response an X-Request-Id, including errors', async () => {
      const responses = [
        await app.request('/health'),
        await app.request('/nope'),
        await post(app, '/auth/update-onboarding-status'),
        await post(app, '/auth/recordReference', { key: user.apiKey, json: '{' }),
      ];
      const ids = responses.map((r) => r.headers.get('x-request-id'));
      for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('should keep a sane incoming X-Request-Id and replace an unsafe one', async () => {
      const kept = await app.request('/health', { headers: { 'x-request-id': 'edge-abc_123' } });
      expect(kept.headers.get('x-request-id')).toBe('edge-abc_123');
      const replaced = await app.request('/health', { headers: { 'x-request-id': 'bad id\u0001<script>' } });
      expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('should log one line per request with method, path, route, status, duration and request id, never the key', async () => {
      const before = log.lines.length;
      const res = await post(app, '/auth/update-onboarding-status', { key: `Bearer ${user.apiKey}`, headers: { 'x-request-id': 'log-line-1' } });
      expect(res.status).toBe(200);
      const lines = log.lines.slice(before);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^info request method=POST path=\/auth\/update-onboarding-status route=\/auth\/update-onboarding-status status=200 ms=\d+ request_id=log-line-1$/,
      );
      expect(log.lines.join('\n')).not.toContain(user.apiKey);
    });
  });

  describe('CORS', () => {
    it('should answer a preflight from the dashboard with credentials and the needed headers', async () => {
      const res = await app.request('/auth/updateWebhookURL', {
        method: 'OPTIONS',
        headers: { origin: DASHBOARD_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(DASHBOARD_ORIGIN);
      expect(res.headers.get('access-control-allow-credentials')).toBe('true');
      const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',');
      expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type']));
      expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    });

    it('should reflect the dashboard origin on real answers, errors included', async () => {
      const res = await post(app, '/auth/update-onboarding-status', { headers: { origin: DASHBOARD_ORIGIN } });
      expect(res.status).toBe(401);
      expect(res.headers.get('access-control-allow-origin')).toBe(DASHBOARD_ORIGIN);
      expect(res.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
    });

    it('should not allow another origin', async () => {
      const res = await app.request('/auth/updateWebhookURL', {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
      });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    });
  });
});
