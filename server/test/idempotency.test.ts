import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, type Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { createApiApp } from '../src/app.ts';
import { requestFingerprint } from '../src/middleware/idempotency/fingerprint.ts';
import { createIdempotencySweeper } from '../src/workers/idempotency-sweeper.ts';
import { asDashboard, captureLogger, createUser, expectErrorBody, post, testConfig } from './helpers.ts';
import { balanceOf, createPostgresDbWithUrl, grantCredits, scriptedEngine, taskHarness, type TaskHarness } from './support/tasks.ts';
import { createTestDb } from '@aim/supabase/testing';

type App = TaskHarness['app'];

const imagine = (app: App, key: string, idempotencyKey: string | undefined, json: unknown) =>
  post(app, '/pro/imagine', { key, json, headers: idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey } });

async function taskIdOf(res: Response): Promise<string> {
  expect(res.status).toBe(200);
  return ((await res.json()) as { task_id: string }).task_id;
}

async function tasksOf(db: Db, userId: string): Promise<{ n: number; held: number }> {
  const { rows } = await db.query<{ n: number; held: number }>(
    'select count(*)::int as n, coalesce(sum(cost), 0)::int as held from public.tasks where user_id = $1',
    [userId],
  );
  return rows[0];
}

describe.each(testDatabaseKinds())('Idempotency-Key on %s', (kind) => {
  let db: Db;
  let url: string | undefined;
  let h: TaskHarness;

  beforeAll(async () => {
    if (kind === 'postgres') ({ db, url } = await createPostgresDbWithUrl());
    else db = await createTestDb(kind);
    h = await taskHarness(db, [scriptedEngine()]);
  });
  afterAll(async () => {
    await h?.cleanup();
    await db?.close();
  });

  it('should replay the first answer (same task id, one hold) to the same key and body', async () => {
    const user = await createUser(db);
    await grantCredits(db, user.id, 20);
    const key = randomUUID();
    const first = await imagine(h.app, user.apiKey, key, { prompt: 'a red fox', webhook_url: 'https://example.com/hook' });
    expect(first.headers.get('Idempotent-Replayed')).toBeNull();
    const taskId = await taskIdOf(first);
    // the same fields in another order and spacing: the same request
    const again = await imagine(h.app, user.apiKey, key, '{ "webhook_url": "https://example.com/hook",  "prompt": "a red fox" }');
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await taskIdOf(again)).toBe(taskId);
    expect(await tasksOf(db, user.id)).toEqual({ n: 1, held: 4 });
    const balance = await balanceOf(db, user.id);
    expect(balance).toMatchObject({ credits: 16, ledgerRows: 2 }); // the grant and one hold
  });

  it('should answer 422 naming the mismatch for another body or another path with the same key', async () => {
    const user = await createUser(db);
    await grantCredits(db, user.id, 20);
    const key = randomUUID();
    await taskIdOf(await imagine(h.app, user.apiKey, key, { prompt: 'one' }));
    const otherBody = await imagine(h.app, user.apiKey, key, { prompt: 'two' });
    expect(otherBody.status).toBe(422);
    expect(await expectErrorBody(otherBody)).toEqual({
      code: 'idempotency_key_reused',
      msg: 'This Idempotency-Key was already used for POST /pro/imagine with a different body; use a new key for a different request',
    });
    const otherPath = await post(h.app, '/flux/imagine', { key: user.apiKey, json: { prompt: 'one' }, headers: { 'Idempotency-Key': key } });
    expect(otherPath.status).toBe(422);
    expect((await expectErrorBody(otherPath)).msg).toBe(
      'This Idempotency-Key was already used for POST /pro/imagine, not POST /flux/imagine; use a new key for a different request',
    );
    expect(await tasksOf(db, user.id)).toEqual({ n: 1, held: 4 });
  });

  it('should create one task and one hold out of 20 parallel duplicates; the others replay it or answer 409', async () => {
    const user = await createUser(db);
    await grantCredits(db, user.id, 100);
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 20 }, () => imagine(h.app, user.apiKey, key, { prompt: 'burst' })));
    const ids = new Set<string>();
    let fresh = 0;
    for (const res of answers) {
      if (res.status === 409) {
        expect(res.headers.get('Retry-After')).toBe('1');
        expect((await expectErrorBody(res)).code).toBe('idempotency_key_in_use');
        continue;
      }
      if (res.headers.get('Idempotent-Replayed') !== 'true') fresh += 1;
      ids.add(await taskIdOf(res));
    }
    expect(fresh).toBe(1);
    expect(ids.size).toBe(1);
    expect(await tasksOf(db, user.id)).toEqual({ n: 1, held: 4 });
    expect((await balanceOf(db, user.id)).ledgerRows).toBe(2);
  });

  it('should replay across API processes sharing the database', async () => {
    const user = await createUser(db);
    await grantCredits(db, user.id, 20);
    const otherDb = url ? await openPostgres(url) : db;
    try {
      const other = createApiApp({ db: otherDb, config: testConfig, log: captureLogger(), media: h.media, engines: h.engines });
      const key = randomUUID();
      const taskId = await taskIdOf(await imagine(h.app, user.apiKey, key, { prompt: 'shared' }));
      const replayed = await imagine(other, user.apiKey, key, { prompt: 'shared' });
      expect(replayed.headers.get('Idempotent-Replayed')).toBe('true');
      expect(await taskIdOf(replayed)).toBe(taskId);
      expect(await tasksOf(db, user.id)).toEqual({ n: 1, held: 4 });
    } finally {
      if (otherDb !== db) await otherDb.close();
    }
  });

  it('should scope keys per account: the same key from two accounts makes two tasks', async () => {
    const [a, b] = [await createUser(db), await createUser(db)];
    await grantCredits(db, a.id, 10);
    await grantCredits(db, b.id, 10);
    const key = `order-${randomUUID()}`;
    const idA = await taskIdOf(await imagine(h.app, a.apiKey, key, { prompt: 'same' }));
    const resB = await imagine(h.app, b.apiKey, key, { prompt: 'same' });
    expect(resB.headers.get('Idempotent-Replayed')).toBeNull();
    expect(await taskIdOf(resB)).not.toBe(idA);
    expect(await tasksOf(db, a.id)).toEqual({ n: 1, held: 4 });
    expect(await tasksOf(db, b.id)).toEqual({ n: 1, held: 4 });
  });

  it('should forget a key after 24 hours: a new task, and the sweep removes the old keys', async () => {
    const user = await createUser(db);
    await grantCredits(db, user.id, 20);
    const [key, stale] = [randomUUID(), randomUUID()];
    const first = await taskIdOf(await imagine(h.app, user.apiKey, key, { prompt: 'day one' }));
    await taskIdOf(await imagine(h.app, user.apiKey, stale, { prompt: 'day one, another' }));
    await db.query(`update public.idempotency_keys set created_at = now() - interval '24 hours 1 minute' where user_id = $1`, [user.id]);
    // past 24 hours, even before a sweep: the key is new again (another body is fine too)
    const second = await imagine(h.app, user.apiKey, key, { prompt: 'day two' });
    expect(second.headers.get('Idempotent-Replayed')).toBeNull();
    expect(await taskIdOf(second)).not.toBe(first);
    expect(await createIdempotencySweeper({ db, log: captureLogger() }).sweep()).toBeGreaterThanOrEqual(1);
    const { rows } = await db.query<{ key: string }>('select key from public.idempotency_keys where user_id = $1', [user.id]);
    expect(rows).toEqual([{ key }]);
  });

  it('should keep only successful answers: after a 402 the same key runs again once credits arrive', async () => {
    const user = await createUser(db);
    const key = randomUUID();
    const refused = await imagine(h.app, user.apiKey, key, { prompt: 'no credits yet' });
    expect(refused.status).toBe(402);
    const invalid = await imagine(h.app, user.apiKey, key, { prompt: '' });
    expect(invalid.status).toBe(400);
    await grantCredits(db, user.id, 4);
    const ok = await imagine(h.app, user.apiKey, key, { prompt: 'no credits yet' });
    expect(ok.headers.get('Idempotent-Replayed')).toBeNull();
    await taskIdOf(ok);
    expect(await tasksOf(db, user.id)).toEqual({ n: 1, held: 4 });
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['not ASCII', 'clé'],
    ['a control character', 'a\tb'],
  ])('should answer 400 invalid_idempotency_key to a key that is %s', async (_what, key) => {
    const user = await createUser(db);
    await grantCredits(db, user.id, 4);
    const res = await imagine(h.app, user.apiKey, key, { prompt: 'x' });
    expect(res.status).toBe(400);
    expect(await expectErrorBody(res)).toEqual({ code: 'invalid_idempotency_key', msg: 'Idempotency-Key must be 1 to 255 printable ASCII characters' });
    expect(await tasksOf(db, user.id)).toEqual({ n: 0, held: 0 });
  });

  it('should take a 255-character key and store nothing for a request without one', async () => {
    const user = await createUser(db);
    await grantCredits(db, user.id, 8);
    await taskIdOf(await imagine(h.app, user.apiKey, `${'k'.repeat(254)} `.slice(0, 255).replace(/ $/, 'z'), { prompt: 'long key' }));
    await taskIdOf(await imagine(h.app, user.apiKey, undefined, { prompt: 'no key' }));
    const { rows } = await db.query<{ n: number }>('select count(*)::int as n from public.idempotency_keys where user_id = $1', [user.id]);
    expect(rows[0].n).toBe(1);
  });

  it('should refuse the header on streamed uploads with a clear 400', async () => {
    const user = await createUser(db);
    const form = new FormData();
    form.set('image', new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' }), 'a.png');
    const res = await h.app.request('/upload', { method: 'POST', headers: { authorization: user.apiKey, 'Idempotency-Key': randomUUID() }, body: form });
    expect(res.status).toBe(400);
    expect(await expectErrorBody(res)).toEqual({
      code: 'invalid_idempotency_key',
      msg: 'Idempotency-Key is not supported on POST /upload: an upload creates no task and holds no credits; send it without the header',
    });
  });

  it('should wait for a request still in flight, then answer 409 with Retry-After', async () => {
    const user = await createUser(db);
    await grantCredits(db, user.id, 4);
    const key = randomUUID();
    const hash = requestFingerprint('POST', '/pro/imagine', JSON.stringify({ prompt: 'slow' }));
    await db.query(
      `insert into public.idempotency_keys (user_id, key, method, path, request_hash, lease_token, locked_until)
       values ($1, $2, 'POST', '/pro/imagine', $3, gen_random_uuid(), now() + interval '1 minute')`,
      [user.id, key, hash],
    );
    const started = Date.now();
    const res = await imagine(h.app, user.apiKey, key, { prompt: 'slow' });
    expect(res.status).toBe(409);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    expect(res.headers.get('Retry-After')).toBe('1');
    expect(await expectErrorBody(res)).toEqual({
      code: 'idempotency_key_in_use',
      msg: 'A request with this Idempotency-Key is still in progress; retry in a second to get its answer',
    });
  });

  it('should run again the request of a process that died holding the key (its lease ran out)', async () => {
    const user = await createUser(db);
    await grantCredits(db, user.id, 4);
    const key = randomUUID();
    const hash = requestFingerprint('POST', '/pro/imagine', JSON.stringify({ prompt: 'crashed' }));
    await db.query(
      `insert into public.idempotency_keys (user_id, key, method, path, request_hash, lease_token, locked_until)
       values ($1, $2, 'POST', '/pro/imagine', $3, gen_random_uuid(), now() - interval '1 second')`,
      [user.id, key, hash],
    );
    const taskId = await taskIdOf(await imagine(h.app, user.apiKey, key, { prompt: 'crashed' }));
    const replayed = await imagine(h.app, user.apiKey, key, { prompt: 'crashed' });
    expect(replayed.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await taskIdOf(replayed)).toBe(taskId);
  });

  it('should replay a charge call (the trial) with the dashboard session', async () => {
    const user = await createUser(db);
    const key = randomUUID();
    const first = await post(h.app, '/auth/trial', { ...asDashboard(user), headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(200);
    const again = await post(h.app, '/auth/trial', { ...asDashboard(user), headers: { 'Idempotency-Key': key } });
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
  });

  it('should document the header, 409 and 422 on each create or charge operation, not on uploads', async () => {
    const doc = (await (await h.app.request('/openapi.json')).json()) as {
      paths: Record<string, Record<string, { parameters?: { $ref?: string }[]; responses: Record<string, { headers?: Record<string, unknown> }> }>>;
      components: { parameters: Record<string, { name: string; in: string }> };
    };
    expect(doc.components.parameters.IdempotencyKey).toMatchObject({ name: 'Idempotency-Key', in: 'header' });
    const takes = (path: string) => (doc.paths[path]?.post?.parameters ?? []).some((p) => p.$ref === '#/components/parameters/IdempotencyKey');
    for (const path of [
      '/pro/imagine',
      '/imagine',
      '/faceswap',
      '/ai-photo-upload',
      '/inpaint',
      '/suno-imagine',
      '/luma-imagine',
      '/auth/topup',
      '/auth/subscribe',
      '/auth/trial',
    ]) {
      expect(takes(path), path).toBe(true);
      const responses = doc.paths[path].post.responses;
      expect(Object.keys(responses)).toEqual(expect.arrayContaining(['409', '422']));
      expect(responses['200'].headers).toHaveProperty('Idempotent-Replayed');
    }
    for (const path of ['/upload', '/upload-audio', '/fetch', '/auth/update-auto-topup']) expect(takes(path), path).toBe(false);
    const page = await (await h.app.request('/docs')).text();
    expect(page).toContain('Idempotency-Key');
    expect(page).toContain('idempotency_key_reused');
  });
});
