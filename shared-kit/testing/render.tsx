// Test-only: the providers every remote's component tests render inside (Chakra with the app's
// system, a fresh QueryClient per render with retries off, and a MemoryRouter when `route` is
// given), so a test sees the screen as the shell would show it and no cache leaks between tests.
import type { ReactElement, ReactNode } from 'react';
import { type RenderOptions, type RenderResult, render as renderDom } from '@testing-library/react';
import userEvent, { type UserEvent } from '@testing-library/user-event';
import { ChakraProvider } from '@chakra-ui/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router-dom';
import { system } from '../src/theme.tsx';

/** A client like the page's, but new for each test and without retries or cache time. */
export function createTestQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: false, gcTime: Number.POSITIVE_INFINITY, refetchOnWindowFocus: false, refetchOnReconnect: false },
      mutations: { retry: false },
    },
  });
}

export type RenderWithProvidersOptions = Omit<RenderOptions, 'wrapper' | 'queries'> & {
  /** Wraps the ui in a MemoryRouter at this URL (leave out when the test brings its own router). */
  route?: string;
  /** A client the test keeps (to seed or inspect the cache); a fresh one otherwise. */
  queryClient?: QueryClient;
};

/** Renders `ui` inside the app's providers; answers testing-library's result, a user-event session and the QueryClient. */
export function render(ui: ReactElement, options: RenderWithProvidersOptions = {}): RenderResult & { user: UserEvent; queryClient: QueryClient } {
  const { route, queryClient = createTestQueryClient(), ...rest } = options;
  function Providers({ children }: { children: ReactNode }) {
    return (
      <ChakraProvider value={system}>
        <QueryClientProvider client={queryClient}>
          {route === undefined ? children : <MemoryRouter initialEntries={[route]}>{children}</MemoryRouter>}
        </QueryClientProvider>
      </ChakraProvider>
    );
  }
  const result: RenderResult = renderDom(ui, { ...rest, wrapper: Providers });
  return Object.assign(result, { user: userEvent.setup(), queryClient });
}
