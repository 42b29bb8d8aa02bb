/**
 * Uploads authenticated and metered before their bodies (issue 21, part 5): the key, the
 * balance and a free account's quota are checked from the headers before a byte of the body
 * is read; a declared length over the limit is answered at once, a chunked body is cut at the
 * limit; free accounts get a daily quota; uploads expire and are swept unless a task uses them.
 * Bodies are ReadableStreams that count what the app pulls from them.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { defineEngine } from '../src/engines/define-engine.ts';
import { createLocalEngine } from '../src/engines/local/index.ts';
import { createUploadMemoryBudget, uploadMemoryFromEnv, uploadMemoryOf } from '../src/middleware/upload-limit/index.ts';
import { sweepExpiredUploads } from '../src/services/uploads/upload-quota.ts';
import { createUploadSweeper } from '../src/workers/upload-sweeper.ts';
import { createApiApp } from '../src/app.ts';
import { captureLogger, createUser, expectErrorBody, testConfig, type TestUser } from './helpers.ts';
import { grantCredits, openTestDb, TEST_CELL_SIZE, taskHarness, type TaskHarness } from './support/tasks.ts';

const MB = 1024 * 1024;
const CHUNK = 64 * 1024;
const BOUNDARY = 'aim-metering-boundary';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
const QUOTA_MESSAGE = 'Free accounts can upload 3 files (1 MB) a day; subscribe to a plan for more.';

/** A body of `total` bytes (`head` first, then filler) that counts the bytes pulled from it. */
function countingBody(total: number, head: Buffer = Buffer.alloc(0)) {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (pulled >= total) {
          controller.close();
          return;
        }
        const size = Math.min(CHUNK, total - pulled);
        const chunk = Buffer.alloc(size, 0x61);
        if (pulled < head.length) head.copy(chunk, 0, pulled, Math.min(head.length, pulled + size));
        pulled += size;
        controller.enqueue(chunk);
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => pulled };
}

