import vm from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { earlyPreloadScript, REMOTE_ROUTES, remoteForPath, type EarlyState } from '../src/mf/early-preload.ts';
import { PREVIEW_STORAGE_KEY } from '../src/mf/preview.ts';
import { RemoteRefusedError, checkManifest, remoteVerdict } from '../src/mf/remote-check.ts';
import { SHARED_KIT_CONTRACT } from '@aim/shared-kit/contract';

vi.mock('@module-federation/enhanced/runtime', () => ({ loadRemote: vi.fn(), preloadRemote: vi.fn(), registerPlugins: vi.fn(), registerRemotes: vi.fn() }));
const { earlyManifestPlugin } = await import('../src/mf/federation.ts');

const REMOTES = Object.fromEntries(REMOTE_ROUTES.map((r, i) => [r.remote, `http://localhost:${3201 + i}/mf-manifest.json`]));
const MANIFEST = {
  name: 'mfe_tools',
  metaData: { name: 'mfe_tools', publicPath: 'auto', remoteEntry: { name: 'static/js/mfe_tools.abc.js', path: '' }, aim: { contract: SHARED_KIT_CONTRACT } },
  exposes: [
    {
      name: 'App',
      path: './App',
      assets: { js: { sync: ['static/js/async/e.1.js', 'static/js/async/__federation_expose_App.2.js'], async: ['static/js/async/lib.3.js'] } },
    },
  ],
};

/** Runs the inline script as the browser would, with a fake network, DOM and session storage. */
async function runScript(
  url: string,
  opts: { stored?: Record<string, string>; manifestStatus?: number; configMeta?: string; manifest?: unknown; shellContract?: string } = {},
) {
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
      return u === (opts.configMeta ?? '/runtime-config.json') ? respond({ remotes: REMOTES }) : respond(opts.manifest ?? MANIFEST, opts.manifestStatus ?? 200);
    },
  };
  vm.runInNewContext(earlyPreloadScript(opts.shellContract), context);
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

describe('the inline script checks the manifest before hinting any code', () => {
  const tools = 'http://localhost:3000/dashboard/tools/midjourney';
  const withMeta = (meta: Record<string, unknown>) => ({ ...MANIFEST, metaData: { ...MANIFEST.metaData, ...meta } });
  const cases: [string, unknown, string?][] = [
    ['a stamped, compatible manifest', MANIFEST],
    ['an unstamped manifest (plain rsbuild build)', withMeta({ aim: undefined })],
    ['an older minor of the same major', withMeta({ aim: { contract: '2.0.0' } }), '2.3.1'],
    ['another remote’s manifest', { ...MANIFEST, name: 'mfe_assets', metaData: { ...MANIFEST.metaData, name: 'mfe_assets' } }],
    ['a manifest without exposes', { ...MANIFEST, exposes: undefined }],
    ['a manifest missing the mounted expose', { ...MANIFEST, exposes: [{ ...MANIFEST.exposes[0], name: 'Other', path: './Other' }] }],
    ['another major contract', withMeta({ aim: { contract: '99.0.0' } })],
    ['a newer minor than the shell provides', withMeta({ aim: { contract: '2.1.0' } }), '2.0.5'],
    ['a contract that is not a version', withMeta({ aim: { contract: 'v2' } })],
    ['not a manifest at all', ['x']],
  ];

  it.each(cases)('%s: hints code exactly when remote-check.ts accepts it', async (_label, manifest, shellContract = SHARED_KIT_CONTRACT) => {
    const verdict = checkManifest('mfe_tools', REMOTES.mfe_tools!, manifest, shellContract);
    const { fetched, hints } = await runScript(tools, { manifest, shellContract });
    expect(fetched).toEqual(['/runtime-config.json', REMOTES.mfe_tools]);
    if (verdict.refused) expect(hints).toEqual([]);
    else expect(hints).toHaveLength(3);
  });

  it('covers both verdicts', () => {
    const verdicts = cases.map(([, manifest, shellContract]) =>
      Boolean(checkManifest('mfe_tools', 'u', manifest, shellContract ?? SHARED_KIT_CONTRACT).refused),
    );
    expect(verdicts.filter(Boolean).length).toBe(7);
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
