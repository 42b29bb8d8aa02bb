import { defineConfig } from '@rsbuild/core';
import { pluginReact } from '@rsbuild/plugin-react';
import { pluginModuleFederation } from '@module-federation/rsbuild-plugin';
import { sharedDeps, supabaseAliases } from '@aim/shared-kit/mf-shared';
import { pluginPrecompress } from '@aim/shared-kit/rsbuild-precompress';
import { earlyPreloadScript } from './src/mf/early-preload.ts';

export default defineConfig({
  plugins: [
    pluginReact(),
    pluginModuleFederation({
      name: 'shell',
      // No build-time remotes: they come from /runtime-config.json via registerRemotes().
      remotes: {},
      shared: sharedDeps,
      // 'version-first' loads every remote entry at start-up, so one dead remote would take the shell down.
      shareStrategy: 'loaded-first',
      dts: false,
      // Browser-only federation runtime (no Node code paths) in the shell entry, which the remotes'
      // entries use too (`externalRuntime` in mf-shared.ts): one runtime download, not one per remote.
      experiments: { provideExternalRuntime: true, optimization: { target: 'web' } },
    }),
    // x.br and x.gz beside every text asset, served by static-sites.ts and CDNs (no on-the-fly compression)
    pluginPrecompress(),
  ],
  source: { entry: { index: './src/index.ts' } },
  resolve: { alias: supabaseAliases },
  html: {
    title: 'AI Media Dashboard',
    // Rsbuild's own template plus `<html lang="en">` (screen readers, axe's html-has-lang).
    template: './src/index.html',
    favicon: './src/assets/favicon.svg',
    // First in <head>: fetch the runtime config and a deep link's remote manifest, entry and
    // chunks while the shell's own JavaScript loads (src/mf/early-preload.ts).
    tags: [{ tag: 'script', children: earlyPreloadScript(), head: true, append: false }],
  },
  server: {
    port: 3000,
    // A hand-written runtime-config.json for `rsbuild dev/preview` only; in embedded mode the
    // server answers /runtime-config.json itself, so it must not ship in dist/.
    publicDir: { name: 'dev-public', copyOnBuild: false },
    historyApiFallback: true,
  },
});
