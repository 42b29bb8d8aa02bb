// Makes a fresh machine ready: pnpm (through npm when missing) and the workspace's packages.
// Used by `npm start` and `npm test`; cheap when everything is already there.
import { execSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const PNPM_VERSION = '12.21.0';

function has(cmd) {
  try {
    execSync(`${cmd} --version`, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

export function ensureInstall() {
  if (!has('pnpm')) {
    console.log(`[setup] pnpm not found: installing pnpm@${PNPM_VERSION} with npm`);
    if (run('npm', ['install', '--global', `pnpm@${PNPM_VERSION}`]) !== 0 || !has('pnpm')) {
      console.error('[setup] could not install pnpm (try: corepack enable pnpm)');
      process.exit(1);
    }
  }
  const frozen = existsSync(path.join(root, 'pnpm-lock.yaml')) ? ['--frozen-lockfile'] : [];
  if (run('pnpm', ['install', ...frozen, '--prefer-offline']) !== 0) {
    console.error('[setup] pnpm install failed');
    process.exit(1);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) ensureInstall();
