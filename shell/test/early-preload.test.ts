import vm from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { earlyPreloadScript, REMOTE_ROUTES, remoteForPath, type EarlyState } from '../src/mf/early-preload.ts';
import { PREVIEW_STORAGE_KEY } from '../src/mf/preview.ts';
import { RemoteRefusedError, remoteVerdict } from '../src/mf/remote-check.ts';
import { SHARED_KIT_CONTRACT } from '@aim/shared-kit/contract';

vi.mock('@module-federation/enhanced/runtime', () => ({ loadRemote: vi.fn(), preloadRemote: vi.fn(), registerPlugins: vi.fn(), registerRemotes: vi.fn() }));
const { earlyManifestPlugin } = await import('../src/mf/federation.ts');

const REMOTES = Object.fromEntries(REMOTE_ROUTES.map((r, i) => [r.remote, `http://localhost:${3201 + i}/mf-manifest.json`]));
const MANIFEST = {
  metaData: { publicPath: 'auto', remoteEntry: { name: 'static/js/mfe_tools.abc.js', path: '' } },
  exposes: [
    { name: 'App', assets: { js: { sync: ['static/js/async/e.1.js', 'static/js/async/__federation_expose_App.2.js'], async: ['static/js/async/lib.3.js'] } } },
  ],
};

/** Runs the inline script as the browser would, with a fake network, DOM and session storage. */
async function runScript(url: string, opts: { stored?: Record<string, string>; manifestStatus?: number; configMeta?: string } = {}) {
  const page = new URL(url);
  const fetched: string[] = [];
  const hints: string[] = [];
  const respond = (body: unknown, status = 200) =>
    Promise.resolve({ ok: status < 400, status, json: async () => body, text: async () => JSON.stringify(body) });
  const window: Record<string, unknown> = {};
  const context = {
    window,
    location: page,
    URL,
    URLSearchParams,
    JSON,
    sessionStorage: { getItem: (k: string) => (k === PREVIEW_STORAGE_KEY && opts.stored ? JSON.stringify(opts.stored) : null) },
    document: {
      createElement: () => ({}) as Record<string, string>,
      querySelector: (selector: string) =>
        selector === 'meta[name=aim-runtime-config]' && opts.configMeta ? { getAttribute: (a: string) => (a === 'content' ? opts.configMeta : null) } : null,
      head: { appendChild: (link: { rel: string; as: string; href: string }) => hints.push(`${link.rel}:${link.as}:${link.href}`) },
    },
    fetch: (u: string) => {
      fetched.push(u);
      return u === (opts.configMeta ?? '/runtime-config.json') ? respond({ remotes: REMOTES }) : respond(MANIFEST, opts.manifestStatus ?? 200);
    },
  };
  vm.runInNewContext(earlyPreloadScript(), context);
  await new Promise((r) => setTimeout(r, 10));
  return { fetched, hints, early: window.__AIM_EARLY__ as EarlyState, config: window.__AIM_RUNTIME_CONFIG__ as Promise<unknown> };
}

