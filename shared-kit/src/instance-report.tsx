import { useEffect } from 'react';

declare global {
  interface Window {
    __AIM_INSTANCES__?: Record<string, Record<string, unknown>>;
  }
}

/**
 * The library entry points one app's bundle resolved. Each app passes ITS OWN imports (that
 * resolution is what the singleton check is about); only the reporting logic lives here.
 */
export interface ResolvedModules {
  React: { useState: unknown };
  createPortal: unknown;
  createRoot: unknown;
  createBrowserRouter: unknown;
  ThemeContext: unknown;
  useChakraContext: () => unknown;
  useStore: () => unknown;
  useStoreFromSubpath: () => unknown;
  getSupabaseClient: () => unknown;
  useSession: unknown;
  /**
   * The page's QueryClient as this app resolved it (`@aim/shared-kit/query`), from the apps that
   * read server state; left out by those that do not load TanStack (the shell, the tools remote).
   */
  getQueryClient?: () => unknown;
}

/**
 * Publishes the instances an app resolved at run time on `window.__AIM_INSTANCES__[name]`, so a
 * browser test can assert they are the shell's (one React, router, Chakra, emotion, jotai store,
 * shared-kit, and one QueryClient among the apps that read server state). An unshared jotai fails silently, so only an identity check catches it.
 */
export function useInstanceReport(name: string, m: ResolvedModules) {
  const store = m.useStore();
  const storeFromSubpath = m.useStoreFromSubpath();
  const chakra = m.useChakraContext();
  useEffect(() => {
    window.__AIM_INSTANCES__ ??= {};
    window.__AIM_INSTANCES__[name] = {
      react: m.React.useState,
      reactDom: m.createPortal,
      reactDomClient: m.createRoot,
      router: m.createBrowserRouter,
      chakraSystem: chakra,
      emotion: m.ThemeContext,
      jotaiStore: store,
      jotaiStoreFromSubpath: storeFromSubpath,
      sharedKitSupabase: m.getSupabaseClient(),
      sharedKitSession: m.useSession,
      ...(m.getQueryClient ? { queryClient: m.getQueryClient() } : {}),
    };
  }, [name, m, store, storeFromSubpath, chakra]);
}
