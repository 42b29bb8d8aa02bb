/**
 * Compressed JSON answers (issue 24): br or gzip for 1 KiB or more when the client accepts it,
 * Vary: Accept-Encoding on every JSON answer; streams (SSE, CSV) go out as written.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { pickEncoding } from '@aim/supabase/compress';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { asDashboard, createUser, post, testApp, type TestUser } from './helpers.ts';
import { openTestDb } from './support/tasks.ts';

describe('the Accept-Encoding a JSON answer is compressed for', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['identity', undefined],
    ['deflate', undefined],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, deflate', 'gzip'],
    ['gzip, deflate, br, zstd', 'br'],
    ['br;q=0, gzip', 'gzip'],
    ['br;q=0.5, gzip;q=0.8', 'gzip'],
    ['*', 'br'],
    ['*, br;q=0', 'gzip'],
    ['gzip;q=0, br;q=0', undefined],
  ])('%j -> %s', (header, coding) => {
    expect(pickEncoding(header)).toBe(coding);
  });
});

describe.each(testDatabaseKinds())('compressed API answers on %s', (kind) => {
  let db: Db;
  let app: ReturnType<typeof testApp>;
  let user: TestUser;

  beforeAll(async () => {
    db = await openTestDb(kind);
    app = testApp(db);
    user = await createUser(db);
  });
  afterAll(async () => {
    await db?.close();
  });

  const plain = async () => (await app.request('/openapi.json')).json();

  it.each([
    ['br', 'br', brotliDecompressSync],
    ['gzip', 'gzip', gunzipSync],
    ['gzip, deflate, br, zstd', 'br', brotliDecompressSync],
  ])('compresses a big JSON answer for Accept-Encoding %s as %s, and it decodes to the same JSON', async (accept, coding, decode) => {
    const res = await app.request('/openapi.json', { headers: { 'accept-encoding': accept } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe(coding);
    expect(res.headers.get('vary')).toMatch(/accept-encoding/i);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
    const json = decode(bytes).toString();
    expect(bytes.length).toBeLessThan(json.length / 3);
    expect(JSON.parse(json)).toEqual(await plain());
  });

  it('sends JSON as it is without Accept-Encoding, or under 1 KiB, still saying it varies', async () => {
    const res = await app.request('/openapi.json');
    expect(res.headers.get('content-encoding')).toBeNull();
    expect(res.headers.get('vary')).toMatch(/accept-encoding/i);
    expect((await res.text()).length).toBeGreaterThan(1024);

    const small = await app.request('/account', { headers: { authorization: user.apiKey, 'accept-encoding': 'br, gzip' } });
    expect(small.headers.get('content-encoding')).toBeNull();
    expect((await small.text()).length).toBeLessThan(1024);
  });

  it('leaves a HEAD answer without a body alone', async () => {
    const res = await app.request('/openapi.json', { method: 'HEAD', headers: { 'accept-encoding': 'br' } });
    expect(res.headers.get('content-encoding')).toBeNull();
  });

  it('streams server-sent events uncompressed', async () => {
    const { rows } = await db.query<{ id: string }>(
      `insert into public.tasks (user_id, email, type, status, prompt, cost) values ($1, $2, 'imagine', 'pending', 'a lighthouse', 4) returning id`,
      [user.id, user.email],
    );
    const res = await app.request(`/tasks/${rows[0].id}/events`, { headers: { authorization: user.apiKey, 'accept-encoding': 'br, gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('content-encoding')).toBeNull();
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toMatch(/^(retry|event|id|data|:)/m);
    await reader.cancel();
  });

  it('streams a CSV export uncompressed', async () => {
    const link = await post(app, '/exports', { ...asDashboard(user), json: { kind: 'task-logs' } });
    const url = new URL(((await link.json()) as { url: string }).url);
    const res = await app.request(url.pathname + url.search, { headers: { 'accept-encoding': 'br, gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-encoding')).toBeNull();
    expect(new TextDecoder().decode(await res.arrayBuffer())).toMatch(/^task_id,type,status/);
  });
});
