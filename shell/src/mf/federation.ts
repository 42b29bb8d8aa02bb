import { preloadRemote, registerRemotes } from '@module-federation/enhanced/runtime';

export type RemoteName = 'mfe_tools' | 'mfe_assets' | 'mfe_billing' | 'mfe_developer' | 'mfe_onboarding';

/** Which remote owns a path, so a deep link can start fetching it before React renders. */
export function remoteForPath(pathname: string): RemoteName | null {
  if (pathname === '/dashboard' || pathname === '/dashboard/' || pathname.startsWith('/dashboard/tools/')) return 'mfe_tools';
  if (pathname.startsWith('/dashboard/assets/')) return 'mfe_assets';
  if (pathname.startsWith('/dashboard/billing/') || pathname === '/payment-success') return 'mfe_billing';
  if (pathname === '/dashboard/api-keys' || pathname === '/dashboard/task-logs') return 'mfe_developer';
  if (pathname === '/welcome') return 'mfe_onboarding';
  return null;
}

/** Registers the runtime-config remotes (never build-time ones) and preloads the deep link's owner. */
export function initFederation(remotes: Record<string, string>, pathname: string): void {
  registerRemotes(Object.entries(remotes).map(([name, entry]) => ({ name, entry })));
  const owner = remoteForPath(pathname);
  if (owner) {
    preloadRemote([{ nameOrAlias: owner, exposes: ['./App'] }]).catch(() => {
      // A failed preload surfaces again (with its fallback) when the slot calls loadRemote.
    });
  }
}
