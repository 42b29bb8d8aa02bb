import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The one shared map for the shell and every remote (Module Federation `shared`).
// Build-time only: rsbuild configs import it; no browser code does.
// - Every library that owns React context or module state is a singleton, or it fails
//   (Chakra/router: crash) or, worse, silently forks (jotai: a second store).
// - Keys ending in '/' are prefix matches: without them subpath imports such as
//   'react-dom/client', 'react/jsx-runtime', 'jotai/react' or '@aim/shared-kit/session'
//   are bundled as private copies.
// - '@chakra-ui/react' and react-router are deliberately absent: a shared library ships whole
//   (Chakra 300 KiB gzip, react-router 67 KiB). Front-ends import them from '@aim/shared-kit/ui'
//   and '@aim/shared-kit/router', singletons built with only what they re-export; emotion
//   (Chakra's style cache) stays a singleton of its own.
// - workspace:* is not a semver range, so shared-kit carries an explicit requiredVersion.
const react = { singleton: true, requiredVersion: '^19.0.0' };
const kit = { singleton: true, requiredVersion: '^0.1.0' };

export const sharedDeps = {
  react,
  'react/': react,
  'react-dom': react,
  'react-dom/': react,
  '@emotion/react': { singleton: true, requiredVersion: '^11.0.0' },
  '@emotion/react/': { singleton: true, requiredVersion: '^11.0.0' },
  jotai: { singleton: true, requiredVersion: '^3.0.0' },
  'jotai/': { singleton: true, requiredVersion: '^3.0.0' },
  '@aim/shared-kit/': kit,
};

/**
 * Bundler aliases every browser build applies (shell and remotes: the shell provides shared-kit's
 * supabase module, a remote's copy is its standalone fallback). The dashboard never uses
 * Supabase Storage (with its Iceberg client) or Edge Functions, so supabase-js gets a stand-in for
 * them: one createClient, one session, only auth + PostgREST + realtime shipped, and realtime
 * only once a channel is opened.
 */
export const supabaseAliases = {
  '@supabase/storage-js$': fileURLToPath(new URL('./src/supabase-unused.ts', import.meta.url)),
  '@supabase/functions-js$': fileURLToPath(new URL('./src/supabase-unused.ts', import.meta.url)),
  // Realtime loads when the first channel is opened, not with createClient (src/supabase-realtime.ts).
  '@supabase/realtime-js$': fileURLToPath(new URL('./src/supabase-realtime.ts', import.meta.url)),
  '@supabase/realtime-js/dist/module/index.js$': realRealtimeJs(),
  // Passkey and Web3 sign-in helpers of auth-js (GoTrueClient imports them by relative path).
  [authJsFile('lib/webauthn.js')]: fileURLToPath(new URL('./src/supabase-auth-unused.ts', import.meta.url)),
  [authJsFile('lib/web3/ethereum.js')]: fileURLToPath(new URL('./src/supabase-auth-unused.ts', import.meta.url)),
};

function authJsFile(file: string) {
  const supabaseJs = createRequire(import.meta.url).resolve('@supabase/supabase-js');
  return path.join(path.dirname(createRequire(supabaseJs).resolve('@supabase/auth-js')).replace(/([\\/]dist[\\/])main$/, '$1module'), file);
}

function realRealtimeJs() {
  const supabaseJs = createRequire(import.meta.url).resolve('@supabase/supabase-js');
  return createRequire(supabaseJs)
    .resolve('@supabase/realtime-js')
    .replace(/([\\/]dist[\\/])main([\\/])/, '$1module$2');
}

/** Remote names exactly as runtime-config.json lists them. */
export const remoteNames = ['mfe_tools', 'mfe_assets', 'mfe_billing', 'mfe_developer', 'mfe_onboarding'] as const;

/**
 * What every remote's rsbuild config shares: its federation options and how its site is
 * built and served. Each remote passes its own name, folder, port and exposed modules.
 */
export function remoteBuild(opts: { name: (typeof remoteNames)[number]; folder: string; port: number; exposes: Record<string, string> }) {
  return {
    federation: {
      name: opts.name,
      exposes: opts.exposes,
      shared: sharedDeps,
      shareStrategy: 'loaded-first' as const,
      // Types cost ~9 s per build on 2 cores; remotes are registered at run time, so nothing consumes them.
      dts: false,
      // A smaller federation runtime in every remote entry (it is on every cold load's critical
      // path): browser code only, and no loading of other remotes (only the shell does that).
      experiments: { externalRuntime: true, optimization: { target: 'web' as const, disableRemote: true } },
    },
    site: {
      environments: {
        // The remote (its entry for the shell, and index.html for standalone use), with MF.
        web: { source: { entry: { index: './src/index.ts' } } },
        // Standalone only: the federation runtime the shell would provide, as a plain script run
        // before index.html's own (no MF in this build, so nothing here is externalised).
        [STANDALONE_RUNTIME_ENV]: {
          source: { entry: { [STANDALONE_RUNTIME]: `data:text/javascript,${encodeURIComponent(standaloneRuntimeSource)}` } },
          resolve: { alias: { '@module-federation/runtime-core$': runtimeCorePath() } },
          output: { cleanDistPath: false, filename: { js: `${STANDALONE_RUNTIME}.js` } },
          tools: { htmlPlugin: false },
          performance: { chunkSplit: { strategy: 'all-in-one' as const } },
        },
      },
      // assetPrefix 'auto' makes the standalone index.html use relative script URLs, which break on
      // deep links (/dashboard/x -> /dashboard/static/js/...). <base href="/"> keeps them working.
      html: {
        title: `${opts.folder} (standalone)`,
        tags: [
          { tag: 'base', attrs: { href: '/' }, head: true, append: false },
          { tag: 'script', attrs: { src: `static/js/${STANDALONE_RUNTIME}.js`, defer: true }, head: true, append: false },
        ],
      },
      // `rsbuild dev/preview` of a remote: only a shell on this machine may fetch its manifest
      // (the embedded launcher and CDNs set their own CORS headers for deployed sites).
      server: { port: opts.port, cors: { origin: /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/ } },
      // Chunks must load from this remote's own origin wherever it is deployed; the default '/'
      // makes the shell request them from ITS origin (404, RUNTIME-008).
      output: { assetPrefix: 'auto' },
      resolve: { alias: supabaseAliases },
    },
  };
}

/**
 * Every remote entry uses the shell's federation runtime (`externalRuntime` here,
 * `provideExternalRuntime` in the shell: ~17 KiB gzip less per remote on a cold load). Opened on
 * its own origin, a remote has no shell, so its index.html first runs this script, which sets the
 * same global the shell would.
 */
const STANDALONE_RUNTIME_ENV = 'standalone-runtime';
const STANDALONE_RUNTIME = 'mf-standalone-runtime';
const standaloneRuntimeSource = `import * as core from '@module-federation/runtime-core';
globalThis._FEDERATION_RUNTIME_CORE ??= core;
globalThis._FEDERATION_RUNTIME_CORE_FROM ??= { name: 'standalone', version: 'standalone' };`;

/** The federation runtime-core the remote's MF plugin builds against (the same files the shell bundles). */
function runtimeCorePath() {
  const fromApp = createRequire(path.join(process.cwd(), 'package.json'));
  const runtime = createRequire(fromApp.resolve('@module-federation/enhanced')).resolve('@module-federation/runtime');
  return createRequire(runtime)
    .resolve('@module-federation/runtime-core')
    .replace(/\.cjs$/, '.js');
}
