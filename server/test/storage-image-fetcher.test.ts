/**
 * The guarded image fetcher and the image URL rules: our own media from the store, other
 * URLs over HTTP from a local server, with the SSRF guard on every hop, size and time
 * limits, and the type read from the bytes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiskMediaStore } from '../src/storage/disk-media-store.ts';
import { createImageFetcher, type ImageFetcherOptions, ImageReadError } from '../src/storage/image-fetcher.ts';
import { checkImageUrl } from '../src/storage/image-url.ts';
import type { MediaStore } from '../src/storage/media-store.ts';
import type { ResolveHost } from '../src/webhooks/target-guard.ts';

const picture = (format: 'png' | 'jpeg' | 'gif' | 'webp') =>
  sharp({ create: { width: 16, height: 12, channels: 3, background: { r: 200, g: 90, b: 30 } } })
    .toFormat(format)
    .toBuffer();

describe('image URL rules', () => {
  it.each([
    ['https://images.example.com/a.png', false, undefined],
    ['http://images.example.com/a.png', false, 'Must be an https:// URL'],
    ['http://images.example.com/a.png', true, undefined],
    ['http://127.0.0.1:9/a.png', true, undefined],
    ['ftp://images.example.com/a.png', true, 'Must be a valid http:// or https:// URL'],
    ['file:///etc/passwd', false, 'Must be a valid http:// or https:// URL'],
    ['javascript:alert(1)', false, 'Must be a valid http:// or https:// URL'],
    ['not a url', false, 'Must be a valid http:// or https:// URL'],
    ['https://images.example.com/a b.png', false, 'Must be a valid http:// or https:// URL'],
    ['https://images.example.com/\ta.png', false, 'Must be a valid http:// or https:// URL'],
    ['https://127.0.0.1/a.png', false, 'Must be a public address (127.0.0.1 is a loopback address)'],
    // the URL parser normalises other spellings of an address first
    ['https://2130706433/a.png', false, 'Must be a public address (127.0.0.1 is a loopback address)'],
    ['https://0x7f.1/a.png', false, 'Must be a public address (127.0.0.1 is a loopback address)'],
    ['https://10.1.2.3/a.png', false, 'Must be a public address (10.1.2.3 is a private address)'],
    ['https://169.254.169.254/latest/meta-data', false, 'Must be a public address (169.254.169.254 is a link-local address)'],
    ['https://[::1]/a.png', false, 'Must be a public address (::1 is a loopback address)'],
    ['https://[::ffff:192.168.0.1]/a.png', false, 'Must be a public address (::ffff:c0a8:1 is a private address)'],
    ['https://localhost/a.png', false, 'Must be a public address (localhost is this machine)'],
    ['https://api.localhost/a.png', false, 'Must be a public address (api.localhost is this machine)'],
    [`https://example.com/${'a'.repeat(2100)}`, false, 'Must be at most 2048 characters'],
  ])('%s (embedded %s) → %s', (url, embedded, problem) => {
    const checked = checkImageUrl(url, { embedded });
    expect('problem' in checked ? checked.problem : undefined).toBe(problem);
  });

  it('lets trusted hosts be read over http on a private address', () => {
    expect('url' in checkImageUrl('http://10.0.0.5/a.png', { embedded: false, trustedHosts: ['10.0.0.5'] })).toBe(true);
    expect('url' in checkImageUrl('http://10.0.0.6/a.png', { embedded: false, trustedHosts: ['10.0.0.5'] })).toBe(false);
  });
});

describe('guarded image fetcher', () => {
  let server: Server;
  let origin: string;
  let mediaDir: string;
  let media: MediaStore;
  const hits: string[] = [];
  const images: Record<string, Buffer> = {};

  beforeAll(async () => {
    for (const format of ['png', 'jpeg', 'gif', 'webp'] as const) images[format] = await picture(format);
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://local');
      hits.push(url.pathname + url.search);
      const to = url.searchParams.get('to');
      switch (url.pathname) {
        case '/png':
        case '/jpeg':
        case '/gif':
        case '/webp':
          // a lying content type: the bytes decide
          res.writeHead(200, { 'content-type': 'text/plain' }).end(images[url.pathname.slice(1)]);
          return;
        case '/html':
          res.writeHead(200, { 'content-type': 'image/png' }).end('<!doctype html><title>not an image</title>');
          return;
        case '/fake-png':
          res.writeHead(200).end(Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 7)]));
          return;
        case '/declared-huge':
          res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(11 * 1024 * 1024) });
          res.write(images.png);
          return; // never finishes: the fetcher must not wait for it
        case '/streamed-huge': {
          // chunked, no length: counted as it arrives
          res.writeHead(200, { 'content-type': 'image/png' });
          res.write(images.png);
          const chunk = Buffer.alloc(64 * 1024, 1);
          let sent = 0;
          const pump = () => {
            while (sent < 2 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
            if (sent < 2 * 1024 * 1024) res.once('drain', pump);
            else res.end();
          };
          pump();
          return;
        }
        case '/truncated':
          res.writeHead(200, { 'content-length': '5000' });
          res.write(images.png.subarray(0, 20));
          setTimeout(() => res.destroy(), 20);
          return;
        case '/slow':
          setTimeout(() => res.writeHead(200).end(images.png), 2000);
          return;
        case '/missing':
          res.writeHead(404).end('nope');
          return;
        case '/busy':
          res.writeHead(503).end('later');
          return;
        case '/redirect':
          res.writeHead(302, { location: to ?? '' }).end();
          return;
        case '/loop':
          res.writeHead(301, { location: '/loop' }).end();
          return;
        default:
          res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    mediaDir = await mkdtemp(path.join(os.tmpdir(), 'aim-fetcher-'));
    media = createDiskMediaStore({ dir: mediaDir, publicUrl: 'http://localhost:8080' });
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await rm(mediaDir, { recursive: true, force: true });
  });

  const fetcher = (over: Partial<ImageFetcherOptions> = {}) => createImageFetcher({ media, embedded: true, ...over });
  const failure = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ImageReadError);
    const { message, retryable } = error as ImageReadError;
    return { message, retryable };
  };

  it.each([
    ['png', 'image/png'],
    ['jpeg', 'image/jpeg'],
    ['gif', 'image/gif'],
    ['webp', 'image/webp'],
  ])('reads a %s and types it from the bytes, not the header', async (format, contentType) => {
    const image = await fetcher().read(`${origin}/${format}`);
    expect(image).toMatchObject({ url: `${origin}/${format}`, contentType, width: 16, height: 12 });
    expect(image.data.equals(images[format])).toBe(true);
  });

  it('reads our own media URLs from the store, without any HTTP request', async () => {
    const url = await media.put('upload-own.png', images.png, 'image/png');
    const before = hits.length;
    const image = await fetcher({ embedded: false }).read(url);
    expect(image).toMatchObject({ url, contentType: 'image/png', width: 16, height: 12 });
    expect(hits.length).toBe(before);
    expect(await failure(fetcher().read('http://localhost:8080/media/upload-gone.png'))).toEqual({
      message: 'it no longer exists on this server',
      retryable: false,
    });
  });

  it('refuses what is not a picture we take', async () => {
    expect(await failure(fetcher().read(`${origin}/html`))).toEqual({ message: 'it is not a jpeg, png, gif or webp image', retryable: false });
    expect(await failure(fetcher().read(`${origin}/fake-png`))).toEqual({ message: 'it could not be decoded as an image', retryable: false });
    expect((await failure(fetcher({ maxPixels: 100 }).read(`${origin}/png`))).message).toMatch(/^it has more than .* megapixels$/);
  });

  it('stops at the size limit, whether the length is declared or not', async () => {
    const started = Date.now();
    expect(await failure(fetcher().read(`${origin}/declared-huge`))).toEqual({ message: 'it is larger than 10 MB', retryable: false });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await failure(fetcher({ maxBytes: 256 * 1024 }).read(`${origin}/streamed-huge`))).toEqual({
      message: 'it is larger than 262144 bytes',
      retryable: false,
    });
    const own = await media.put('upload-big.png', Buffer.concat([images.png, Buffer.alloc(2048)]), 'image/png');
    expect((await failure(fetcher({ maxBytes: 1024 }).read(own))).message).toBe('it is larger than 1024 bytes');
  });

  it('gives up after the time limit, retryably', async () => {
    const started = Date.now();
    expect(await failure(fetcher({ timeoutMs: 200 }).read(`${origin}/slow`))).toEqual({
      message: 'the server did not send it within 0.2 s',
      retryable: true,
    });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('tells HTTP errors, cut connections and unreachable servers apart', async () => {
    expect(await failure(fetcher().read(`${origin}/missing`))).toEqual({ message: 'the server answered HTTP 404', retryable: false });
    expect(await failure(fetcher().read(`${origin}/busy`))).toEqual({ message: 'the server answered HTTP 503', retryable: true });
    expect(await failure(fetcher().read(`${origin}/truncated`))).toMatchObject({ retryable: true });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await failure(fetcher().read(`http://127.0.0.1:${port}/a.png`))).toEqual({
      message: 'the server could not be reached (ECONNREFUSED)',
      retryable: true,
    });
  });

  it('stops when the caller cancels', async () => {
    const controller = new AbortController();
    const reading = fetcher().read(`${origin}/slow`, controller.signal);
    setTimeout(() => controller.abort(new Error('worker stopping')), 50);
    expect(await failure(reading)).toEqual({ message: 'reading it was cancelled', retryable: true });
  });

  it('follows redirects by hand, relative ones too, up to the limit', async () => {
    const image = await fetcher().read(`${origin}/redirect?to=${encodeURIComponent('/png')}`);
    expect(image).toMatchObject({ url: `${origin}/redirect?to=%2Fpng`, contentType: 'image/png' });
    expect(await failure(fetcher().read(`${origin}/loop`))).toEqual({ message: 'it redirects more than 3 times', retryable: false });
    expect(await failure(fetcher().read(`${origin}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`))).toEqual({
      message: 'it redirects to a URL that is not allowed (must be a valid http:// or https:// URL)',
      retryable: false,
    });
  });

  describe('outside embedded mode', () => {
    // 127.0.0.1 stands in for a public image host: trusted, so the first hop reaches the local server
    const strict = (resolveHost?: ResolveHost) => fetcher({ embedded: false, trustedHosts: ['127.0.0.1'], resolveHost });

    it('refuses http and private addresses before connecting', async () => {
      const plain = createImageFetcher({ media, embedded: false });
      expect(await failure(plain.read(`${origin}/png`))).toEqual({ message: 'its URL is not allowed (must be an https:// URL)', retryable: false });
      expect(await failure(plain.read('https://10.0.0.1/a.png'))).toEqual({
        message: 'its URL is not allowed (must be a public address (10.0.0.1 is a private address))',
        retryable: false,
      });
    });

    it('checks the address a name resolves to at connect time (DNS rebinding cannot slip through)', async () => {
      // a public-looking name whose DNS answer is this machine: refused by the socket's lookup
      const rebinding = createImageFetcher({ media, embedded: false, resolveHost: async () => [{ address: '127.0.0.1', family: 4 }] });
      const before = hits.length;
      expect(await failure(rebinding.read('https://images.example.test/a.png'))).toEqual({
        message: 'it is on a private network address (images.example.test resolves to 127.0.0.1, a loopback address)',
        retryable: false,
      });
      expect(hits.length).toBe(before);
    });

    it('refuses a redirect to a private address, whether written as one or resolving to one', async () => {
      const literal = `${origin}/redirect?to=${encodeURIComponent('https://169.254.169.254/latest/meta-data')}`;
      expect(await failure(strict().read(literal))).toEqual({
        message: 'it redirects to a URL that is not allowed (must be a public address (169.254.169.254 is a link-local address))',
        retryable: false,
      });
      const named = `${origin}/redirect?to=${encodeURIComponent('https://intranet.example.test/a.png')}`;
      const dns: ResolveHost = async () => [{ address: '192.168.1.20', family: 4 }];
      expect(await failure(strict(dns).read(named))).toEqual({
        message: 'it is on a private network address (intranet.example.test resolves to 192.168.1.20, a private address)',
        retryable: false,
      });
      const downgrade = `${origin}/redirect?to=${encodeURIComponent('http://images.example.com/a.png')}`;
      expect(await failure(strict().read(downgrade))).toEqual({
        message: 'it redirects to a URL that is not allowed (must be an https:// URL)',
        retryable: false,
      });
    });

    it('names a host that does not resolve', async () => {
      const nowhere = createImageFetcher({ media, embedded: false, resolveHost: async () => [] });
      expect(await failure(nowhere.read('https://nowhere.example.test/a.png'))).toEqual({
        message: 'the host name nowhere.example.test could not be found',
        retryable: false,
      });
    });
  });
});
