// The inline script in index.html (mf/early-preload.ts) has normally started fetching the
// deploy-time config already; otherwise start now, in parallel with the shared chunks: code after
// the async boundary only runs once every shared dependency has loaded.
window.__AIM_RUNTIME_CONFIG__ ??= fetch('/runtime-config.json', { cache: 'no-store' }).then((res) => {
  if (!res.ok) throw new Error(`/runtime-config.json: HTTP ${res.status}`);
  return res.json() as Promise<unknown>;
});
// Async boundary: the MF runtime negotiates shared singletons before any React code runs.
import('./bootstrap.tsx');
