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
