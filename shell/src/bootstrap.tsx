import { createRoot } from 'react-dom/client';
import { parseRuntimeConfig, setRuntimeConfig } from '@aim/shared-kit/runtime-config';
import { initTheme } from '@aim/shared-kit/theme';
import { App } from './app.tsx';
import { WARM_WAIT_MS, initFederation } from './mf/federation.ts';
import { PREVIEW_STORAGE_KEY, readStoredPreviews, resolvePreviews, stripPreviewParams } from './mf/preview.ts';
import * as providedSubpaths from './mf/provide-subpaths.ts';

// Referenced so the bundler keeps the subpaths in the shell's graph (and thus provided to remotes).
(window as unknown as { __AIM_PROVIDED__: string[] }).__AIM_PROVIDED__ = Object.keys(providedSubpaths);

async function start() {
  const root = createRoot(document.getElementById('root')!);
  initTheme();
  let config: ReturnType<typeof parseRuntimeConfig>;
  try {
    config = parseRuntimeConfig(await (window.__AIM_RUNTIME_CONFIG__ ?? fetch('/runtime-config.json').then((r) => r.json())));
  } catch (err) {
    root.render(
      <p role="alert" style={{ padding: 24, fontFamily: 'sans-serif' }}>
        The dashboard could not start: {(err as Error).message}
      </p>,
    );
    return;
  }
  const preview = resolvePreviews({
    remotes: config.remotes,
    allowList: config.previewAllowList,
    search: location.search,
    stored: readStoredPreviews(sessionStorage),
  });
  sessionStorage.setItem(PREVIEW_STORAGE_KEY, JSON.stringify(preview.stored));
  if (location.search.includes('mf-preview')) history.replaceState(history.state, '', stripPreviewParams(location.href));
  setRuntimeConfig({ ...config, remotes: preview.remotes });
  const remoteReady = initFederation(preview.remotes, location.pathname);
  // A deep link's remote renders with the frame when it loads within WARM_WAIT_MS (federation.ts).
  await Promise.race([remoteReady, new Promise((resolve) => setTimeout(resolve, WARM_WAIT_MS))]);
  root.render(<App preview={preview} />);
}

void start();