const partHead = (field: string, filename: string, type: string) =>
  Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`);

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Each upload route: its content type and the start of a body for it. */
const ROUTES = [
  { path: '/upload', type: MULTIPART, head: Buffer.concat([partHead('image', 'big.png', 'image/png'), PNG_SIGNATURE]), limit: 10 * MB + CHUNK },
  { path: '/upload-audio', type: MULTIPART, head: partHead('audio', 'big.mp3', 'audio/mpeg'), limit: 50 * MB + CHUNK },
  { path: '/ai-photo-upload', type: 'application/json', head: Buffer.from('{"images":["'), limit: 128 * MB },
  { path: '/inpaint', type: 'application/json', head: Buffer.from('{"mask":"'), limit: 8 * MB },
] as const;

const noisePng = (bytes: number) => {
  const side = Math.ceil(Math.sqrt(bytes / 3));
  return sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
};

const smallPng = (seed: number) =>
  sharp({ create: { width: 16, height: 16, channels: 3, background: { r: seed % 256, g: 40, b: 90 } } })
    .png()
    .toBuffer();

describe.each(testDatabaseKinds())('uploads authenticated and metered before their bodies on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let user: TestUser;
  const saved = { count: process.env.UPLOAD_QUOTA_FREE_COUNT, bytes: process.env.UPLOAD_QUOTA_FREE_BYTES };

  beforeAll(async () => {
    // a small quota (read per request from the environment)
    process.env.UPLOAD_QUOTA_FREE_COUNT = '3';
    process.env.UPLOAD_QUOTA_FREE_BYTES = String(MB);
    db = await openTestDb(kind);
    // an engine for ai-photo-upload, so the route gets as far as the balance (it never runs here)
    const photos = defineEngine({
      name: 'test-photos',
      kinds: ['ai-photo-upload'],
      execute: async () => {
        throw new Error('not run');
      },
    });
    h = await taskHarness(db, [createLocalEngine({ cellSize: TEST_CELL_SIZE }), photos]);
    user = await createUser(db);
    await grantCredits(db, user.id, 100);
  });
  afterAll(async () => {
    for (const [name, value] of [
      ['UPLOAD_QUOTA_FREE_COUNT', saved.count],
      ['UPLOAD_QUOTA_FREE_BYTES', saved.bytes],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    expect(h?.appLog.lines.filter((l) => l.includes('unhandled error')) ?? []).toEqual([]);
    await h?.cleanup();
    await db?.close();
  });

  const send = (path: string, body: ReadableStream<Uint8Array> | Uint8Array | FormData, headers: Record<string, string>) =>
    h.app.request(path, { method: 'POST', body, headers, duplex: 'half' } as RequestInit);

  function uploadPng(key: string, png: Buffer) {
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(png)]), 'photo.png');
    return send('/upload', form, { authorization: key });
  }

  describe.each(ROUTES)('$path', (route) => {
    it('should answer 401 to 60 MB chunked without a key, reading at most one chunk', async () => {
      const body = countingBody(60 * MB, route.head);
      const res = await send(route.path, body.stream, { 'content-type': route.type });
      expect(res.status).toBe(401);
      expect(body.pulled()).toBeLessThanOrEqual(CHUNK);
    });

    it('should answer 413 to a declared length over the limit without reading', async () => {
      const body = countingBody(route.limit + MB, route.head);
      const res = await send(route.path, body.stream, { 'content-type': route.type, authorization: user.apiKey, 'content-length': String(route.limit + MB) });
      expect(res.status).toBe(413);
      expect((await expectErrorBody(res)).code).toBe('payload_too_large');
      expect(body.pulled()).toBeLessThanOrEqual(CHUNK);
    });
  });

  it.each(ROUTES.filter((r) => r.path !== '/ai-photo-upload'))('should cut a chunked body over the limit of $path at the limit (413)', async (route) => {
    const body = countingBody(60 * MB, route.head);
    const res = await send(route.path, body.stream, { 'content-type': route.type, authorization: user.apiKey });
    expect(res.status).toBe(413);
    expect((await expectErrorBody(res)).code).toBe('payload_too_large');
    expect(body.pulled()).toBeLessThanOrEqual(route.limit + CHUNK);
  });

  it('should keep the messages of a chunked upload over 10 MB', async () => {
    const body = countingBody(12 * MB, ROUTES[0].head);
    const res = await send('/upload', body.stream, { 'content-type': MULTIPART, authorization: user.apiKey });
    expect(res.status).toBe(413);
    expect(await expectErrorBody(res)).toEqual({ msg: 'Image must be at most 10 MB', code: 'payload_too_large' });
  });

  it.each([ROUTES[2], ROUTES[3]])('should answer 402 to $path without the credits before reading (or decoding) a byte of it', async (route) => {
    const poor = await createUser(db);
    const body = countingBody(60 * MB, route.head);
    const res = await send(route.path, body.stream, { 'content-type': route.type, authorization: poor.apiKey });
    expect(res.status).toBe(402);
    expect(await expectErrorBody(res)).toEqual({ msg: 'Not enough credits', code: 'insufficient_credits' });
    expect(body.pulled()).toBeLessThanOrEqual(CHUNK);
  });

  it('should hold at most two upload bodies of one account at once: the third is answered 429 before a byte is read', async () => {
    const rich = await createUser(db);
    await grantCredits(db, rich.id, 100);
    // two uploads whose bodies stall after their first bytes (held by the server meanwhile)
    const stalled = [0, 1].map(() => {
      let finish = () => {};
      const ended = new Promise<void>((resolve) => (finish = resolve));
      let sent = false;
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (!sent) {
            sent = true;
            controller.enqueue(ROUTES[0].head);
            return;
          }
          await ended;
          controller.close();
        },
      });
      return { finish, res: send('/upload', stream, { 'content-type': MULTIPART, authorization: rich.apiKey }) };
    });
    // both past authentication and holding their slots (each reserves the 10 MB limit: chunked)
    const held = uploadMemoryOf({});
    for (const deadline = Date.now() + 10_000; held.inUse() < 20 * MB && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(held.inUse()).toBeGreaterThanOrEqual(20 * MB);
    const third = countingBody(MB, ROUTES[0].head);
    const refused = await send('/upload', third.stream, { 'content-type': MULTIPART, authorization: rich.apiKey });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(await expectErrorBody(refused)).toEqual({ code: 'too_many_requests', msg: 'Too many uploads at once: at most 2 per account. Retry in 2 s.' });
    expect(third.pulled()).toBeLessThanOrEqual(CHUNK);
    // another account is not held up
    expect((await uploadPng((await createUser(db)).apiKey, await smallPng(71))).status).toBe(200);
    // the stalled bodies end (cut short: malformed), which frees the account's slots
    for (const s of stalled) s.finish();
    for (const s of stalled) expect((await s.res).status).toBe(400);
    expect((await uploadPng(rich.apiKey, await smallPng(72))).status).toBe(200);
  });

  it('should answer the upload with its expires_at, a week ahead, and serve it with a day of cache (generated media: immutable)', async () => {
    const free = await createUser(db);
    const res = await uploadPng(free.apiKey, await smallPng(1));
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { imageURL: string; expires_at: string };
    const days = (Date.parse(answer.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);
    const served = await h.app.request(new URL(answer.imageURL).pathname);
    expect(served.status).toBe(200);
    expect(served.headers.get('cache-control')).toBe('public, max-age=86400');

    const generated = `task-${randomUUID()}.png`;
    await h.media.put(generated, await smallPng(2), 'image/png');
    const servedGenerated = await h.app.request(`/media/${generated}`);
    expect(servedGenerated.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it("should refuse a free account's upload past its daily count, before reading the body", async () => {
    const free = await createUser(db);
    for (let i = 0; i < 3; i++) expect((await uploadPng(free.apiKey, await smallPng(10 + i))).status).toBe(200);
    const refused = await uploadPng(free.apiKey, await smallPng(20));
    expect(refused.status).toBe(429);
    expect(await expectErrorBody(refused)).toEqual({ msg: QUOTA_MESSAGE, code: 'too_many_requests' });

    const body = countingBody(5 * MB, ROUTES[0].head);
    const early = await send('/upload', body.stream, { 'content-type': MULTIPART, authorization: free.apiKey });
    expect(early.status).toBe(429);
    expect(body.pulled()).toBeLessThanOrEqual(CHUNK);
    const audio = await send('/upload-audio', countingBody(MB, ROUTES[1].head).stream, { 'content-type': MULTIPART, authorization: free.apiKey });
    expect(audio.status).toBe(429);
  });

  it("should refuse a free account's upload past its daily bytes", async () => {
    const free = await createUser(db);
    const big = await noisePng(600 * 1024);
    expect((await uploadPng(free.apiKey, big)).status).toBe(200);
    const refused = await uploadPng(free.apiKey, await noisePng(600 * 1024));
    expect(refused.status).toBe(429);
    expect(await expectErrorBody(refused)).toEqual({ msg: QUOTA_MESSAGE, code: 'too_many_requests' });
    // a small one still fits
    expect((await uploadPng(free.apiKey, await smallPng(30))).status).toBe(200);
  });

  it('should not limit an account with a plan', async () => {
    const subscribed = await createUser(db);
    await db.query("update public.mdusers set plan = 'basic' where id = $1", [subscribed.id]);
    for (let i = 0; i < 5; i++) expect((await uploadPng(subscribed.apiKey, await smallPng(40 + i))).status).toBe(200);
    expect((await uploadPng(subscribed.apiKey, await noisePng(700 * 1024))).status).toBe(200);
    expect((await uploadPng(subscribed.apiKey, await noisePng(700 * 1024))).status).toBe(200);
  });

  it('should count concurrent uploads once each: no more than the quota pass', async () => {
    const free = await createUser(db);
    // an app whose upload budget lets all six in at once (the default holds two per account)
    const roomy = createApiApp({
      db,
      config: testConfig,
      log: captureLogger(),
      media: h.media,
      engines: h.engines,
      uploadMemory: createUploadMemoryBudget({ budgetBytes: 512 * MB, perAccount: 6 }),
    });
    const answers = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const form = new FormData();
        form.append('image', new Blob([new Uint8Array(await smallPng(60 + i))]), 'photo.png');
        return (await roomy.request('/upload', { method: 'POST', body: form, headers: { authorization: free.apiKey } })).status;
      }),
    );
    expect(answers.filter((s) => s === 200)).toHaveLength(3);
    expect(answers.filter((s) => s === 429)).toHaveLength(3);
  });

  it('should sweep expired uploads no task refers to, and keep one a task uses', async () => {
    const owner = await createUser(db);
    await db.query("update public.mdusers set plan = 'basic' where id = $1", [owner.id]);
    const urls: string[] = [];
    for (let i = 0; i < 4; i++) urls.push(((await (await uploadPng(owner.apiKey, await smallPng(80 + i))).json()) as { imageURL: string }).imageURL);
    const [unused, used, fresh, inPrompt] = urls.map((url) => new URL(url).pathname.slice('/media/'.length));
    await db.query("update public.media_uploads set expires_at = now() - interval '1 minute' where key = any($1)", [[unused, used, inPrompt]]);
    // imagine keeps its image URLs in the prompt
    await db.query("insert into public.tasks (user_id, email, type, status, prompt) values ($1, $2, 'imagine', 'success', $3)", [
      owner.id,
      owner.email,
      `${urls[3]} a cat in the rain`,
    ]);
    await db.query("insert into public.tasks (user_id, email, type, status, input_data) values ($1, $2, 'faceswap', 'pending', $3)", [
      owner.id,
      owner.email,
      JSON.stringify({ swap_image_url: urls[1], target_image_url: 'https://example.com/t.png' }),
    ]);

    const sweeper = createUploadSweeper({ db, media: h.media, log: captureLogger() });
    expect(await sweeper.sweep()).toEqual([unused]);
    expect((await h.app.request(`/media/${unused}`)).status).toBe(404);
    expect((await h.app.request(`/media/${used}`)).status).toBe(200);
    expect((await h.app.request(`/media/${fresh}`)).status).toBe(200);
    expect((await h.app.request(`/media/${inPrompt}`)).status).toBe(200);
    const { rows } = await db.query<{ key: string; expires_at: string | null }>(
      'select key, expires_at from public.media_uploads where key = any($1) order by key',
      [[unused, used, fresh, inPrompt]],
    );
    expect(rows.map((r) => r.key).sort()).toEqual([used, fresh, inPrompt].sort());
    expect(rows.find((r) => r.key === used)?.expires_at).toBeNull();
    expect(rows.find((r) => r.key === inPrompt)?.expires_at).toBeNull();
    expect(rows.find((r) => r.key === fresh)?.expires_at).not.toBeNull();
    // a second sweep finds nothing
    expect(await sweepExpiredUploads({ db, media: h.media })).toEqual([]);
  });
});

describe('the upload memory budget of an API process', () => {
  it('reserves per account and in all, always lets one upload into an idle process, and frees on release (once)', () => {
    const budget = createUploadMemoryBudget({ budgetBytes: 100, perAccount: 2 });
    const a1 = budget.reserve('a', 60);
    expect('release' in a1).toBe(true);
    expect(budget.reserve('b', 50)).toEqual({ full: 'server' });
    const b1 = budget.reserve('b', 40);
    expect(budget.inUse()).toBe(100);
    expect(budget.reserve('a', 1)).toEqual({ full: 'server' });
    if (!('release' in a1) || !('release' in b1)) throw new Error('expected slots');
    a1.release();
    a1.release();
    expect(budget.inUse()).toBe(40);
    const a2 = budget.reserve('a', 10);
    const a3 = budget.reserve('a', 10);
    expect(budget.reserve('a', 10)).toEqual({ full: 'account' });
    for (const slot of [a2, a3, b1]) if ('release' in slot) slot.release();
    expect(budget.inUse()).toBe(0);
    // one upload larger than the whole budget still fits an idle process
    expect('release' in budget.reserve('c', 500)).toBe(true);
  });

  it('is set by UPLOAD_MEMORY_BUDGET_MB and UPLOAD_CONCURRENCY_PER_ACCOUNT', () => {
    expect(uploadMemoryFromEnv({})).toEqual({ budgetBytes: 512 * MB, perAccount: 2 });
    expect(uploadMemoryFromEnv({ UPLOAD_MEMORY_BUDGET_MB: '64', UPLOAD_CONCURRENCY_PER_ACCOUNT: '4' })).toEqual({ budgetBytes: 64 * MB, perAccount: 4 });
    expect(() => uploadMemoryFromEnv({ UPLOAD_CONCURRENCY_PER_ACCOUNT: '0' })).toThrow(/UPLOAD_CONCURRENCY_PER_ACCOUNT/);
  });
});
