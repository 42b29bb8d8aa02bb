import type { ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { ChakraProvider } from '@chakra-ui/react';
import { Provider as JotaiProvider } from 'jotai';
import { BrowserRouter } from 'react-router-dom';
import { fetchRuntimeConfig, setRuntimeConfig } from './runtime-config.ts';
import { initTheme, system } from './theme.tsx';
import { AppToaster } from './toast.tsx';

/**
 * Runs a remote on its own origin for its team's development: the same providers the shell gives
 * (Chakra system, jotai, router, toaster) around the remote's app. The runtime config comes from
 * the shell's origin, which serves it with CORS.
 */
export async function renderStandalone(render: () => ReactNode, configUrl: string): Promise<void> {
  const root = createRoot(document.getElementById('root')!);
  try {
    setRuntimeConfig(await fetchRuntimeConfig(configUrl));
  } catch (err) {
    root.render(
      <p role="alert">
        Could not load {configUrl}: {(err as Error).message}
      </p>,
    );
    return;
  }
  initTheme();
  root.render(
    <ChakraProvider value={system}>
      <JotaiProvider>
        <BrowserRouter>{render()}</BrowserRouter>
        <AppToaster />
      </JotaiProvider>
    </ChakraProvider>,
  );
}
