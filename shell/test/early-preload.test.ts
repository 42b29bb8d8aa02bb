import vm from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { earlyPreloadScript, REMOTE_ROUTES, remoteForPath, type EarlyState } from '../src/mf/early-preload.ts';
import { PREVIEW_STORAGE_KEY } from '../src/mf/preview.ts';

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
async function runScript(url: string, opts: { stored?: Record<string, string>; manifestStatus?: number } = {}) {
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
      head: { appendChild: (link: { rel: string; as: string; href: string }) => hints.push(`${link.rel}:${link.as}:${link.href}`) },
    },
    fetch: (u: string) => {
      fetched.push(u);
      return u === '/runtime-config.json' ? respond({ remotes: REMOTES }) : respond(MANIFEST, opts.manifestStatus ?? 200);
    },
  };
  vm.runInNewContext(earlyPreloadScript(), context);
  await new Promise((r) => setTimeout(r, 10));
  return { fetched, hints, early: window.__AIM_EARLY__ as EarlyState, config: window.__AIM_RUNTIME_CONFIG__ as Promise<unknown> };
}

describe('the inline early-preload script', () => {
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
  const fetchHook = (early: EarlyState | undefined) => earlyManifestPlugin(early).fetch as (url: string, init: RequestInit) => Promise<Response> | undefined;

  it('hands the runtime the early manifest once; later loads (Retry) go to the network', async () => {
    const early: EarlyState = { manifests: { 'http://r/mf-manifest.json': Promise.resolve('{"id":1}') } };
    const hook = fetchHook(early);
    const res = await hook('http://r/mf-manifest.json', {});
    expect(await res?.json()).toEqual({ id: 1 });
    expect(hook('http://r/mf-manifest.json', {})).toBeUndefined();
    expect(hook('http://other/mf-manifest.json', {})).toBeUndefined();
    expect(fetchHook(undefined)('http://r/mf-manifest.json', {})).toBeUndefined();
  });

  it('fetches afresh when the early fetch failed, so the runtime sees the real answer (e.g. 404)', async () => {
    const real = new Response('not found', { status: 404 });
    const fetchMock = vi.fn(async () => real);
    vi.stubGlobal('fetch', fetchMock);
    const failed = Promise.reject(new Error('HTTP 404'));
    failed.catch(() => {});
    const res = await fetchHook({ manifests: { 'http://r/mf-manifest.json': failed } })('http://r/mf-manifest.json', {});
    expect(res).toBe(real);
    expect(fetchMock).toHaveBeenCalledWith('http://r/mf-manifest.json');
  });
});
