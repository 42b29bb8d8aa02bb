import { defineConfig } from '@rsbuild/core';
import { pluginReact } from '@rsbuild/plugin-react';
import { pluginModuleFederation } from '@module-federation/rsbuild-plugin';
import { sharedDeps } from '@aim/shared-kit/mf-shared';

export default defineConfig({
  plugins: [
    pluginReact(),
    pluginModuleFederation({
      name: 'mfe_tools',
      exposes: {
        './App': './src/app.tsx',
      },
      shared: sharedDeps,
      shareStrategy: 'loaded-first',
      // Types cost ~9 s per build on 2 cores; remotes are registered at run time, so nothing consumes them yet.
      dts: false,
    }),
  ],
  source: { entry: { index: './src/index.ts' } },
  // assetPrefix 'auto' makes the standalone index.html use relative script URLs, which break on deep
  // links (/dashboard/x -> /dashboard/static/js/...). <base href="/"> keeps them working.
  html: { title: 'mfe-tools (standalone)', tags: [{ tag: 'base', attrs: { href: '/' }, head: true, append: false }] },
  server: { port: 3001 },
  output: {
    // Chunks must load from this remote's own origin wherever it is deployed; the default '/'
    // makes the shell request them from ITS origin (404, RUNTIME-008).
    assetPrefix: 'auto',
  },
});
