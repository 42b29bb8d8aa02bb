import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';

// The page's one server-state layer (TanStack Query). This subpath is an MF singleton like every
// shared-kit subpath, so the remotes that import it share one QueryClient and one React context;
// none imports '@tanstack/react-query' itself (shell/test/shared-imports.test.ts). It is loaded only
// by the screens that read server state: the Midjourney tool's first render does not pull it in.
export {
  infiniteQueryOptions,
  keepPreviousData,
  queryOptions,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
  type InfiniteData,
  type QueryKey,
} from '@tanstack/react-query';
export { QueryClient };

/**
 * The defaults every screen was written against before the layer existed: a failure shows its
 * error state at once (no silent retries), and nothing is refetched behind the user's back on
 * focus or reconnect; a screen asks again on its own events (realtime, retry buttons).
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: false, refetchOnWindowFocus: false, refetchOnReconnect: false },
      mutations: { retry: false },
    },
  });
}

let pageClient: QueryClient | undefined;

/** The page's one QueryClient (made on first use). Components use `useQueryClient()`. */
export function getQueryClient(): QueryClient {
  pageClient ??= createQueryClient();
  return pageClient;
}

/**
 * Provides the page's QueryClient. Each remote that reads server state wraps its app in it (in
 * the shell and standalone alike): the client is the same object for all of them because this
 * module is shared, and the shell keeps TanStack off its own critical path.
 */
export function QueryProvider({ children }: { children: ReactNode }) {
  return <QueryClientProvider client={getQueryClient()}>{children}</QueryClientProvider>;
}
export { type KeysetList, type KeysetPhase, type PageCursor, useKeysetList } from './keyset-list.ts';
