import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaRoutes } from '../src/routes/media.ts';
import { createS3MediaStore, type S3MediaStoreOptions } from '../src/storage/s3-media-store.ts';
import { mediaStoreFromEnv } from '../src/workers/runtime.ts';
import { startFakeS3, type FakeS3 } from './support/fake-s3.ts';

const credentials = { bucket: 'aim-media', region: 'eu-west-1', accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret-key-do-not-log' };
const api = 'http://api.test:8080';
const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

/** Sends a signed request to the fake on 127.0.0.1 keeping its Host header: virtual-host names need no DNS. */
function viaLoopback(port: number): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const body = Buffer.from(await request.arrayBuffer());
    const headers: Record<string, string> = { host: url.host };
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    return new Promise<Response>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method: request.method, path: url.pathname + url.search, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value);
          const status = res.statusCode ?? 500;
          resolve(new Response(status === 204 ? null : Buffer.concat(chunks), { status, headers }));
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  };
}

describe('S3 media store against a SigV4-checking fake S3', () => {
  let s3: FakeS3;
  const store = (overrides: Partial<S3MediaStoreOptions> = {}) =>
    createS3MediaStore({ ...credentials, endpoint: s3.endpoint, forcePathStyle: true, apiPublicUrl: api, ...overrides });

  beforeAll(async () => {
    s3 = await startFakeS3(credentials);
  });
  afterAll(async () => {
    await s3?.close();
  });

  it('puts with content type and a long cache, and gets the same bytes back', async () => {
    const media = store();
    const url = await media.put('task-1-grid.png', png, 'image/png');
    expect(url).toBe(`${api}/media/task-1-grid.png`);
    expect(s3.objects.get('task-1-grid.png')).toEqual({ data: png, contentType: 'image/png', cacheControl: 'public, max-age=31536000, immutable' });
    expect(s3.requests.at(-1)).toMatchObject({ method: 'PUT', path: '/aim-media/task-1-grid.png', status: 200 });

    const stored = await media.get('task-1-grid.png');
    expect(stored?.contentType).toBe('image/png');
    expect(stored?.data.equals(png)).toBe(true);

    await media.put('task-1-grid.png', Buffer.from([9, 9]), 'image/png');
    expect((await media.get('task-1-grid.png'))?.data).toEqual(Buffer.from([9, 9]));
  });

  it('tells whether a key is stored with a HEAD request, reading no bytes', async () => {
    const media = store();
    await media.put('upload-has.png', png, 'image/png');
    expect(await media.has('upload-has.png')).toBe(true);
    expect(s3.requests.at(-1)).toMatchObject({ method: 'HEAD', path: '/aim-media/upload-has.png', status: 200 });
    expect(await media.has('upload-missing.png')).toBe(false);
    expect(s3.requests.at(-1)).toMatchObject({ method: 'HEAD', status: 404 });
    // not a key this store could hold: no request at all
    const before = s3.requests.length;
    expect(await media.has('../etc/passwd')).toBe(false);
    expect(s3.requests.length).toBe(before);
  });

  it('answers undefined for a missing object and for keys that are not media keys', async () => {
    const media = store();
    expect(await media.get('never-stored.png')).toBeUndefined();
    expect(s3.requests.at(-1)).toMatchObject({ method: 'GET', status: 404 });
    const before = s3.requests.length;
    expect(await media.get('../etc/passwd')).toBeUndefined();
    expect(await media.get('x.html')).toBeUndefined();
    expect(s3.requests.length).toBe(before);
    await expect(media.put('../escape.png', png, 'image/png')).rejects.toThrow(/invalid media key/);
  });

  it('surfaces S3 error codes and never the secret', async () => {
    const wrongSecret = store({ secretAccessKey: 'not-the-secret' });
    const error = await wrongSecret.put('a.png', png, 'image/png').then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/^S3 PutObject a\.png failed: 403 SignatureDoesNotMatch/);
    expect(error?.message).not.toContain('not-the-secret');
    expect(s3.objects.has('a.png')).toBe(false);
    await expect(wrongSecret.get('task-1-grid.png')).rejects.toThrow(/403 SignatureDoesNotMatch/);

    await expect(store({ accessKeyId: 'AKIDOTHER' }).put('a.png', png, 'image/png')).rejects.toThrow(/403 InvalidAccessKeyId/);
    await expect(store({ bucket: 'other-bucket' }).put('a.png', png, 'image/png')).rejects.toThrow(/404 NoSuchBucket/);
    // a missing bucket is misconfiguration, not a missing image
    await expect(store({ bucket: 'other-bucket' }).get('a.png')).rejects.toThrow(/404 NoSuchBucket/);
  });

  it('retries 5xx answers, then gives up with the last code', async () => {
    const media = store();
    s3.failNext(1);
    await media.put('retried.png', png, 'image/png');
    expect(s3.objects.has('retried.png')).toBe(true);

    s3.failNext(3);
    await expect(media.put('gave-up.png', png, 'image/png')).rejects.toThrow(/503 SlowDown/);
    expect(s3.objects.has('gave-up.png')).toBe(false);
  });

  it('fails with the cause when S3 cannot be reached', async () => {
    const closed = await startFakeS3(credentials);
    await closed.close();
    await expect(store({ endpoint: closed.endpoint }).put('x.png', png, 'image/png')).rejects.toThrow(
      /^S3 PutObject x\.png failed: fetch failed \(ECONNREFUSED\)$/,
    );
  });

  it('addresses the bucket as a virtual host unless path style is forced', async () => {
    const media = store({ endpoint: `http://s3.test:${s3.port}`, forcePathStyle: false, fetch: viaLoopback(s3.port) });
    await media.put('vhost.png', png, 'image/png');
    expect(s3.requests.at(-1)).toMatchObject({ method: 'PUT', host: `aim-media.s3.test:${s3.port}`, path: '/vhost.png', status: 200 });
    expect((await media.get('vhost.png'))?.data.equals(png)).toBe(true);
  });

  it('hands out S3_PUBLIC_URL links when set, API links otherwise, and inverts only its own', () => {
    const viaApi = store();
    expect(viaApi.url('k-1.webp')).toBe(`${api}/media/k-1.webp`);
    expect(viaApi.keyOf(`${api}/media/k-1.webp`)).toBe('k-1.webp');
    expect(viaApi.keyOf('https://cdn.example.com/media/k-1.webp')).toBeUndefined();
    expect(viaApi.keyOf(`${api}/media/../secret.png`)).toBeUndefined();
    expect(() => viaApi.url('bad key.png')).toThrow(/invalid media key/);

    const viaCdn = store({ publicBaseUrl: 'https://cdn.example.com/media/' });
    expect(viaCdn.url('k-1.webp')).toBe('https://cdn.example.com/media/k-1.webp');
    expect(viaCdn.keyOf('https://cdn.example.com/media/k-1.webp')).toBe('k-1.webp');
    expect(viaCdn.keyOf(`${api}/media/k-1.webp`)).toBeUndefined();
  });

  it('put answers the public URL', async () => {
    expect(await store({ publicBaseUrl: 'https://cdn.example.com' }).put('cdn-1.jpg', png, 'image/jpeg')).toBe('https://cdn.example.com/cdn-1.jpg');
  });

  it('GET /media/<key> reads through the store', async () => {
    const media = store();
    await media.put('served-1.png', png, 'image/png');
    const response = await mediaRoutes({ media }).request('/media/served-1.png');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await response.arrayBuffer()).equals(png)).toBe(true);
  });

  it('mediaStoreFromEnv picks disk by default and S3 when configured', async () => {
    const s3Env = {
      S3_BUCKET: credentials.bucket,
      S3_REGION: credentials.region,
      S3_ACCESS_KEY_ID: credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      S3_ENDPOINT: s3.endpoint,
    };
    const fromEnv = mediaStoreFromEnv(api, s3Env);
    const before = s3.requests.length;
    // path style by default with S3_ENDPOINT (the fake on 127.0.0.1 only routes that way)
    expect(await fromEnv.put('env-1.png', png, 'image/png')).toBe(`${api}/media/env-1.png`);
    expect(s3.requests.length).toBe(before + 1);
    expect(s3.objects.has('env-1.png')).toBe(true);

    expect(mediaStoreFromEnv(api, { ...s3Env, S3_PUBLIC_URL: 'https://cdn.example.com' }).url('a.png')).toBe('https://cdn.example.com/a.png');

    const disk = mediaStoreFromEnv(api, { MEDIA_DIR: '/tmp/aim-s3-test-unused' });
    expect(disk.url('a.png')).toBe(`${api}/media/a.png`);
    const requestsBefore = s3.requests.length;
    expect(await disk.get('env-1.png')).toBeUndefined();
    expect(s3.requests.length).toBe(requestsBefore);
    // explicit disk wins over S3_* settings
    expect(await mediaStoreFromEnv(api, { ...s3Env, MEDIA_STORE: 'disk', MEDIA_DIR: '/tmp/aim-s3-test-unused' }).get('env-1.png')).toBeUndefined();
    expect(s3.requests.length).toBe(requestsBefore);

    expect(() => mediaStoreFromEnv(api, { MEDIA_STORE: 's3', S3_BUCKET: 'b' })).toThrow('S3 media store needs S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY');
    expect(() => mediaStoreFromEnv(api, { MEDIA_STORE: 'ftp' })).toThrow(/MEDIA_STORE must be disk or s3/);
    expect(() => mediaStoreFromEnv(api, { ...s3Env, S3_FORCE_PATH_STYLE: 'maybe' })).toThrow(/S3_FORCE_PATH_STYLE must be true or false/);
  });
});
