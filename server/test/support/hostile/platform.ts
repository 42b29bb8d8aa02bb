/**
 * The platform under attack, started from outside as an operator starts it: (a) embedded, the
 * launcher `tsx src/main.ts` as `npm start` runs it (PGlite, local services, API, one worker,
 * the built front-ends) on free ports with a throw-away data folder; (b) the production layout,
 * a throw-away PostgreSQL, the API process in production mode (private secrets, sandbox billing
 * by explicit opt-in, no dev mailbox) and two worker processes through their real entry points.
 * Each process runs in its own process group, stopped as a group.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_ANON_KEY, DEFAULT_SERVICE_ROLE_KEY, signJwt } from '@aim/supabase';
import { freePort, type RunningPostgres, startPostgres } from '@aim/supabase/testing';

const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const repoRoot = path.resolve(serverDir, '..');
const FRONT_ENDS = ['shell', 'mfe-tools', 'mfe-assets', 'mfe-billing', 'mfe-developer', 'mfe-onboarding'] as const;

/**
 * The limits the platform runs with here: the documented defaults (README, Security limits),
 * except the per-address one. Set explicitly: the server
 * suite's vitest config raises every RATE_LIMIT_* for its in-process tests, and the spawned
 * processes would inherit that.
 */
export const LIMITS = {
  RATE_LIMIT_SUBMIT_PER_MINUTE: '120',
  RATE_LIMIT_SUBMIT_ACCOUNT_PER_MINUTE: '240',
  RATE_LIMIT_READ_PER_MINUTE: '600',
  RATE_LIMIT_ACCOUNT_PER_MINUTE: '60',
  // lower than the default 1200, so that one address's flood reaches it within the suite's seconds;
  // each tenant's own address stays far below it
  RATE_LIMIT_ADDRESS_PER_MINUTE: '600',
  UPLOAD_QUOTA_FREE_COUNT: '20',
  UPLOAD_QUOTA_FREE_BYTES: String(50 * 1024 * 1024),
};

interface PlatformProcess {
  name: string;
  child: ChildProcess;
  out: string;
}

export interface Platform {
  layout: 'embedded' | 'production';
  apiUrl: string;
  supabaseUrl: string;
  anonKey: string;
  serviceRoleKey: string;
  /** Every port the platform listens on, by listener name. */
  ports: Record<string, number>;
  /** Front-ends not served because their dist/ is missing in this checkout. */
  missingFrontEnds: string[];
  processes: PlatformProcess[];
  /** The process serving the API (and in embedded mode everything else). */
  api: PlatformProcess;
  /** The magic link most recently mailed to `email` (the console line every layout prints). */
  magicLink(email: string, after?: number): Promise<string>;
  /** Resident memory of the API process's group, in MB. */
  apiRssMb(): number;
  /** Processes that exited, with how, and their last output lines. */
  exited(): string[];
  stop(): Promise<void>;
}

/** The environment minus what would point a launcher elsewhere (as e2e/support/global-setup.ts does). */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of [
    'DATABASE_URL',
    'SUPABASE_URL',
    'SERVE_STATIC',
    'SITE_URL',
    'API_PUBLIC_URL',
    'CORS_ORIGINS',
    'PREVIEW_ALLOW_LIST',
    'HOST',
    'PUBLIC_HOST',
    'EMBEDDED',
    'IN_PROCESS_WORKER',
    'NODE_ENV',
  ])
    delete env[key];
  for (const key of Object.keys(env)) if (/^(MFE_[A-Z]+_URL|VITEST.*|RATE_LIMIT_.*|UPLOAD_QUOTA_.*)$/.test(key)) delete env[key];
  return env;
}

