import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

  it('answers 500 naming the file when it is missing or not a JSON object, never a config nobody wrote', async () => {
    writeFileSync(file, '{ "remotes": ');
    const broken = await load();
    expect(broken.status).toBe(500);
    expect(broken.body.error).toMatch(/^RUNTIME_CONFIG_FILE .*runtime-config\.json cannot be used: /);
    writeFileSync(file, '[1, 2]');
    expect((await load()).body.error).toMatch(/not a JSON object/);
    rmSync(file);
    expect((await load()).status).toBe(500);
    writeFileSync(file, '{}');
    expect((await load()).body).toEqual(generated);
  });
});
