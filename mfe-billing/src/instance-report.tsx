import * as React from 'react';
import { createPortal } from 'react-dom';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter } from 'react-router-dom';
import { useChakraContext } from '@chakra-ui/react';
import { ThemeContext } from '@emotion/react';
import { useStore } from 'jotai';
import { useStore as useStoreFromSubpath } from 'jotai/react';
import { getSupabaseClient } from '@aim/shared-kit/supabase';
import { useSession } from '@aim/shared-kit/session';

declare global {
  interface Window {
    __AIM_INSTANCES__?: Record<string, Record<string, unknown>>;
  }
}

/**
 * Publishes the library instances this bundle resolved at run time, so a browser test can assert
 * they are the shell's (one React, router, Chakra, emotion, jotai store, shared-kit). An unshared
 * jotai fails silently, so only an identity check catches it. Every app keeps its own copy of this
 * file on purpose: the imports above must be resolved by this bundle, not by a shared module.
 */
export function InstanceReport({ name }: { name: string }) {
  const store = useStore();
  const storeFromSubpath = useStoreFromSubpath();
  const chakra = useChakraContext();
  React.useEffect(() => {
    window.__AIM_INSTANCES__ ??= {};
    window.__AIM_INSTANCES__[name] = {
      react: React.useState,
      reactDom: createPortal,
      reactDomClient: createRoot,
      router: createBrowserRouter,
      chakraSystem: chakra,
      emotion: ThemeContext,
      jotaiStore: store,
      jotaiStoreFromSubpath: storeFromSubpath,
      sharedKitSupabase: getSupabaseClient(),
      sharedKitSession: useSession,
    };
  }, [name, store, storeFromSubpath, chakra]);
  return null;
}
