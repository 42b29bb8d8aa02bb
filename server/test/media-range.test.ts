/**
 * GET /media/<key> streams: a byte range of a large file is read from the disk or S3 store as a range
 * (never the whole file, never through `get()`), S3 is asked with a signed `Range` header and its part
 * passed through, and a client that goes away mid-download closes the file handle or S3 connection.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaRoutes } from '../src/routes/media.ts';
import { createDiskMediaStore } from '../src/storage/disk-media-store.ts';
import type { MediaStore } from '../src/storage/media-store.ts';
import { createS3MediaStore } from '../src/storage/s3-media-store.ts';
import { startFakeS3 } from './support/fake-s3.ts';

const SIZE = 20 * 1024 * 1024;
const big = randomBytes(SIZE);

/** The store with `get()` failing the test and every streamed byte counted. */
function watched(store: MediaStore) {
  const seen = { gets: 0, opens: 0, streamed: 0 };
  const media: MediaStore = {
    ...store,
    async get(key) {
      seen.gets++;
      return store.get(key);
    },
    async open(key, range) {
      seen.opens++;
      const body = await store.open(key, range);
      if (!body) return undefined;
      const counted = new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen.streamed += chunk.length;
          controller.enqueue(chunk);
        },
      });
      return body.pipeThrough(counted);
    },
  };
  return { media, seen };
}

async function bytesOf(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer());
}

/** The API on a real socket (the Node adapter is what cancels a response's stream when its client leaves). */
async function listen(media: MediaStore): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = await new Promise<http.Server>((resolve) => {
    const s = serve({ fetch: mediaRoutes({ media }).fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as http.Server)) as http.Server;
  });
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Requests `range` of `url`, reads its first chunk, then drops the connection; answers the status seen. */
function abortAfterFirstChunk(url: string, range: string, whileOpen?: () => Promise<void>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { range } }, (res) => {
      res.once('data', () => {
        (whileOpen?.() ?? Promise.resolve()).then(() => {
          req.destroy();
          resolve(res.statusCode ?? 0);
        }, reject);
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET') reject(error);
    });
  });
}

