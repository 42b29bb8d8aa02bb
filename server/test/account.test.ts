import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { createTestDb, testDatabaseKinds } from '@aim/supabase/testing';
import { asDashboard, createUser, expectErrorBody, post, readUser, testApp, type TestUser } from './helpers.ts';

const SCHEME_MSG = 'Webhook must start with http:// or https://';
const INVALID_MSG = 'Enter a valid webhook URL or leave blank to remove the webhook URL';

describe.each(testDatabaseKinds())('account calls on %s', (kind) => {
  let db: Db;
  let app: ReturnType<typeof testApp>;

  beforeAll(async () => {
    db = await createTestDb(kind);
    app = testApp(db);
  });
  afterAll(async () => {
    await db?.close();
  });

  describe('POST /auth/revokeAndCreateNewAPIKey', () => {
    it('should answer a new key, store it, and refuse the old key from then on', async () => {
      const user = await createUser(db);
      const res = await post(app, '/auth/revokeAndCreateNewAPIKey', { ...asDashboard(user) });
      expect(res.status).toBe(200);
      const { api_key } = (await res.json()) as { api_key: string };
      expect(api_key).toMatch(/^[0-9a-f]{64}$/);
      expect(api_key).not.toBe(user.apiKey);
      expect((await readUser(db, user.id)).api_key).toBe(api_key);

      const old = await post(app, '/auth/update-onboarding-status', { key: user.apiKey });
      expect(old.status).toBe(401);
      expect(await expectErrorBody(old)).toEqual({ msg: 'Invalid API key', code: 'invalid_api_key' });

      const fresh = await post(app, '/auth/update-onboarding-status', { key: `Bearer ${api_key}` });
      expect(fresh.status).toBe(200);
    });

    it('should ignore any body it is sent', async () => {
      const user = await createUser(db);
      const res = await post(app, '/auth/revokeAndCreateNewAPIKey', { ...asDashboard(user), json: '{not json' });
      expect(res.status).toBe(200);
    });
  });

  describe('POST /auth/update-onboarding-status', () => {
    it('should set onboarded and stay idempotent', async () => {
      const user = await createUser(db);
      expect((await readUser(db, user.id)).onboarded).toBe(false);
      for (let i = 0; i < 2; i++) {
        const res = await post(app, '/auth/update-onboarding-status', { key: user.apiKey });
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ onboarded: true });
      }
      expect((await readUser(db, user.id)).onboarded).toBe(true);
    });
  });

  describe('POST /auth/updateWebhookURL', () => {
    let user: TestUser;
    beforeAll(async () => {
      user = await createUser(db);
    });

    const stored = 'https://hooks.example.com/stored';
    async function resetTo(url: string) {
      await db.query('update public.mdusers set integration_webhook_url = $2 where id = $1', [user.id, url]);
    }

    it.each([
      ['http URL', { url: 'http://example.com/hook' }, 'http://example.com/hook'],
      ['upper-case HTTPS scheme', { url: 'HTTPS://Example.com/Hook?x=1' }, 'HTTPS://Example.com/Hook?x=1'],
      ['surrounding spaces (trimmed)', { url: '  https://example.com/a  ' }, 'https://example.com/a'],
      ['a port and a path', { url: 'http://127.0.0.1:9000/cb' }, 'http://127.0.0.1:9000/cb'],
      ['blank (removes)', { url: '' }, null],
      ['whitespace only (removes)', { url: '   ' }, null],
      ['null (removes)', { url: null }, null],
      ['omitted (removes)', {}, null],
    ])('should accept %s', async (_name, body, expected) => {
      await resetTo(stored);
      const res = await post(app, '/auth/updateWebhookURL', { ...asDashboard(user), json: body });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ integration_webhook_url: expected });
      expect((await readUser(db, user.id)).integration_webhook_url).toBe(expected);
    });

    it('should remove the URL when no body is sent at all', async () => {
      await resetTo(stored);
      const res = await post(app, '/auth/updateWebhookURL', { ...asDashboard(user) });
      expect(res.status).toBe(200);
      expect((await readUser(db, user.id)).integration_webhook_url).toBeNull();
    });

    it.each([
      ['ftp://', { url: 'ftp://example.com/file' }, SCHEME_MSG],
      ['javascript:', { url: 'javascript:alert(1)' }, SCHEME_MSG],
      ['no scheme', { url: 'example.com/hook' }, SCHEME_MSG],
      ['scheme without host', { url: 'https://' }, INVALID_MSG],
      ['a space inside', { url: 'https://exa mple.com/hook' }, INVALID_MSG],
      ['a bad port', { url: 'http://example.com:99999/' }, INVALID_MSG],
      ['too long', { url: `https://example.com/${'a'.repeat(2100)}` }, 'Webhook URL must be at most 2048 characters'],
    ])('should refuse %s and keep the stored URL', async (_name, body, msg) => {
      await resetTo(stored);
      const res = await post(app, '/auth/updateWebhookURL', { ...asDashboard(user), json: body });
      expect(res.status).toBe(400);
      expect(await expectErrorBody(res)).toEqual({ msg, code: 'invalid_webhook_url' });
      expect((await readUser(db, user.id)).integration_webhook_url).toBe(stored);
    });

    it.each([
      ['a number', { url: 42 }],
      ['an object', { url: { href: 'https://x.io' } }],
      ['an array body', ['https://x.io']],
      ['a JSON string body', '"https://x.io"'],
    ])('should answer 400 validation_failed for %s', async (_name, body) => {
      await resetTo(stored);
      const res = await post(app, '/auth/updateWebhookURL', { ...asDashboard(user), json: body });
      expect(res.status).toBe(400);
      const err = await expectErrorBody(res);
      expect(err.code).toBe('validation_failed');
      expect(err.msg).toMatch(/expected/i);
      expect((await readUser(db, user.id)).integration_webhook_url).toBe(stored);
    });
  });

  describe('POST /auth/recordReference', () => {
    it('should record the first reference only', async () => {
      const user = await createUser(db);
      const first = await post(app, '/auth/recordReference', { key: user.apiKey, json: { reference: ' partner_42 ' } });
      expect(first.status).toBe(200);
      expect(await first.json()).toEqual({ recorded: true, referral_id: 'partner_42' });

      const second = await post(app, '/auth/recordReference', { key: user.apiKey, json: { reference: 'someone-else' } });
      expect(second.status).toBe(200);
      expect(await second.json()).toEqual({ recorded: false, referral_id: 'partner_42' });
      expect((await readUser(db, user.id)).referral_id).toBe('partner_42');
    });

    it.each([
      ['missing', {}, 'reference: Required'],
      ['blank', { reference: '   ' }, 'reference: Required'],
      ['not a string', { reference: 7 }, 'reference: Must be a string'],
      ['too long', { reference: 'r'.repeat(101) }, 'reference: At most 100 characters'],
      ['bad characters', { reference: '<script>' }, 'reference: Only letters, digits, ".", "_" and "-" are allowed'],
    ])('should refuse a %s reference without recording it', async (_name, body, msg) => {
      const user = await createUser(db);
      const res = await post(app, '/auth/recordReference', { key: user.apiKey, json: body });
      expect(res.status).toBe(400);
      expect(await expectErrorBody(res)).toEqual({ msg, code: 'validation_failed' });
      expect((await readUser(db, user.id)).referral_id).toBeNull();
    });

    it('should answer 400 when no body is sent', async () => {
      const user = await createUser(db);
      const res = await post(app, '/auth/recordReference', { key: user.apiKey });
      expect(res.status).toBe(400);
      expect((await expectErrorBody(res)).msg).toBe('reference: Required');
    });
  });

  describe('tenancy', () => {
    it("should only ever change the key owner's row", async () => {
      const a = await createUser(db);
      const b = await createUser(db);
      const before = await readUser(db, a.id);

      // Whatever B sends (even A's id or email in the body), only B's row moves.
      // Sequential: the rotation must come last or it would refuse B's other calls.
      const calls: [string, unknown][] = [
        ['/auth/updateWebhookURL', { url: 'https://b.example.com', id: a.id, email: a.email }],
        ['/auth/update-onboarding-status', { id: a.id }],
        ['/auth/recordReference', { reference: 'from-b', id: a.id }],
        ['/auth/revokeAndCreateNewAPIKey', { id: a.id }],
      ];
      for (const [path, json] of calls) expect((await post(app, path, { ...asDashboard(b), json })).status).toBe(200);

      expect(await readUser(db, a.id)).toEqual(before);
      const bAfter = await readUser(db, b.id);
      expect(bAfter).toMatchObject({ integration_webhook_url: 'https://b.example.com', onboarded: true, referral_id: 'from-b' });
      expect(bAfter.api_key).not.toBe(b.apiKey);
      // A's key still works after B rotated.
      expect((await post(app, '/auth/update-onboarding-status', { key: a.apiKey })).status).toBe(200);
    });
  });
});