function startProcess(name: string, command: string, args: string[], env: NodeJS.ProcessEnv): PlatformProcess {
  // its own process group: tsx and the node it starts stop together
  const child = spawn(command, args, { cwd: serverDir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const proc = { name, child, out: '' };
  child.stdout?.on('data', (d: Buffer) => (proc.out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (proc.out += d.toString()));
  return proc;
}

async function ready(proc: PlatformProcess, line: RegExp, timeoutMs = 60_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = proc.out.match(line);
    if (match) return match;
    if (proc.child.exitCode !== null || Date.now() > deadline) throw new Error(`${proc.name} not ready (exit ${proc.child.exitCode}):\n${proc.out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const alive = (p: PlatformProcess) => p.child.exitCode === null && p.child.signalCode === null;

async function stopGroup(proc: PlatformProcess): Promise<void> {
  const pid = proc.child.pid;
  if (!pid) return;
  const gone = alive(proc) ? new Promise((r) => proc.child.once('exit', r)) : Promise.resolve();
  const kill = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // the group is gone already
    }
  };
  kill('SIGTERM');
  const forced = setTimeout(() => kill('SIGKILL'), 5_000);
  await gone;
  clearTimeout(forced);
  // a grandchild that outlived its parent
  kill('SIGKILL');
}

/** Sum of VmRSS over the processes of `pgid`'s group (tsx runs the launcher in a child node). */
function groupRssMb(pgid: number): number {
  let kb = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // fields after the command's closing parenthesis: state ppid pgrp ...
      const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      if (pgrp !== pgid) continue;
      const rss = readFileSync(`/proc/${entry}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
      kb += rss ? Number(rss[1]) : 0;
    } catch {
      // exited meanwhile
    }
  }
  return kb / 1024;
}

function magicLinkReader(procs: () => PlatformProcess[]) {
  return async (email: string, after = 0): Promise<string> => {
    const deadline = Date.now() + 10_000;
    const pattern = new RegExp(`\\[mailbox\\] to=${email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} .*? link=(\\S+)`, 'g');
    for (;;) {
      const links = [
        ...procs()
          .map((p) => p.out)
          .join('\n')
          .matchAll(pattern),
      ].map((m) => m[1]);
      if (links.length > after) return links[links.length - 1];
      if (Date.now() > deadline) throw new Error(`no magic link for ${email} in the console`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
}

function describeExits(procs: PlatformProcess[]): string[] {
  return procs
    .filter((p) => !alive(p))
    .map((p) => `${p.name} exited (code ${p.child.exitCode}, signal ${p.child.signalCode}): ${p.out.split('\n').slice(-15).join('\n')}`);
}

/** (a) `npm start`: the embedded launcher, every listener on a free port. */
export async function startEmbedded(): Promise<Platform> {
  const runDir = mkdtempSync(path.join(tmpdir(), 'aim-hostile-'));
  const names = ['api', 'supabase', ...FRONT_ENDS] as const;
  const ports: Record<string, number> = {};
  for (const name of names) ports[name] = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...cleanEnv(),
    ...LIMITS,
    DATA_DIR: path.join(runDir, 'pglite'),
    MEDIA_DIR: path.join(runDir, 'media'),
    PUBLIC_HOST: '127.0.0.1',
    API_PORT: String(ports.api),
    SUPABASE_PORT: String(ports.supabase),
    SHELL_PORT: String(ports.shell),
    ...Object.fromEntries(FRONT_ENDS.slice(1).map((name) => [`${name.replace('-', '_').toUpperCase()}_PORT`, String(ports[name])])),
  };
  // the static listeners exist only for front-ends that were built (main.ts, static-sites.ts)
  const missingFrontEnds = FRONT_ENDS.filter((name) => !existsSync(path.join(repoRoot, name, 'dist')));
  for (const name of missingFrontEnds) delete ports[name];
  const launcher = startProcess('launcher', path.join(serverDir, 'node_modules/.bin/tsx'), ['src/main.ts'], env);
  const processes = [launcher];
  const stop = async () => {
    await stopGroup(launcher);
    rmSync(runDir, { recursive: true, force: true });
  };
  try {
    await ready(launcher, /Ready in/, 90_000);
  } catch (e) {
    await stop();
    throw e;
  }
  return {
    layout: 'embedded',
    apiUrl: `http://127.0.0.1:${ports.api}`,
    supabaseUrl: `http://127.0.0.1:${ports.supabase}`,
    anonKey: DEFAULT_ANON_KEY,
    serviceRoleKey: DEFAULT_SERVICE_ROLE_KEY,
    ports,
    missingFrontEnds,
    processes,
    api: launcher,
    magicLink: magicLinkReader(() => processes),
    apiRssMb: () => groupRssMb(launcher.child.pid!),
    exited: () => describeExits(processes),
    stop,
  };
}

/**
 * (b) Production: PostgreSQL, the API process (`src/main.ts` with DATABASE_URL, production mode,
 * its own secrets, the local Supabase services on that PostgreSQL, no in-process worker) and
 * two worker processes (`src/workers/main.ts`).
 */
export async function startProduction(): Promise<Platform> {
  const mediaDir = mkdtempSync(path.join(tmpdir(), 'aim-hostile-media-'));
  let pg: RunningPostgres | undefined;
  const processes: PlatformProcess[] = [];
  const stop = async () => {
    await Promise.all(processes.map(stopGroup));
    await pg?.stop();
    rmSync(mediaDir, { recursive: true, force: true });
  };
  try {
    pg = await startPostgres();
    const jwtSecret = randomBytes(32).toString('hex');
    const keyClaims = (role: string) => ({ iss: 'supabase', role, exp: Math.floor(Date.now() / 1000) + 86_400 });
    const anonKey = await signJwt(keyClaims('anon'), jwtSecret);
    const serviceRoleKey = await signJwt(keyClaims('service_role'), jwtSecret);
    const ports = { api: await freePort(), supabase: await freePort() };
    const apiUrl = `http://127.0.0.1:${ports.api}`;
    const supabaseUrl = `http://127.0.0.1:${ports.supabase}`;
    const env: NodeJS.ProcessEnv = {
      ...cleanEnv(),
      ...LIMITS,
      DATABASE_URL: pg.url,
      // production mode: no dev mailbox, webhook targets checked, /metrics behind a token
      EMBEDDED: 'false',
      JWT_SECRET: jwtSecret,
      SUPABASE_ANON_KEY: anonKey,
      SUPABASE_SERVICE_ROLE_KEY: serviceRoleKey,
      SUPABASE_SECRET_KEY: `sb_secret_${randomBytes(16).toString('hex')}`,
      SUPABASE_PUBLISHABLE_KEY: `sb_publishable_${randomBytes(16).toString('hex')}`,
      ALTCHA_HMAC_KEY: randomBytes(16).toString('hex'),
      // fake money by explicit opt-in (a staging deployment); no Stripe here
      BILLING_PROVIDER: 'sandbox',
      HOST: '127.0.0.1',
      PUBLIC_HOST: '127.0.0.1',
      API_PORT: String(ports.api),
      SUPABASE_PORT: String(ports.supabase),
      API_PUBLIC_URL: apiUrl,
      SITE_URL: 'http://127.0.0.1:3000',
      SERVE_STATIC: 'false',
      IN_PROCESS_WORKER: 'false',
      MEDIA_DIR: mediaDir,
      // the tenants' receivers are on this machine
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
      WORKER_SHUTDOWN_GRACE_MS: '0',
    };
    const api = startProcess('api', process.execPath, ['--import', 'tsx', 'src/main.ts'], env);
    processes.push(api);
    await ready(api, /Ready in/);
    const workers = ['worker-1', 'worker-2'].map((name) => startProcess(name, process.execPath, ['--import', 'tsx', 'src/workers/main.ts'], env));
    processes.push(...workers);
    await Promise.all(workers.map((w) => ready(w, /"msg":"worker started"/)));
    return {
      layout: 'production',
      apiUrl,
      supabaseUrl,
      anonKey,
      serviceRoleKey,
      ports,
      missingFrontEnds: [],
      processes,
      api,
      magicLink: magicLinkReader(() => processes),
      apiRssMb: () => groupRssMb(api.child.pid!),
      exited: () => describeExits(processes),
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
