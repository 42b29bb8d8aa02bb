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

  it('says a remote is not built yet, then serves it once it is, without a restart', async () => {
    const before = await fetch(url('mfe-assets', '/mf-manifest.json'));
    expect(before.status).toBe(503);
    expect(await before.text()).toMatch(/mfe-assets is not built yet/);
    build(path.join(root, 'mfe-assets'), { 'mf-manifest.json': '{"assets":true}' });
    expect(await (await fetch(url('mfe-assets', '/mf-manifest.json'))).json()).toEqual({ assets: true });
  });
});
