import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { createUser, expectErrorBody, type TestUser } from './helpers.ts';
import { openTestDb, taskHarness, type TaskHarness } from './support/tasks.ts';

const image = (format: 'png' | 'jpeg' | 'gif' | 'webp', size = 16) =>
  sharp({ create: { width: size, height: size, channels: 3, background: { r: 200, g: 40, b: 90 } } })
    .toFormat(format)
    .toBuffer();

describe.each(testDatabaseKinds())('POST /upload and GET /media on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let user: TestUser;

  beforeAll(async () => {
    db = await openTestDb(kind);
    h = await taskHarness(db);
    user = await createUser(db);
  });
  afterAll(async () => {
    // no request of this suite may have ended in a 500
    expect(h?.appLog.lines.filter((l) => l.includes('unhandled error')) ?? []).toEqual([]);
    await h?.cleanup();
    await db?.close();
  });

  function upload(parts: { name?: string; value: Blob | string; filename?: string }[], key: string | null = user.apiKey) {
    const form = new FormData();
    for (const part of parts) {
      if (typeof part.value === 'string') form.append(part.name ?? 'image', part.value);
      else form.append(part.name ?? 'image', part.value, part.filename ?? 'file.bin');
    }
    return h.app.request('/upload', { method: 'POST', body: form, headers: key ? { authorization: key } : {} });
  }

  it.each([
    ['png', 'image/png', 'png'],
    ['jpeg', 'image/jpeg', 'jpg'],
    ['gif', 'image/gif', 'gif'],
    ['webp', 'image/webp', 'webp'],
  ] as const)('should store a %s and serve the same bytes with its type', async (format, type, ext) => {
    const data = await image(format);
    const res = await upload([{ value: new Blob([data]), filename: `photo.${format}` }]);
    expect(res.status).toBe(200);
    const { imageURL } = (await res.json()) as { imageURL: string };
    expect(imageURL).toMatch(new RegExp(`^http://localhost:8080/media/upload-[0-9a-f-]{36}\\.${ext}$`));
    const served = await h.app.request(new URL(imageURL).pathname);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe(type);
    expect(served.headers.get('cache-control')).toBe('public, max-age=86400');
    expect(Buffer.from(await served.arrayBuffer()).equals(data)).toBe(true);
  });

  it('should go by the content, not the file name or the declared type', async () => {
    const png = await image('png');
    const res = await upload([{ value: new Blob([png], { type: 'image/jpeg' }), filename: 'holiday.jpg' }]);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { imageURL: string }).imageURL).toMatch(/\.png$/);

    const text = await upload([{ value: new Blob(['<svg xmlns="http://www.w3.org/2000/svg"/>'], { type: 'image/png' }), filename: 'x.png' }]);
    expect(text.status).toBe(415);
    expect(await expectErrorBody(text)).toEqual({ msg: 'Only jpeg, png, gif and webp images are accepted', code: 'unsupported_media_type' });
  });

  it('should refuse a file that only starts like an image', async () => {
    const head = (await image('png')).subarray(0, 12);
    const res = await upload([{ value: new Blob([head]), filename: 'broken.png' }]);
    expect(res.status).toBe(400);
    expect(await expectErrorBody(res)).toEqual({ msg: 'The image could not be read', code: 'bad_request' });
  });

  it('should answer 413 over 10 MB and over the pixel limit', async () => {
    const big = Buffer.concat([await image('png'), randomBytes(10 * 1024 * 1024)]);
    const tooBig = await upload([{ value: new Blob([big]), filename: 'big.png' }]);
    expect(tooBig.status).toBe(413);
    expect(await expectErrorBody(tooBig)).toEqual({ msg: 'Image must be at most 10 MB', code: 'payload_too_large' });

    const bomb = await sharp({ create: { width: 8000, height: 6000, channels: 3, background: { r: 0, g: 0, b: 0 } } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    expect(bomb.length).toBeLessThan(10 * 1024 * 1024);
    const tooWide = await upload([{ value: new Blob([bomb]), filename: 'bomb.png' }]);
    expect(tooWide.status).toBe(413);
    expect(await expectErrorBody(tooWide)).toEqual({ msg: 'Image must be at most 40 megapixels', code: 'payload_too_large' });
  });

  it.each([
    ['no image field', () => upload([{ name: 'file', value: new Blob(['x']) }]), 400, 'image: Required'],
    ['a text field', () => upload([{ value: 'https://example.com/a.png' }]), 400, 'image: Must be a file'],
    ['an empty file', () => upload([{ value: new Blob([]) }]), 400, 'image: The file is empty'],
    [
      'a JSON body',
      () => h.app.request('/upload', { method: 'POST', body: '{}', headers: { authorization: user.apiKey, 'content-type': 'application/json' } }),
      415,
      'Content-Type must be multipart/form-data',
    ],
    [
      'a broken multipart body',
      () =>
        h.app.request('/upload', {
          method: 'POST',
          body: '--x\r\nnope',
          headers: { authorization: user.apiKey, 'content-type': 'multipart/form-data; boundary=x' },
        }),
      400,
      'Malformed multipart body',
    ],
  ] as const)('should refuse %s', async (_name, send, status, msg) => {
    const res = await send();
    expect(res.status).toBe(status);
    expect((await expectErrorBody(res)).msg).toBe(msg);
  });

  it('should answer 401 without an API key', async () => {
    const res = await upload([{ value: new Blob([await image('png')]) }], null);
    expect(res.status).toBe(401);
  });

  it.each(['/media/nope.png', '/media/..%2F..%2Fetc%2Fpasswd', '/media/a.svg', '/media/.hidden.png'])('should answer 404 for %s', async (path) => {
    const res = await h.app.request(path);
    expect(res.status).toBe(404);
    expect((await expectErrorBody(res)).code).toBe('not_found');
  });
});
