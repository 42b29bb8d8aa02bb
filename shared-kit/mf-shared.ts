// The one shared map for the shell and every remote (Module Federation `shared`).
// Build-time only: rsbuild configs import it; no browser code does.
// - Every library that owns React context or module state is a singleton, or it fails
//   (Chakra/router: crash) or, worse, silently forks (jotai: a second store).
// - Keys ending in '/' are prefix matches: without them subpath imports such as
//   'react-dom/client', 'react/jsx-runtime', 'jotai/react' or '@aim/shared-kit/session'
//   are bundled as private copies.
// - workspace:* is not a semver range, so shared-kit carries an explicit requiredVersion.
const react = { singleton: true, requiredVersion: '^19.0.0' };
const kit = { singleton: true, requiredVersion: '^0.1.0' };

export const sharedDeps = {
  react,
  'react/': react,
  'react-dom': react,
  'react-dom/': react,
  'react-router': { singleton: true, requiredVersion: '^7.0.0' },
  'react-router/': { singleton: true, requiredVersion: '^7.0.0' },
  'react-router-dom': { singleton: true, requiredVersion: '^7.0.0' },
  '@chakra-ui/react': { singleton: true, requiredVersion: '^3.0.0' },
  '@emotion/react': { singleton: true, requiredVersion: '^11.0.0' },
  '@emotion/react/': { singleton: true, requiredVersion: '^11.0.0' },
  jotai: { singleton: true, requiredVersion: '^3.0.0' },
  'jotai/': { singleton: true, requiredVersion: '^3.0.0' },
  '@aim/shared-kit/': kit,
};

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
    },
    site: {
      source: { entry: { index: './src/index.ts' } },
      // assetPrefix 'auto' makes the standalone index.html use relative script URLs, which break on
      // deep links (/dashboard/x -> /dashboard/static/js/...). <base href="/"> keeps them working.
      html: { title: `${opts.folder} (standalone)`, tags: [{ tag: 'base', attrs: { href: '/' }, head: true, append: false }] },
      // `rsbuild dev/preview` of a remote: only a shell on this machine may fetch its manifest
      // (the embedded launcher and CDNs set their own CORS headers for deployed sites).
      server: { port: opts.port, cors: { origin: /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/ } },
      // Chunks must load from this remote's own origin wherever it is deployed; the default '/'
      // makes the shell request them from ITS origin (404, RUNTIME-008).
      output: { assetPrefix: 'auto' },
    },
  };
}