describe('the inline early-preload script', () => {
  it('reads the runtime config from the URL a <meta name="aim-runtime-config"> in index.html names', async () => {
    const configMeta = 'https://config.example.com/aim/runtime-config.json';
    const { fetched, config } = await runScript('http://localhost:3000/dashboard/tools/midjourney', { configMeta });
    expect(await config).toEqual({ remotes: REMOTES });
    expect(fetched).toEqual([configMeta, REMOTES.mfe_tools]);
  });

  it('fetches the runtime config, then a deep link’s manifest, and hints its entry and route chunks', async () => {
    const { fetched, hints, early, config } = await runScript('http://localhost:3000/dashboard/tools/midjourney');
    expect(await config).toEqual({ remotes: REMOTES });
    expect(fetched).toEqual(['/runtime-config.json', REMOTES.mfe_tools]);
    expect(Object.keys(early.manifests)).toEqual([REMOTES.mfe_tools]);
    expect(hints).toEqual([
      'preload:script:http://localhost:3201/static/js/mfe_tools.abc.js',
      'preload:script:http://localhost:3201/static/js/async/e.1.js',
      'preload:script:http://localhost:3201/static/js/async/__federation_expose_App.2.js',
    ]);
  });

  it.each([
    '/dashboard',
    '/dashboard/',
    '/dashboard/tools/faceswap',
    '/dashboard/assets/videos',
    '/dashboard/billing/invoices',
    '/payment-success',
    '/dashboard/api-keys',
    '/dashboard/task-logs',
    '/welcome',
    '/auth',
    '/dashboard/unknown',
  ])('matches %s to the same remote as remoteForPath', async (path) => {
    const { fetched } = await runScript(`http://localhost:3000${path}`);
    const owner = remoteForPath(path);
    expect(fetched).toEqual(owner ? ['/runtime-config.json', REMOTES[owner]] : ['/runtime-config.json']);
  });

  it('leaves a remote alone while a preview override (URL or this tab’s storage) replaces it', async () => {
    const viaUrl = await runScript('http://localhost:3000/dashboard/tools/midjourney?mf-preview=mfe_tools=http://localhost:4001/mf-manifest.json');
    expect(viaUrl.fetched).toEqual(['/runtime-config.json']);
    const viaStorage = await runScript('http://localhost:3000/dashboard/tools/midjourney', { stored: { mfe_tools: 'http://localhost:4001/mf-manifest.json' } });
    expect(viaStorage.fetched).toEqual(['/runtime-config.json']);
    const otherRemote = await runScript('http://localhost:3000/dashboard/tools/midjourney?mf-preview=mfe_assets=http://localhost:4002/mf-manifest.json');
    expect(otherRemote.fetched).toEqual(['/runtime-config.json', REMOTES.mfe_tools]);
  });

  it('hints nothing when the manifest fails (the runtime then fetches it itself and falls back)', async () => {
    const { hints, early } = await runScript('http://localhost:3000/dashboard/tools/midjourney', { manifestStatus: 404 });
    expect(hints).toEqual([]);
    await expect(early.manifests[REMOTES.mfe_tools!]).rejects.toThrow('HTTP 404');
  });
});

describe('earlyManifestPlugin', () => {
  afterEach(() => vi.unstubAllGlobals());
  type Hook = (url: string, init: RequestInit, remote?: { name: string }) => Promise<Response>;
  const fetchHook = (early: EarlyState | undefined) => earlyManifestPlugin(early).fetch as Hook;
  const tools = { name: 'mfe_tools' };
  const manifest = (over: Record<string, unknown> = {}) =>
    JSON.stringify({
      name: 'mfe_tools',
      metaData: { name: 'mfe_tools', aim: { version: '1.0.0', contract: SHARED_KIT_CONTRACT } },
      exposes: [{ name: 'App', path: './App' }],
      ...over,
    });
  const network = (body: string, status = 200) => {
    const fetchMock = vi.fn(async () => new Response(body, { status }));
    vi.stubGlobal('fetch', fetchMock);
    return fetchMock;
  };

  it('hands the runtime the early manifest once; later loads (Retry) go to the network', async () => {
    const early: EarlyState = { manifests: { 'http://r/mf-manifest.json': Promise.resolve(manifest({ id: 1 })) } };
    const fetchMock = network(manifest({ id: 2 }));
    const hook = fetchHook(early);
    expect(await (await hook('http://r/mf-manifest.json', {}, tools)).json()).toMatchObject({ id: 1 });
    expect(fetchMock).not.toHaveBeenCalled();
    expect(await (await hook('http://r/mf-manifest.json', {}, tools)).json()).toMatchObject({ id: 2 });
    expect(await (await fetchHook(undefined)('http://other/mf-manifest.json', {}, tools)).json()).toMatchObject({ id: 2 });
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(remoteVerdict('mfe_tools')).toMatchObject({ url: 'http://other/mf-manifest.json', version: '1.0.0' });
    expect(remoteVerdict('mfe_tools')?.refused).toBeUndefined();
  });

  it('fetches afresh when the early fetch failed, so the runtime sees the real answer (e.g. 404)', async () => {
    const fetchMock = network('not found', 404);
    const failed = Promise.reject(new Error('HTTP 404'));
    failed.catch(() => {});
    await expect(fetchHook({ manifests: { 'http://r/mf-manifest.json': failed } })('http://r/mf-manifest.json', {}, tools)).rejects.toThrow('HTTP 404');
    expect(fetchMock).toHaveBeenCalledWith('http://r/mf-manifest.json');
  });

  it('refuses an incompatible manifest before the runtime sees it, and records why', async () => {
    const early: EarlyState = {
      manifests: { 'http://r/mf-manifest.json': Promise.resolve(manifest({ metaData: { name: 'mfe_tools', aim: { contract: '99.0.0' } } })) },
    };
    const err = await fetchHook(early)('http://r/mf-manifest.json', {}, tools).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RemoteRefusedError);
    expect(remoteVerdict('mfe_tools')?.refused).toMatch(/shared-kit contract 99\.0\.0.*major versions differ/);
  });
});
