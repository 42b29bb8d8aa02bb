// Where the platform under test listens. Not the `npm start` defaults (3000, 3001–3005, 8080,
// 54321), so the journeys can run while a developer's own platform is up. E2E_PORT_OFFSET
// (default 0) shifts every port, so two checkouts can run journeys at once.
const OFFSET = /^\d{1,4}$/.test(process.env.E2E_PORT_OFFSET ?? '') ? Number(process.env.E2E_PORT_OFFSET) : 0;
export const PORTS = {
  shell: 3100 + OFFSET,
  mfe_tools: 3101 + OFFSET,
  mfe_assets: 3102 + OFFSET,
  mfe_billing: 3103 + OFFSET,
  mfe_developer: 3104 + OFFSET,
  mfe_onboarding: 3105 + OFFSET,
  api: 8180 + OFFSET,
  supabase: 54421 + OFFSET,
  /** A second, allow-listed origin the preview journey serves a remote build from. */
  preview: 3109 + OFFSET,
};

export type RemoteName = 'mfe_tools' | 'mfe_assets' | 'mfe_billing' | 'mfe_developer' | 'mfe_onboarding';

/** The launcher hands out `localhost` URLs (its PUBLIC_HOST); the browser must use the same name. */
const origin = (port: number) => `http://localhost:${port}`;

export const SHELL_URL = origin(PORTS.shell);
export const API_URL = origin(PORTS.api);
export const SUPABASE_URL = origin(PORTS.supabase);
export const remoteUrl = (name: RemoteName) => origin(PORTS[name]);

/** The environment that makes `server/src/main.ts` listen on the ports above. */
export function launcherEnv(dataDir: string): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    // next to the database, so a run leaves nothing behind in the repository's .data/
    MEDIA_DIR: `${dataDir}-media`,
    // the per-remote records and the release folders (scripts/remote-release.mjs), likewise
    REMOTES_CONFIG_DIR: `${dataDir}-remotes`,
    RELEASES_DIR: `${dataDir}-releases`,
    SHELL_PORT: String(PORTS.shell),
    MFE_TOOLS_PORT: String(PORTS.mfe_tools),
    MFE_ASSETS_PORT: String(PORTS.mfe_assets),
    MFE_BILLING_PORT: String(PORTS.mfe_billing),
    MFE_DEVELOPER_PORT: String(PORTS.mfe_developer),
    MFE_ONBOARDING_PORT: String(PORTS.mfe_onboarding),
    API_PORT: String(PORTS.api),
    SUPABASE_PORT: String(PORTS.supabase),
  };
}

/**
 * The Supabase CLI's default local keys (the same constants as supabase/src/keys.ts). The
 * service-role key stays in this Node process; the browser only ever gets the anon key.
 */
export const ANON_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0';
export const SERVICE_ROLE_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6InNlcnZpY2Vfcm9sZSIsImV4cCI6MTk4MzgxMjk5Nn0.EGIM96RAZx35lJzdJsyH-qQwv8Hdp7fsn3W0YpN81IU';

/** supabase-js's default storage key for a project URL on `localhost`. */
export const SESSION_STORAGE_KEY = `sb-${new URL(SUPABASE_URL).hostname.split('.')[0]}-auth-token`;

/** Debian's Chromium with the flags that work on these machines: the journeys and the benchmark never download a browser. */
export const CHROMIUM_LAUNCH = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
};
