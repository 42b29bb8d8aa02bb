// Starts the platform the way `npm start` does (build the front-ends, then the embedded
// launcher `pnpm --filter @aim/server start`), on the e2e ports with a throw-away database,
// and returns the teardown that stops the launcher's whole process group.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PORTS, SHELL_URL, SUPABASE_URL, launcherEnv } from './platform.ts';

const e2eDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const root = path.resolve(e2eDir, '..');
export const ARTIFACTS = path.join(e2eDir, 'artifacts');
const FRONT_ENDS = ['shell', 'mfe-tools', 'mfe-assets', 'mfe-billing', 'mfe-developer', 'mfe-onboarding'];
const READY_TIMEOUT_MS = 90_000;

/** Builds unless SKIP_BUILD=1 and every front-end already has a dist/ (then reuses them as they are). */
function buildFrontEnds() {
  const missing = FRONT_ENDS.filter((p) => !existsSync(path.join(root, p, 'dist', 'mf-manifest.json')));
  if (process.env.SKIP_BUILD === '1' && missing.length === 0) return;
  console.log(`[e2e] building ${FRONT_ENDS.join(', ')}${missing.length ? ` (no dist/: ${missing.join(', ')})` : ''}`);
  const r = spawnSync('pnpm', ['-r', '--filter', './shell', '--filter', './mfe-*', 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('[e2e] building the front-ends failed');
}

function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

export default async function globalSetup() {
  mkdirSync(ARTIFACTS, { recursive: true });
  const busy = [];
  for (const port of Object.values(PORTS)) if (await portInUse(port)) busy.push(port);
  // A stale platform on these ports would be tested instead of this checkout: refuse.
  if (busy.length) throw new Error(`[e2e] ports already in use: ${busy.join(', ')} (is another e2e run still up?)`);

  buildFrontEnds();

  const runDir = mkdtempSync(path.join(tmpdir(), 'aim-e2e-'));
  const dataDir = path.join(runDir, 'pglite');
  const logPath = path.join(ARTIFACTS, 'server.log');
  const log = createWriteStream(logPath);
  const env: NodeJS.ProcessEnv = { ...process.env, ...launcherEnv(dataDir) };
  // the journeys that deploy a remote (tests/remote-release.spec.ts) run the command on the same data folder
  process.env.E2E_DATA_DIR = dataDir;
  // Embedded mode only: a developer's hosted-mode settings must not leak into the run.
  for (const key of ['DATABASE_URL', 'SUPABASE_URL', 'SERVE_STATIC', 'SITE_URL', 'API_PUBLIC_URL', 'CORS_ORIGINS', 'PREVIEW_ALLOW_LIST', 'HOST', 'PUBLIC_HOST'])
    delete env[key];
  for (const key of Object.keys(env)) if (/^MFE_[A-Z]+_URL$/.test(key)) delete env[key];

  // Own process group, so teardown stops pnpm, tsx and node together.
  const child = spawn('pnpm', ['--filter', '@aim/server', 'start'], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  let exited: number | null = null;
  child.once('exit', (code) => (exited = code ?? 1));

  const stop = async () => {
    if (exited === null && child.pid) {
      const gone = new Promise((r) => child.once('exit', r));
      process.kill(-child.pid, 'SIGTERM');
      const forced = setTimeout(() => exited === null && process.kill(-child.pid!, 'SIGKILL'), 5_000);
      await gone;
      clearTimeout(forced);
    }
    log.end();
    rmSync(runDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (exited !== null) {
      await stop();
      throw new Error(`[e2e] the launcher exited with code ${exited}; see ${logPath}`);
    }
    if ((await answers(`${SHELL_URL}/runtime-config.json`)) && (await answers(`${SUPABASE_URL}/auth/v1/captcha/challenge`))) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`[e2e] the platform did not answer within ${READY_TIMEOUT_MS / 1000} s; see ${logPath}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return stop;
}