async function until(condition: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** How many of this process's file descriptors point at `file` (Linux; undefined elsewhere). */
async function openHandles(file: string): Promise<number | undefined> {
  let fds: string[];
  try {
    fds = await readdir('/proc/self/fd');
  } catch {
    return undefined;
  }
  const targets = await Promise.all(fds.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
  return targets.filter((target) => target === file).length;
}

describe('GET /media/<key> streams from the disk store', () => {
  let dir: string;
  let disk: MediaStore;
  const file = () => path.join(dir, 'big-1.mp4');

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aim-media-range-'));
    disk = createDiskMediaStore({ dir, publicUrl: 'http://api.test' });
    await writeFile(file(), big);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('answers a range of a 20 MB file with exactly its bytes, reading only the range', async () => {
    const { media, seen } = watched(disk);
    const app = mediaRoutes({ media });
    const start = 7_654_321;
    const end = start + 1_000_000 - 1;
    const response = await app.request('/media/big-1.mp4', { headers: { range: `bytes=${start}-${end}` } });
    expect(response.status).toBe(206);
    expect(response.headers.get('content-range')).toBe(`bytes ${start}-${end}/${SIZE}`);
    expect(response.headers.get('content-length')).toBe('1000000');
    expect(response.headers.get('content-type')).toBe('video/mp4');
    expect((await bytesOf(response)).equals(big.subarray(start, end + 1))).toBe(true);
    expect(seen).toEqual({ gets: 0, opens: 1, streamed: 1_000_000 });

    // the last bytes, and from an offset to the end
    const tail = await app.request('/media/big-1.mp4', { headers: { range: 'bytes=-100' } });
    expect(tail.headers.get('content-range')).toBe(`bytes ${SIZE - 100}-${SIZE - 1}/${SIZE}`);
    expect((await bytesOf(tail)).equals(big.subarray(SIZE - 100))).toBe(true);
    const rest = await app.request('/media/big-1.mp4', { headers: { range: `bytes=${SIZE - 70_000}-` } });
    expect((await bytesOf(rest)).equals(big.subarray(SIZE - 70_000))).toBe(true);
    expect(seen.gets).toBe(0);
    expect(seen.streamed).toBe(1_000_000 + 100 + 70_000);
  });

  it('streams the whole file without a range, and opens nothing for HEAD or an unsatisfiable range', async () => {
    const { media, seen } = watched(disk);
    const app = mediaRoutes({ media });
    const whole = await app.request('/media/big-1.mp4');
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-length')).toBe(String(SIZE));
    expect((await bytesOf(whole)).equals(big)).toBe(true);

    const head = await app.request('/media/big-1.mp4', { method: 'HEAD', headers: { range: 'bytes=10-19' } });
    expect(head.status).toBe(206);
    expect(head.headers.get('content-length')).toBe('10');
    expect(head.headers.get('content-range')).toBe(`bytes 10-19/${SIZE}`);
    const unsatisfiable = await app.request('/media/big-1.mp4', { headers: { range: `bytes=${SIZE}-` } });
    expect(unsatisfiable.status).toBe(416);
    expect(seen).toEqual({ gets: 0, opens: 1, streamed: SIZE });
  });

  it('the store itself answers size and type without reading, and undefined for unknown or invalid keys', async () => {
    expect(await disk.stat('big-1.mp4')).toEqual({ size: SIZE, contentType: 'video/mp4' });
    expect(await disk.stat('missing-1.mp4')).toBeUndefined();
    expect(await disk.stat('../big-1.mp4')).toBeUndefined();
    expect(await disk.open('missing-1.mp4')).toBeUndefined();
    expect(await disk.open('../big-1.mp4', { start: 0, end: 1 })).toBeUndefined();
    const empty = 'empty-1.png';
    await disk.put(empty, Buffer.alloc(0), 'image/png');
    expect(await disk.stat(empty)).toEqual({ size: 0, contentType: 'image/png' });
    expect(await new Response(await disk.open(empty)).arrayBuffer()).toEqual(new ArrayBuffer(0));
  });

  it('closes the file when a client goes away mid-download, and when a stream is cancelled', async () => {
    const before = await openHandles(file());
    if (before === undefined) return; // no /proc: nothing to count
    const api = await listen(disk);
    try {
      const status = await abortAfterFirstChunk(`${api.origin}/media/big-1.mp4`, 'bytes=0-', async () => {
        expect(await openHandles(file())).toBe(before + 1);
      });
      expect(status).toBe(206);
      await until(async () => (await openHandles(file())) === before, 'the file handle to close');
    } finally {
      await api.close();
    }

    const body = await disk.open('big-1.mp4', { start: 0, end: SIZE - 1 });
    const reader = body!.getReader();
    expect((await reader.read()).value?.length).toBeGreaterThan(0);
    expect(await openHandles(file())).toBe(before + 1);
    await reader.cancel();
    expect(await openHandles(file())).toBe(before);
  });
});

const credentials = { bucket: 'aim-media', region: 'eu-west-1', accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret-key-do-not-log' };

interface RangedRequest {
  method: string;
  range: string | undefined;
  signed: boolean;
  sent: number;
  finished: boolean;
  closed: boolean;
}

/** An S3 stand-in that honours Range (206 + Content-Range) and records what it sent and whether its client left early. */
async function startRangedS3(objects: Map<string, { data: Buffer; contentType: string }>) {
  const requests: RangedRequest[] = [];
  const server = http.createServer((req, res) => {
    const seen: RangedRequest = {
      method: req.method ?? '',
      range: req.headers.range,
      signed: /^AWS4-HMAC-SHA256 Credential=AKIDTEST\//.test(req.headers.authorization ?? ''),
      sent: 0,
      finished: false,
      closed: false,
    };
    requests.push(seen);
    res.on('finish', () => {
      seen.finished = true;
    });
    res.on('close', () => {
      seen.closed = true;
    });
    const object = objects.get(decodeURIComponent((req.url ?? '').replace(/^\/aim-media\//, '')));
    if (!object) return res.writeHead(404, { 'content-type': 'application/xml' }).end('<Error><Code>NoSuchKey</Code></Error>');
    const type = { 'content-type': object.contentType };
    if (req.method === 'HEAD') return res.writeHead(200, { ...type, 'content-length': object.data.length }).end();
    const match = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    const [start, end] = match ? [Number(match[1]), Math.min(Number(match[2]), object.data.length - 1)] : [0, object.data.length - 1];
    res.writeHead(match ? 206 : 200, {
      ...type,
      'content-length': end - start + 1,
      ...(match ? { 'content-range': `bytes ${start}-${end}/${object.data.length}` } : {}),
    });
    // in 64 KiB writes that wait for the socket to drain, as S3 streams
    let at = start;
    const write = () => {
      while (at <= end && !res.destroyed) {
        const chunk = object.data.subarray(at, Math.min(at + 65_536, end + 1));
        at += chunk.length;
        seen.sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', write);
      }
      if (!res.destroyed) res.end();
    };
    write();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('GET /media/<key> streams from the S3 store', () => {
  const objects = new Map([['big-2.mp4', { data: big, contentType: 'video/mp4' }]]);
  let s3: Awaited<ReturnType<typeof startRangedS3>>;
  let store: MediaStore;

  beforeAll(async () => {
    s3 = await startRangedS3(objects);
    store = createS3MediaStore({ ...credentials, endpoint: s3.endpoint, forcePathStyle: true, apiPublicUrl: 'http://api.test' });
  });
  afterAll(async () => {
    await s3?.close();
  });

  it('asks S3 for the range with a signed Range header and passes its part through', async () => {
    const { media, seen } = watched(store);
    const start = 5_000_000;
    const end = 5_999_999;
    const response = await mediaRoutes({ media }).request('/media/big-2.mp4', { headers: { range: `bytes=${start}-${end}` } });
    expect(response.status).toBe(206);
    expect(response.headers.get('content-range')).toBe(`bytes ${start}-${end}/${SIZE}`);
    expect(response.headers.get('content-type')).toBe('video/mp4');
    expect((await bytesOf(response)).equals(big.subarray(start, end + 1))).toBe(true);
    expect(seen).toEqual({ gets: 0, opens: 1, streamed: 1_000_000 });
    expect(s3.requests.slice(-2)).toMatchObject([
      { method: 'HEAD', signed: true },
      { method: 'GET', range: `bytes=${start}-${end}`, signed: true, sent: 1_000_000, finished: true },
    ]);
  });

  it('answers size and type with HEAD, and undefined for a missing object', async () => {
    expect(await store.stat('big-2.mp4')).toEqual({ size: SIZE, contentType: 'video/mp4' });
    expect(s3.requests.at(-1)).toMatchObject({ method: 'HEAD', sent: 0 });
    expect(await store.stat('missing-2.mp4')).toBeUndefined();
    expect(await store.open('missing-2.mp4', { start: 0, end: 9 })).toBeUndefined();
    const before = s3.requests.length;
    expect(await store.stat('../etc/passwd')).toBeUndefined();
    expect(await store.open('../etc/passwd')).toBeUndefined();
    expect(s3.requests.length).toBe(before);
  });

  it('drops the S3 connection when the client goes away mid-download', async () => {
    const api = await listen(store);
    try {
      expect(await abortAfterFirstChunk(`${api.origin}/media/big-2.mp4`, 'bytes=0-')).toBe(206);
      const get = s3.requests.at(-1)!;
      expect(get).toMatchObject({ method: 'GET', range: `bytes=0-${SIZE - 1}` });
      await until(() => get.closed, 'the S3 response to be closed');
      expect(get.finished).toBe(false);
      expect(get.sent).toBeLessThan(SIZE);
    } finally {
      await api.close();
    }
  });

  it('cuts the range out itself when a server ignores Range, signed as the SigV4-checking fake requires', async () => {
    const fake = await startFakeS3(credentials);
    try {
      const media = createS3MediaStore({ ...credentials, endpoint: fake.endpoint, forcePathStyle: true, apiPublicUrl: 'http://api.test' });
      const data = big.subarray(0, 300_000);
      await media.put('plain-2.mp4', data, 'video/mp4');
      const response = await mediaRoutes({ media }).request('/media/plain-2.mp4', { headers: { range: 'bytes=100000-199999' } });
      expect(response.status).toBe(206);
      expect((await bytesOf(response)).equals(data.subarray(100_000, 200_000))).toBe(true);
      expect(fake.requests.slice(-2)).toMatchObject([
        { method: 'HEAD', status: 200 },
        { method: 'GET', status: 200 },
      ]);
    } finally {
      await fake.close();
    }
  });
});
