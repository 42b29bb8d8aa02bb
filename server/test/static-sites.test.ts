import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningSites, startStaticSites } from '../src/static-sites.ts';

// The embedded launcher's static hosting: the shell and the remotes on their own origins, as
// separately deployed sites would be, including a remote rebuilt while the platform runs.
describe('static sites of the embedded platform', () => {
  let root: string;
  let sites: RunningSites;
  const url = (name: string, p: string) => `http://127.0.0.1:${sites.ports[name]}${p}`;
  const build = (dir: string, files: Record<string, string>) => {
    rmSync(dir, { recursive: true, force: true });
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      writeFileSync(path.join(dir, name), text);
    }
  };

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'aim-sites-'));
    build(path.join(root, 'shell'), { 'index.html': '<p>shell</p>', 'static/js/index.0123abcd.js': 'shell()' });
    build(path.join(root, 'mfe-tools'), { 'mf-manifest.json': '{"v":1}', 'static/js/remote.89abcdef.js': 'v1()' });
    sites = await startStaticSites({
      host: '127.0.0.1',
      runtimeConfig: () => ({ remotes: { mfe_tools: 'somewhere' } }),
      sites: [
        { name: 'shell', port: 0, dir: path.join(root, 'shell') },
        { name: 'mfe-tools', port: 0, dir: path.join(root, 'mfe-tools') },
        { name: 'mfe-assets', port: 0, dir: path.join(root, 'mfe-assets') },
      ],
    });
  });
  afterAll(async () => {
    await sites?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('answers the runtime config on the shell origin, uncached', async () => {
    const res = await fetch(url('shell', '/runtime-config.json'));
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(await res.json()).toEqual({ remotes: { mfe_tools: 'somewhere' } });
  });

  it('falls back to index.html for deep links and caches hashed chunks for good', async () => {
    expect(await (await fetch(url('shell', '/dashboard/tools/midjourney'))).text()).toBe('<p>shell</p>');
    const chunk = await fetch(url('shell', '/static/js/index.0123abcd.js'));
    expect(chunk.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('serves remotes cross-origin, with the manifest never cached', async () => {
    const res = await fetch(url('mfe-tools', '/mf-manifest.json'));
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const preflight = await fetch(url('mfe-tools', '/mf-manifest.json'), { method: 'OPTIONS' });
    expect(preflight.status).toBe(204);
  });

  it('serves a remote rebuilt while running: the new chunk at once, the old one gone', async () => {
    expect(await (await fetch(url('mfe-tools', '/static/js/remote.89abcdef.js'))).text()).toBe('v1()');
    build(path.join(root, 'mfe-tools'), { 'mf-manifest.json': '{"v":2}', 'static/js/remote.fedcba98.js': 'v2()' });
    expect(await (await fetch(url('mfe-tools', '/mf-manifest.json'))).json()).toEqual({ v: 2 });
    expect(await (await fetch(url('mfe-tools', '/static/js/remote.fedcba98.js'))).text()).toBe('v2()');
    expect((await fetch(url('mfe-tools', '/static/js/remote.89abcdef.js'))).status).toBe(404);
  });

  it('revalidates everything that is not content-hashed (the manifest, mf-stats.json, icons)', async () => {
    build(path.join(root, 'mfe-tools'), {
      'mf-manifest.json': '{"v":3}',
      'mf-stats.json': '{}',
      'favicon.svg': '<svg/>',
      'static/js/remote.0a1b2c3d.js': 'v3()',
    });
    for (const file of ['/mf-manifest.json', '/mf-stats.json', '/favicon.svg']) {
      expect((await fetch(url('mfe-tools', file))).headers.get('cache-control'), file).toBe('no-cache');
    }
    expect((await fetch(url('mfe-tools', '/static/js/remote.0a1b2c3d.js'))).headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('says a remote is not built yet, then serves it once it is, without a restart', async () => {
    const before = await fetch(url('mfe-assets', '/mf-manifest.json'));
    expect(before.status).toBe(503);
    expect(await before.text()).toMatch(/mfe-assets is not built yet/);
    build(path.join(root, 'mfe-assets'), { 'mf-manifest.json': '{"assets":true}' });
    expect(await (await fetch(url('mfe-assets', '/mf-manifest.json'))).json()).toEqual({ assets: true });
  });
});

// The build leaves x.br and x.gz beside every text asset (shared-kit/rsbuild-precompress.ts):
// they go out with Content-Encoding, the original's type and cache rules, and Vary: Accept-Encoding.
describe('precompressed assets of the embedded platform', () => {
  let root: string;
  let sites: RunningSites;
  const chunk = `export const big = ${JSON.stringify('chunk '.repeat(2000))};\n`;
  const html = `<!doctype html><title>tools</title>${'<p>standalone</p>'.repeat(100)}`;
  /** A request with exactly these headers (fetch would add and undo its own Accept-Encoding). */
  const raw = (p: string, headers: Record<string, string> = {}, method = 'GET') =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: sites.ports['mfe-tools'], path: p, method, headers }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (b: Buffer) => parts.push(b));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
      });
      req.on('error', reject);
      req.end();
    });

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'aim-precompressed-'));
    const dir = path.join(root, 'mfe-tools');
    mkdirSync(path.join(dir, 'static/js'), { recursive: true });
    const js = path.join(dir, 'static/js/remote.0123abcd.js');
    for (const [file, text] of [
      [js, chunk],
      [path.join(dir, 'index.html'), html],
    ]) {
      writeFileSync(file, text);
      writeFileSync(`${file}.br`, brotliCompressSync(text));
      writeFileSync(`${file}.gz`, gzipSync(text, { level: 9 }));
    }
    sites = await startStaticSites({ host: '127.0.0.1', runtimeConfig: () => ({}), sites: [{ name: 'mfe-tools', port: 0, dir }] });
  });
  afterAll(async () => {
    await sites?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it.each([
    ['br', 'br', brotliDecompressSync],
    ['gzip', 'gzip', gunzipSync],
    ['gzip, deflate, br, zstd', 'br', brotliDecompressSync],
    ['br;q=0, gzip', 'gzip', gunzipSync],
  ])('serves the precompressed chunk to Accept-Encoding %s as %s, with the chunk’s type and cache rules', async (accept, encoding, decode) => {
    const res = await raw('/static/js/remote.0123abcd.js', { 'accept-encoding': accept });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe(encoding);
    expect(res.headers.vary).toBe('Accept-Encoding');
    expect(res.headers['content-type']).toMatch(/^text\/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(Number(res.headers['content-length'])).toBe(res.body.length);
    expect(res.body.length).toBeLessThan(chunk.length / 10);
    expect(decode(res.body).toString()).toBe(chunk);
  });

  it('serves the identity file without Accept-Encoding, still saying it varies', async () => {
    for (const headers of [{}, { 'accept-encoding': 'identity' }] as Record<string, string>[]) {
      const res = await raw('/static/js/remote.0123abcd.js', headers);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers.vary).toBe('Accept-Encoding');
      expect(res.body.toString()).toBe(chunk);
    }
  });

  it('compresses the SPA fallback too, as HTML, never cached', async () => {
    const res = await raw('/dashboard/tools/midjourney', { 'accept-encoding': 'br' });
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['content-type']).toBe('text/html;charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(brotliDecompressSync(res.body).toString()).toBe(html);
  });

  it('answers a range of the identity file, HEAD without a body, and 304 with Vary', async () => {
    const range = await raw('/static/js/remote.0123abcd.js', { 'accept-encoding': 'br, gzip', range: 'bytes=0-5' });
    expect(range.status).toBe(206);
    expect(range.headers['content-encoding']).toBeUndefined();
    expect(range.headers['content-range']).toBe(`bytes 0-5/${chunk.length}`);
    expect(range.body.toString()).toBe(chunk.slice(0, 6));

    const head = await raw('/static/js/remote.0123abcd.js', { 'accept-encoding': 'br' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-encoding']).toBe('br');
    expect(head.body.length).toBe(0);

    const first = await raw('/static/js/remote.0123abcd.js', { 'accept-encoding': 'gzip' });
    const again = await raw('/static/js/remote.0123abcd.js', { 'accept-encoding': 'gzip', 'if-none-match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.headers.vary).toBe('Accept-Encoding');
    // each encoding is its own representation: its own validator
    expect((await raw('/static/js/remote.0123abcd.js')).headers.etag).not.toBe(first.headers.etag);
  });
});

// Independent deploys: operators point a remote at another manifest (a new version, or back: a
// rollback) by editing RUNTIME_CONFIG_FILE; the next load of the shell gets it, no restart.
describe('the runtime config from RUNTIME_CONFIG_FILE', () => {
  let root: string;
  let sites: RunningSites;
  let file: string;
  const generated = {
    supabaseUrl: 'http://sb',
    remotes: { mfe_tools: 'http://localhost:3001/mf-manifest.json', mfe_assets: 'http://localhost:3002/mf-manifest.json' },
  };
  const load = async () => {
    const res = await fetch(`http://127.0.0.1:${sites.ports.shell}/runtime-config.json`);
    return { status: res.status, cache: res.headers.get('cache-control'), body: (await res.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'aim-config-'));
    file = path.join(root, 'runtime-config.json');
    sites = await startStaticSites({
      host: '127.0.0.1',
      runtimeConfig: () => generated,
      runtimeConfigFile: file,
      sites: [{ name: 'shell', port: 0, dir: path.join(root, 'shell') }],
    });
  });
  afterAll(async () => {
    await sites?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('lays the file over the generated config and picks up each change on the next load', async () => {
    const v2 = 'https://cdn.example.com/mfe-tools/0.2.0/mf-manifest.json';
    const v1 = 'https://cdn.example.com/mfe-tools/0.1.0/mf-manifest.json';
    writeFileSync(file, JSON.stringify({ remotes: { mfe_tools: v1 } }));
    const first = await load();
    expect(first.cache).toBe('no-cache');
    expect(first.body).toEqual({ supabaseUrl: 'http://sb', remotes: { mfe_tools: v1, mfe_assets: generated.remotes.mfe_assets } });

    // ship 0.2.0: point the config at the new manifest
    writeFileSync(file, JSON.stringify({ remotes: { mfe_tools: v2 }, previewAllowList: ['https://*.preview.example.com'] }));
    expect((await load()).body).toEqual({
      supabaseUrl: 'http://sb',
      remotes: { mfe_tools: v2, mfe_assets: generated.remotes.mfe_assets },
      previewAllowList: ['https://*.preview.example.com'],
    });

    // roll back: point it back
    writeFileSync(file, JSON.stringify({ remotes: { mfe_tools: v1 } }));
    expect(((await load()).body.remotes as Record<string, string>).mfe_tools).toBe(v1);
  });

  it('keeps serving the last good content when the file breaks, and the generated config when it is removed', async () => {
    const v1 = 'https://cdn.example.com/mfe-tools/0.1.0/mf-manifest.json';
    writeFileSync(file, JSON.stringify({ remotes: { mfe_tools: v1 } }));
    expect((await load()).status).toBe(200);
    const errors: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((line: string) => void errors.push(line));
    try {
      // a stray comma: the dashboard keeps the last content that parsed, the log says why
      writeFileSync(file, '{ "remotes": { "mfe_tools": "x", } }');
      const broken = await load();
      expect(broken.status).toBe(200);
      expect((broken.body.remotes as Record<string, string>).mfe_tools).toBe(v1);
      expect(errors.join('\n')).toMatch(/RUNTIME_CONFIG_FILE .*runtime-config\.json cannot be used: .*serving its last good content/);
      writeFileSync(file, '[1, 2]');
      expect(((await load()).body.remotes as Record<string, string>).mfe_tools).toBe(v1);
      expect(errors.join('\n')).toMatch(/not a JSON object/);
    } finally {
      spy.mockRestore();
    }
    rmSync(file);
    expect((await load()).body).toEqual(generated);
    writeFileSync(file, '{}');
    expect((await load()).body).toEqual(generated);
  });
});
