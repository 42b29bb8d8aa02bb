// Where each remote lives on the embedded launcher, and where its records and releases are kept:
// one answer for the launcher (main.ts) and the release command (scripts/remote-release.mjs),
// which must agree without talking to each other (they share only the data folder).
import path from 'node:path';

const REMOTE_PACKAGES = [
  { name: 'mfe-tools', mf: 'mfe_tools', portVar: 'MFE_TOOLS_PORT', port: 3001 },
  { name: 'mfe-assets', mf: 'mfe_assets', portVar: 'MFE_ASSETS_PORT', port: 3002 },
  { name: 'mfe-billing', mf: 'mfe_billing', portVar: 'MFE_BILLING_PORT', port: 3003 },
  { name: 'mfe-developer', mf: 'mfe_developer', portVar: 'MFE_DEVELOPER_PORT', port: 3004 },
  { name: 'mfe-onboarding', mf: 'mfe_onboarding', portVar: 'MFE_ONBOARDING_PORT', port: 3005 },
] as const;

type Env = Record<string, string | undefined>;
const num = (v: string | undefined, d: number) => (v && /^\d+$/.test(v) ? Number(v) : d);

/** Each remote's MF name, package folder, port and origin (MFE_*_URL, else http://PUBLIC_HOST:port). */
export function remoteSitesFromEnv(env: Env) {
  const host = env.PUBLIC_HOST ?? 'localhost';
  return REMOTE_PACKAGES.map((r) => {
    const port = num(env[r.portVar], r.port);
    return { name: r.name, folder: r.name, mf: r.mf, port, origin: env[`${r.mf.toUpperCase()}_URL`] ?? `http://${host}:${port}` };
  });
}

/**
 * REMOTES_CONFIG_DIR (the per-remote records) and RELEASES_DIR (the release folders the launcher
 * serves), resolved against the repository root. Defaults `.data/remotes` and `.data/releases`
 * in embedded mode, beside `.data/pglite` and `.data/media`; production reads records only when
 * REMOTES_CONFIG_DIR is set.
 */
export function remoteDataDirs(env: Env, repoRoot: string, embedded = true) {
  const configDir = env.REMOTES_CONFIG_DIR ?? (embedded ? '.data/remotes' : undefined);
  const releasesDir = env.RELEASES_DIR ?? (embedded ? '.data/releases' : undefined);
  return {
    configDir: configDir ? path.resolve(repoRoot, configDir) : undefined,
    releasesDir: releasesDir ? path.resolve(repoRoot, releasesDir) : undefined,
  };
}
