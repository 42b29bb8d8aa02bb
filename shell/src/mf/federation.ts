import { loadRemote, preloadRemote, registerPlugins, registerRemotes, type ModuleFederationRuntimePlugin } from '@module-federation/enhanced/runtime';
import { ROUTE_EXPOSE, remoteForPath, type EarlyState, type RemoteName } from './early-preload.ts';
import { RemoteRefusedError, checkManifest, recordVerdict } from './remote-check.ts';

export { remoteForPath, type RemoteName };

/**
 * Every remote manifest the MF runtime asks for passes through here, before the remote's entry
 * loads: the one the inline script in index.html already fetched (see early-preload.ts) is taken
 * once per URL, any later load (Retry, a preview URL) goes to the network as before, so a 404
 * still reaches the remote's fallback. Then remote-check.ts judges it: a refused remote fails
 * here (its slot shows why) and its code never runs.
 */
export function earlyManifestPlugin(early: EarlyState | undefined): ModuleFederationRuntimePlugin {
  const networkText = async (url: string) => {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
    return res.text();
  };
  return {
    name: 'aim-early-manifest',
    async fetch(url, _init, remoteInfo) {
      const earlyText = early?.manifests[url];
      if (earlyText) delete early.manifests[url];
      const body = await (earlyText ? earlyText.catch(() => networkText(url)) : networkText(url));
      const manifest = JSON.parse(body) as { name?: unknown } | null;
      const verdict = checkManifest(remoteInfo?.name ?? String(manifest?.name ?? ''), url, manifest);
      recordVerdict(verdict);
      if (verdict.refused) throw new RemoteRefusedError(verdict);
      return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
    },
  };
}

type RemoteModule = { default: unknown };
const loaded = new Map<string, RemoteModule>();

/** A remote module that finished loading ('mfe_tools/App'), for a slot to render without suspending. */
export function loadedRemote(id: string): RemoteModule | undefined {
  return loaded.get(id);
}

/**
 * Loads a deep link's remote module: bootstrap gives it a head start (up to WARM_WAIT_MS) before
 * the first render, so the slot finds it loaded and renders it in the same commit as the frame.
 * (A slot that suspends shows its spinner, and React then holds the remote's content back for its
 * ~300 ms Suspense reveal throttle.) Failures are left to the slot, whose own loadRemote shows the
 * fallback with Retry. Resolves either way.
 */
function warmRemote(id: string): Promise<void> {
  return loadRemote<RemoteModule>(id).then(
    (mod) => {
      if (mod?.default) loaded.set(id, mod);
      performance.mark(`aim:remote-loaded:${id}`); // read by e2e/bench/load-bench.ts
    },
    () => {},
  );
}

/**
 * The longest the first render waits for a deep link's remote (a slow remote shows its spinner).
 * No longer than React's Suspense reveal throttle (~300 ms), which a suspending slot would cost
 * its content anyway: the frame is never held back for more than the wait can save.
 */
export const WARM_WAIT_MS = 300;

/**
 * Registers the runtime-config remotes (never build-time ones) and starts loading the deep link's
 * owner; the promise settles when that module loaded or failed (at once when there is none).
 */
export function initFederation(remotes: Record<string, string>, pathname: string): Promise<void> {
  registerPlugins([earlyManifestPlugin(window.__AIM_EARLY__)]);
  registerRemotes(Object.entries(remotes).map(([name, entry]) => ({ name, entry })));
  const owner = remoteForPath(pathname);
  if (owner) {
    preloadRemote([{ nameOrAlias: owner, exposes: [`./${ROUTE_EXPOSE}`] }]).catch(() => {
      // A failed preload surfaces again (with its fallback) when the slot calls loadRemote.
    });
    return warmRemote(`${owner}/${ROUTE_EXPOSE}`);
  }
  return Promise.resolve();
}
