// The start of a cold load, before the shell's own JavaScript: an inline script in index.html
// (rsbuild.config.ts puts it first in <head>) fetches the runtime config (/runtime-config.json
// unless index.html names another URL, see RUNTIME_CONFIG_META) and, on a deep link into
// a remote, that remote's mf-manifest.json, then hints the browser to fetch the remote entry and
// the exposed module's chunks. Without it, the manifest request waits for the shell entry, every
// shared chunk and bootstrap (preloadRemote), i.e. until after the shell frame is ready.
//
// This file is build-time only (the config and tests import it; no browser bundle does). The
// runtime half is `earlyManifestPlugin` in federation.ts: the MF runtime's manifest fetch takes the
// early response once, and falls back to its own fetch (so a 404 still ends in the remote's
// fallback with Retry, and Retry fetches afresh).
//
// Nothing of a remote's code is hinted before its manifest passes the shell's checks (the same
// rules as remote-check.ts: the manifest names the remote, exposes what the shell mounts, and was
// stamped with a contract this shell provides): a refused remote costs its manifest, no entry and
// no chunk. The runtime plugin then judges the same text again and says why.
//
// A preview override (`?mf-preview=` or one kept in sessionStorage) replaces a remote's URL after
// the runtime config arrives; the script then skips that remote, so nothing stale is fetched.

import { SHARED_KIT_CONTRACT, SHELL_MOUNTS } from '@aim/shared-kit/contract';
import { PREVIEW_STORAGE_KEY } from './preview.ts';

/** Which remote owns a path: exact paths and path prefixes (kept as data for the inline script). */
export const REMOTE_ROUTES = [
  { remote: 'mfe_tools', exact: ['/dashboard', '/dashboard/'], prefixes: ['/dashboard/tools/'] },
  { remote: 'mfe_assets', exact: [], prefixes: ['/dashboard/assets/'] },
  { remote: 'mfe_billing', exact: ['/payment-success'], prefixes: ['/dashboard/billing/'] },
  { remote: 'mfe_developer', exact: ['/dashboard/api-keys', '/dashboard/task-logs'], prefixes: [] },
  { remote: 'mfe_onboarding', exact: ['/welcome'], prefixes: [] },
] as const;

export type RemoteName = (typeof REMOTE_ROUTES)[number]['remote'];

/** The exposed module the shell mounts for a route. */
export const ROUTE_EXPOSE = 'App';

export function remoteForPath(pathname: string): RemoteName | null {
  const route = REMOTE_ROUTES.find((r) => (r.exact as readonly string[]).includes(pathname) || r.prefixes.some((p) => pathname.startsWith(p)));
  return route?.remote ?? null;
}

/**
 * Where the shell reads its runtime config: `<meta name="aim-runtime-config" content="URL">` in
 * index.html when an operator put one there (the file is served uncached, so editing it takes
 * effect on the next load, without a rebuild), else /runtime-config.json on the shell's origin.
 */
const RUNTIME_CONFIG_META = 'aim-runtime-config';
const DEFAULT_RUNTIME_CONFIG_URL = '/runtime-config.json';

/** Where the inline script leaves its promises for the shell's bootstrap and federation code. */
export type EarlyState = {
  /** mf-manifest.json URL -> its text, fetched early; taken (deleted) by the first reader. */
  manifests: Record<string, Promise<string>>;
};

/**
 * The inline script (plain ES2020, not transpiled: keep it small). Its matching mirrors
 * remoteForPath above; shell/test/early-preload.test.ts runs both over the same paths.
 */
export function earlyPreloadScript(shellContract = SHARED_KIT_CONTRACT): string {
  return `(() => {
  const routes = ${JSON.stringify(REMOTE_ROUTES)};
  const mounts = ${JSON.stringify(SHELL_MOUNTS)};
  const contract = ${JSON.stringify(shellContract)}.split('.').map(Number);
  const meta = document.querySelector('meta[name=${RUNTIME_CONFIG_META}]');
  const configUrl = (meta && meta.getAttribute('content')) || ${JSON.stringify(DEFAULT_RUNTIME_CONFIG_URL)};
  const config = fetch(configUrl, { cache: 'no-store' }).then((res) => {
    if (!res.ok) throw new Error(configUrl + ': HTTP ' + res.status);
    return res.json();
  });
  config.catch(() => {});
  window.__AIM_RUNTIME_CONFIG__ = config;
  const early = (window.__AIM_EARLY__ = { manifests: {} });
  const path = location.pathname;
  const route = routes.find((r) => r.exact.includes(path) || r.prefixes.some((p) => path.startsWith(p)));
  if (!route) return;
  const remote = route.remote;
  if (new URLSearchParams(location.search).getAll('mf-preview').some((v) => v.startsWith(remote + '='))) return;
  try {
    if (JSON.parse(sessionStorage.getItem(${JSON.stringify(PREVIEW_STORAGE_KEY)}) || '{}')[remote]) return;
  } catch (e) {}
  const str = (v) => (typeof v === 'string' && v ? v : undefined);
  // remote-check.ts checkManifest, answering only yes or no (shell/test/early-preload.test.ts runs both)
  const accepted = (manifest) => {
    const meta = manifest && manifest.metaData;
    if (!meta || typeof meta !== 'object' || !Array.isArray(manifest.exposes)) return false;
    if ((str(manifest.name) || str(meta.name)) !== remote) return false;
    const built = str(meta.aim && typeof meta.aim === 'object' ? meta.aim.contract : undefined);
    if (built !== undefined) {
      const m = /^(\\d+)\\.(\\d+)\\.(\\d+)$/.exec(built);
      if (!m || Number(m[1]) !== contract[0] || Number(m[2]) > contract[1] || contract.some(Number.isNaN)) return false;
    }
    const paths = manifest.exposes.map((e) => str(e && e.path) || (str(e && e.name) ? './' + e.name : ''));
    return (mounts[remote] || []).every((e) => paths.includes(e));
  };
  const hint = (href) => {
    const link = document.createElement('link');
    link.rel = 'preload';
    link.as = 'script';
    link.href = href;
    document.head.appendChild(link);
  };
  config
    .then((cfg) => {
      const url = cfg && cfg.remotes && cfg.remotes[remote];
      if (!url) return;
      const text = fetch(url).then((res) => {
        if (!res.ok) throw new Error(url + ': HTTP ' + res.status);
        return res.text();
      });
      early.manifests[url] = text;
      return text.then((body) => {
        const manifest = JSON.parse(body);
        if (!accepted(manifest)) return;
        const meta = manifest.metaData;
        const base = meta.publicPath && meta.publicPath !== 'auto' ? meta.publicPath : new URL('.', url).href;
        const entry = meta.remoteEntry;
        hint(new URL((entry.path ? entry.path.replace(/\\/?$/, '/') : '') + entry.name, base).href);
        const expose = (manifest.exposes || []).find((e) => e.name === ${JSON.stringify(ROUTE_EXPOSE)});
        for (const file of (expose && expose.assets.js.sync) || []) hint(new URL(file, base).href);
      });
    })
    .catch(() => {});
})();`;
}
