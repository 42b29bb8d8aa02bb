/**
 * Named, scoped API keys (issue 20, part 2; docs/decisions/0013-named-scoped-api-keys.md):
 * the management calls under /auth/api-keys (dashboard session), authentication with a named
 * key (revoked, expired, scopes), the monthly credit limit public.submit_task enforces (two
 * submits at once included), tasks.api_key_id, hashed storage, last_used_at, and the primary
 * key unchanged.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { taskRepository } from '../src/repositories/task-repository.ts';
import { settleFailure } from '../src/services/tasks/settle-task.ts';
import { MAX_ACTIVE_KEYS } from '../src/services/api-keys/manage-api-keys.ts';
import { asDashboard, createUser, expectErrorBody, post, testConfig, type TestUser } from './helpers.ts';
import { grantCredits, openTestDb, scriptedEngine, taskHarness, type TaskHarness } from './support/tasks.ts';
import { createApiApp } from '../src/app.ts';
import { captureLogger } from './helpers.ts';

interface KeyView {
  id: string;
  name: string;
  prefix: string;
  last4: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  revoked: boolean;
  expired: boolean;
  monthly_credit_limit: number | null;
  used_this_month: number;
}
type CreatedKey = KeyView & { key: string };

const IMAGINE_COST = 4;

describe.each(testDatabaseKinds())('named API keys on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  type App = TaskHarness['app'];

  beforeAll(async () => {
    db = await openTestDb(kind);
    h = await taskHarness(db, [scriptedEngine()]);
  });
  afterAll(async () => {
    await h?.cleanup();
    await db?.close();
  });

  function get(app: App, path: string, opts: { key?: string; session?: string } = {}) {
    const headers: Record<string, string> = {};
    if (opts.key !== undefined) headers.authorization = opts.key;
    if (opts.session !== undefined) headers['x-session-token'] = opts.session;
    return app.request(path, { headers });
  }

  async function createKey(user: TestUser, body: Record<string, unknown>, app: App = h.app): Promise<CreatedKey> {
    const res = await post(app, '/auth/api-keys', { ...asDashboard(user), json: body });
    if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as CreatedKey;
  }

  async function listKeys(user: TestUser): Promise<KeyView[]> {
    const res = await get(h.app, '/auth/api-keys', asDashboard(user));
    expect(res.status).toBe(200);
    return ((await res.json()) as { keys: KeyView[] }).keys;
  }

  const imagine = (key: string, prompt = 'a lighthouse', app: App = h.app) => post(app, '/pro/imagine', { key, json: { prompt } });

  async function fundedUser(credits = 400): Promise<TestUser> {
    const user = await createUser(db);
    await grantCredits(db, user.id, credits);
    return user;
  }

  describe('management (/auth/api-keys)', () => {
    it('should create a key shown once, list it without the key and store only its SHA-256', async () => {
      const user = await createUser(db);
      const res = await post(h.app, '/auth/api-keys', { ...asDashboard(user), json: { name: '  CI pipeline ', scopes: ['read', 'generate', 'read'] } });
      expect(res.status).toBe(201);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const created = (await res.json()) as CreatedKey;
      expect(created.key).toMatch(/^ak_[0-9A-Za-z]{40}$/);
      expect(created).toMatchObject({
        name: 'CI pipeline',
        prefix: created.key.slice(0, 8),
        last4: created.key.slice(-4),
        scopes: ['generate', 'read'],
        last_used_at: null,
        expires_at: null,
        revoked: false,
        expired: false,
        monthly_credit_limit: null,
        used_this_month: 0,
      });

      const keys = await listKeys(user);
      expect(keys).toHaveLength(1);
      expect(keys[0]).toEqual(Object.fromEntries(Object.entries(created).filter(([k]) => k !== 'key')));
      expect(JSON.stringify(keys)).not.toContain(created.key);

      // the table holds the hash, never the key (nor its hex)
      const { rows } = await db.query<{ row: string; hash: string }>(
        "select row_to_json(k)::text as row, encode(k.key_hash, 'hex') as hash from public.api_keys k where k.user_id = $1",
        [user.id],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0].hash).toBe(createHash('sha256').update(created.key).digest('hex'));
      expect(rows[0].row).not.toContain(created.key);
      expect(rows[0].row).not.toContain(created.key.slice(3));
    });

    it('should refuse an invalid body with one message per field', async () => {
      const user = await createUser(db);
      const cases: [Record<string, unknown>, string][] = [
        [{ name: '', scopes: ['read'] }, 'name: Required'],
        [{ name: 'x'.repeat(65), scopes: ['read'] }, 'name: At most 64 characters'],
        [{ name: 'k', scopes: [] }, 'scopes: Choose at least one scope'],
        [{ name: 'k', scopes: ['admin'] }, 'scopes.0: Each scope must be one of: generate, read'],
        [{ name: 'k', scopes: ['read'], monthly_credit_limit: 0 }, 'monthly_credit_limit: Must be at least 1'],
        [{ name: 'k', scopes: ['read'], monthly_credit_limit: 1.5 }, 'monthly_credit_limit: Must be a whole number'],
        [{ name: 'k', scopes: ['read'], expires_at: 'tomorrow' }, 'expires_at: Must be an ISO 8601 date and time'],
        [{ name: 'k', scopes: ['read'], expires_at: new Date(Date.now() - 60_000).toISOString() }, 'expires_at: Must be in the future'],
      ];
      for (const [json, msg] of cases) {
        const res = await post(h.app, '/auth/api-keys', { ...asDashboard(user), json });
        expect(res.status, JSON.stringify(json)).toBe(400);
        expect((await expectErrorBody(res)).msg).toBe(msg);
      }
      expect(await listKeys(user)).toEqual([]);
    });

    it('should need the dashboard session: the API key alone, or a named key, cannot manage keys', async () => {
      const user = await createUser(db);
      const named = await createKey(user, { name: 'all', scopes: ['generate', 'read'] });
      for (const key of [user.apiKey, named.key]) {
        const list = await get(h.app, '/auth/api-keys', { key });
        expect(list.status).toBe(403);
        expect((await expectErrorBody(list)).code).toBe('session_required');
        const create = await post(h.app, '/auth/api-keys', { key, json: { name: 'sneaky', scopes: ['read'] } });
        expect(create.status).toBe(403);
        const revoke = await post(h.app, `/auth/api-keys/${named.id}/revoke`, { key });
        expect(revoke.status).toBe(403);
      }
      expect((await listKeys(user)).map((k) => k.revoked)).toEqual([false]);
    });

    it(`should allow at most ${MAX_ACTIVE_KEYS} active keys (409), revoked and expired ones not counted`, async () => {
      const user = await createUser(db);
      const made: CreatedKey[] = [];
      for (let i = 0; i < MAX_ACTIVE_KEYS; i++) made.push(await createKey(user, { name: `key ${i}`, scopes: ['read'] }));
      const over = await post(h.app, '/auth/api-keys', { ...asDashboard(user), json: { name: 'one too many', scopes: ['read'] } });
      expect(over.status).toBe(409);
      expect(await expectErrorBody(over)).toEqual({
        msg: `You already have ${MAX_ACTIVE_KEYS} active API keys. Revoke one before creating another.`,
        code: 'conflict',
      });

      expect((await post(h.app, `/auth/api-keys/${made[0].id}/revoke`, asDashboard(user))).status).toBe(200);
      await db.query("update public.api_keys set expires_at = now() - interval '1 second' where id = $1", [made[1].id]);
      await createKey(user, { name: 'replacement 1', scopes: ['read'] });
      await createKey(user, { name: 'replacement 2', scopes: ['read'] });
      expect((await post(h.app, '/auth/api-keys', { ...asDashboard(user), json: { name: 'again too many', scopes: ['read'] } })).status).toBe(409);
      expect(await listKeys(user)).toHaveLength(MAX_ACTIVE_KEYS + 2);
    });

    it("should not let another account revoke (or see) a user's key: 404 as for an unknown id", async () => {
      const alice = await fundedUser();
      const bob = await createUser(db);
      const key = await createKey(alice, { name: 'alice', scopes: ['generate'] });
      for (const id of [key.id, '00000000-0000-4000-8000-000000000000']) {
        const res = await post(h.app, `/auth/api-keys/${id}/revoke`, asDashboard(bob));
        expect(res.status).toBe(404);
        expect(await expectErrorBody(res)).toEqual({ msg: 'API key not found', code: 'not_found' });
      }
      expect(await listKeys(bob)).toEqual([]);
      expect((await imagine(key.key)).status).toBe(200);
      const bad = await post(h.app, '/auth/api-keys/not-a-uuid/revoke', asDashboard(alice));
      expect(bad.status).toBe(400);
    });
  });

  describe('authentication', () => {
    it('should refuse a revoked key on the very next request, in another API process too', async () => {
      const user = await fundedUser();
      // a second app on the same database: another API process (no shared memory)
      const other = createApiApp({ db, config: testConfig, log: captureLogger(), media: h.media, engines: h.engines });
      const key = await createKey(user, { name: 'to revoke', scopes: ['generate', 'read'] });
      expect((await imagine(key.key, 'before', other)).status).toBe(200);

      const revoked = await post(h.app, `/auth/api-keys/${key.id}/revoke`, asDashboard(user));
      expect(revoked.status).toBe(200);
      const body = (await revoked.json()) as KeyView;
      expect(body.revoked).toBe(true);
      expect(body.revoked_at).not.toBeNull();

      for (const app of [other, h.app]) {
        const res = await imagine(key.key, 'after', app);
        expect(res.status).toBe(401);
        expect(await expectErrorBody(res)).toEqual({ msg: 'Invalid API key', code: 'invalid_api_key' });
        const read = await get(app, '/account', { key: key.key });
        expect(read.status).toBe(401);
      }
      // revoking again keeps the first time
      const again = (await (await post(h.app, `/auth/api-keys/${key.id}/revoke`, asDashboard(user))).json()) as KeyView;
      expect(again.revoked_at).toBe(body.revoked_at);
      // the primary key is untouched
      expect((await imagine(user.apiKey, 'primary')).status).toBe(200);
    });

    it("should answer 'API key expired' once the expiry has passed", async () => {
      const user = await fundedUser();
      const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
      const key = await createKey(user, { name: 'short-lived', scopes: ['generate', 'read'], expires_at: expiresAt });
      expect(key.expires_at).toBe(expiresAt);
      expect((await imagine(key.key)).status).toBe(200);

      await db.query("update public.api_keys set expires_at = now() - interval '1 second' where id = $1", [key.id]);
      const res = await imagine(key.key);
      expect(res.status).toBe(401);
      expect(await expectErrorBody(res)).toEqual({ msg: 'API key expired', code: 'api_key_expired' });
      expect((await listKeys(user))[0]).toMatchObject({ expired: true, revoked: false });
    });

    it.each([
      ['an unknown named key', `ak_${'x'.repeat(40)}`],
      ['a named key of the wrong length', 'ak_short'],
      ['a named key with other characters', `ak_${'-'.repeat(40)}`],
    ])("should answer 'Invalid API key' for %s", async (_name, key) => {
      const res = await imagine(key);
      expect(res.status).toBe(401);
      expect(await expectErrorBody(res)).toEqual({ msg: 'Invalid API key', code: 'invalid_api_key' });
    });

    it("should keep the primary key's behaviour and messages", async () => {
      const user = await fundedUser();
      expect((await imagine(user.apiKey)).status).toBe(200);
      expect((await imagine(`Bearer ${user.apiKey}`)).status).toBe(200);
      expect((await get(h.app, '/account', { key: user.apiKey })).status).toBe(200);
      expect((await post(h.app, '/auth/update-onboarding-status', { key: user.apiKey })).status).toBe(200);
      const missing = await post(h.app, '/pro/imagine', { json: { prompt: 'x' } });
      expect(missing.status).toBe(401);
      expect(await expectErrorBody(missing)).toEqual({ msg: 'Missing API key', code: 'missing_api_key' });
      const wrong = await imagine('f'.repeat(64));
      expect(await expectErrorBody(wrong)).toEqual({ msg: 'Invalid API key', code: 'invalid_api_key' });
    });

    it('should touch last_used_at at most once a minute', async () => {
      const user = await fundedUser();
      const key = await createKey(user, { name: 'used', scopes: ['read'] });
      const lastUsed = async () => (await db.query<{ t: Date | null }>('select last_used_at as t from public.api_keys where id = $1', [key.id])).rows[0].t;
      expect(await lastUsed()).toBeNull();
      expect((await get(h.app, '/account', { key: key.key })).status).toBe(200);
      const first = await lastUsed();
      expect(first).toBeInstanceOf(Date);
      expect((await get(h.app, '/account', { key: key.key })).status).toBe(200);
      expect((await lastUsed())?.getTime()).toBe(first!.getTime());

      await db.query("update public.api_keys set last_used_at = now() - interval '2 minutes' where id = $1", [key.id]);
      const stale = await lastUsed();
      expect((await get(h.app, '/account', { key: key.key })).status).toBe(200);
      expect((await lastUsed())!.getTime()).toBeGreaterThan(stale!.getTime());
      expect((await listKeys(user))[0].last_used_at).not.toBeNull();
    });
  });

  describe('scopes', () => {
    let user: TestUser;
    let readKey: CreatedKey;
    let generateKey: CreatedKey;
    let taskId = '';

    beforeAll(async () => {
      user = await fundedUser();
      readKey = await createKey(user, { name: 'reader', scopes: ['read'] });
      generateKey = await createKey(user, { name: 'generator', scopes: ['generate'] });
      taskId = ((await (await imagine(user.apiKey)).json()) as { task_id: string }).task_id;
    });

    it.each([
      ['/pro/imagine', { prompt: 'x' }],
      ['/imagine', { prompt: 'x' }],
      ['/flux-imagine', { model: 'flux-schnell', prompt: 'x', width: 1024, height: 1024 }],
      ['/faceswap', { swap_image_url: 'https://example.com/a.png', target_image_url: 'https://example.com/b.png' }],
      ['/suno-imagine', { prompt: 'x' }],
      ['/luma-imagine', { prompt: 'x' }],
      ['/ai-photo-train', { training_images_id: taskId, trigger_word: 'abcdef' }],
    ])('should answer 403 to a read-only key on %s (a submit)', async (path, json) => {
      const res = await post(h.app, path, { key: readKey.key, json });
      expect(res.status).toBe(403);
      expect(await expectErrorBody(res)).toEqual({ msg: 'This API key lacks the generate scope', code: 'insufficient_scope' });
    });

    it('should answer 403 to a read-only key on the uploads', async () => {
      for (const path of ['/upload', '/upload-audio', '/ai-photo-upload']) {
        const form = new FormData();
        form.append('image', new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' }), 'a.png');
        const res = await h.app.request(path, { method: 'POST', body: form, headers: { authorization: readKey.key } });
        expect(res.status, path).toBe(403);
        expect((await expectErrorBody(res)).msg).toBe('This API key lacks the generate scope');
      }
    });

    it('should let a read key read: /fetch, /fetch-many, /account, webhook deliveries', async () => {
      expect((await post(h.app, '/fetch', { key: readKey.key, json: { task_id: taskId } })).status).toBe(200);
      expect((await post(h.app, '/fetch-many', { key: readKey.key, json: { task_ids: [taskId, taskId] } })).status).toBe(200);
      const account = await get(h.app, '/account', { key: readKey.key });
      expect(account.status).toBe(200);
      expect(((await account.json()) as { email: string }).email).toBe(user.email);
      expect((await get(h.app, '/auth/webhook-deliveries', { key: readKey.key })).status).toBe(200);
    });

    it('should let a generate-only key submit and poll its tasks (/fetch, /fetch-many) but not read the account', async () => {
      const res = await imagine(generateKey.key);
      expect(res.status).toBe(200);
      const { task_id } = (await res.json()) as { task_id: string };
      expect((await post(h.app, '/fetch', { key: generateKey.key, json: { task_id } })).status).toBe(200);
      expect((await post(h.app, '/fetch-many', { key: generateKey.key, json: { task_ids: [task_id, taskId] } })).status).toBe(200);
      for (const path of ['/account', '/auth/webhook-deliveries']) {
        const denied = await get(h.app, path, { key: generateKey.key });
        expect(denied.status, path).toBe(403);
        expect(await expectErrorBody(denied)).toEqual({ msg: 'This API key lacks the read scope', code: 'insufficient_scope' });
      }
    });

    it('should keep the account calls for the primary key: a named key with every scope gets 403', async () => {
      const all = await createKey(user, { name: 'everything', scopes: ['generate', 'read'] });
      for (const path of ['/auth/update-onboarding-status', '/auth/webhook-test']) {
        const res = await post(h.app, path, { key: all.key, json: {} });
        expect(res.status, path).toBe(403);
        expect((await expectErrorBody(res)).code).toBe('insufficient_scope');
      }
    });

    it('should record which key made each task (null for the primary key)', async () => {
      const made = ((await (await imagine(generateKey.key, 'by key')).json()) as { task_id: string }).task_id;
      const { rows } = await db.query<{ id: string; api_key_id: string | null }>('select id, api_key_id from public.tasks where id = any($1::uuid[])', [
        [made, taskId],
      ]);
      expect(Object.fromEntries(rows.map((r) => [r.id, r.api_key_id]))).toEqual({ [made]: generateKey.id, [taskId]: null });
    });
  });

  describe('monthly credit limit', () => {
    it("should refuse a submit over the key's limit with 402, count refunds back, and leave the primary key alone", async () => {
      const user = await fundedUser();
      const key = await createKey(user, { name: 'capped', scopes: ['generate', 'read'], monthly_credit_limit: 2 * IMAGINE_COST });
      const first = (await (await imagine(key.key, 'one')).json()) as { task_id: string };
      expect((await imagine(key.key, 'two')).status).toBe(200);
      const over = await imagine(key.key, 'three');
      expect(over.status).toBe(402);
      expect(await expectErrorBody(over)).toEqual({
        msg: `This API key's monthly credit limit (${2 * IMAGINE_COST}) is reached`,
        code: 'api_key_credit_limit',
      });
      expect((await listKeys(user))[0]).toMatchObject({ used_this_month: 2 * IMAGINE_COST, monthly_credit_limit: 2 * IMAGINE_COST });
      // nothing was held for the refused submit
      const { rows: held } = await db.query<{ n: number }>('select count(*)::int as n from public.tasks where user_id = $1', [user.id]);
      expect(held[0].n).toBe(2);

      // a failed task's refund gives its credits back to the key's month
      const row = await taskRepository(db).findById(first.task_id);
      await db.transaction((tx) => settleFailure(tx, row!, { message: 'engine failed', code: 'engine_error' }));
      expect((await listKeys(user))[0].used_this_month).toBe(IMAGINE_COST);
      expect((await imagine(key.key, 'after refund')).status).toBe(200);
      expect((await imagine(key.key, 'over again')).status).toBe(402);

      // last month's tasks do not count
      await db.query("update public.tasks set created_at = date_trunc('month', now()) - interval '1 day' where api_key_id = $1", [key.id]);
      expect((await listKeys(user))[0].used_this_month).toBe(0);
      expect((await imagine(key.key, 'new month')).status).toBe(200);

      // the primary key has no such limit
      expect((await imagine(user.apiKey, 'primary')).status).toBe(200);
    });

    it('should let exactly the submits that fit through when they arrive at the same time', async () => {
      const user = await fundedUser(1000);
      const key = await createKey(user, { name: 'burst', scopes: ['generate'], monthly_credit_limit: 3 * IMAGINE_COST });
      const statuses = await Promise.all(Array.from({ length: 12 }, (_, i) => Promise.resolve(imagine(key.key, `burst ${i}`)).then((r) => r.status)));
      expect(statuses.filter((s) => s === 200)).toHaveLength(3);
      expect(statuses.filter((s) => s === 402)).toHaveLength(9);
      const { rows } = await db.query<{ n: number; spent: number }>(
        'select count(*)::int as n, coalesce(sum(cost), 0)::int as spent from public.tasks where api_key_id = $1',
        [key.id],
      );
      expect(rows[0]).toEqual({ n: 3, spent: 3 * IMAGINE_COST });
      const { rows: balance } = await db.query<{ credits: number }>('select credits from public.mdusers where id = $1', [user.id]);
      expect(balance[0].credits).toBe(1000 - 3 * IMAGINE_COST);
    });

    it('should refuse a submit whose key is revoked between authentication and the hold (checked inside submit_task)', async () => {
      const user = await fundedUser();
      const key = await createKey(user, { name: 'raced', scopes: ['generate'] });
      await db.query('update public.api_keys set revoked_at = now() where id = $1', [key.id]);
      await expect(
        db.query(
          `select public.submit_task($1::uuid, $2::text, gen_random_uuid(), 'imagine', 4, 'p', null, null, null, null, null, null, null, 'local', 3, 'jobs', null, $3::uuid)`,
          [user.id, user.email, key.id],
        ),
      ).rejects.toMatchObject({ code: 'PK401' });
      // another account's key id is refused the same way
      const other = await fundedUser();
      const theirs = await createKey(other, { name: 'theirs', scopes: ['generate'] });
      await expect(
        db.query(
          `select public.submit_task($1::uuid, $2::text, gen_random_uuid(), 'imagine', 4, 'p', null, null, null, null, null, null, null, 'local', 3, 'jobs', null, $3::uuid)`,
          [user.id, user.email, theirs.id],
        ),
      ).rejects.toMatchObject({ code: 'PK401' });
      // the 16- and 17-argument calls still work (no key)
      await db.query(
        `select public.submit_task($1::uuid, $2::text, gen_random_uuid(), 'imagine', 4, 'p', null, null, null, null, null, null, null, 'local', 3, 'jobs')`,
        [user.id, user.email],
      );
      await db.query(
        `select public.submit_task($1::uuid, $2::text, gen_random_uuid(), 'imagine', 4, 'p', null, null, null, null, null, null, null, 'local', 3, 'jobs', 'req-1')`,
        [user.id, user.email],
      );
    });
  });
});
