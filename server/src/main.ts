// The platform in one process (embedded mode, the `npm start` default; embedded-mode.ts): PGlite,
// the local Supabase-compatible services, the provider API and the built front-ends, each on its port.
// Production runs the same API against hosted Supabase + PostgreSQL (see README.md).
import type { Server } from 'node:http';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { createLocalSupabase, defaultLocalConfig, DEFAULT_ANON_KEY, DevMailbox, guardHttpServer } from '@aim/supabase';
import { migrate, openPglite, openPostgres, type Db } from '@aim/supabase/db';
import { createApiApp } from './app.ts';
import { createBilling } from './services/billing/billing.ts';
import { describeMode, launcherModeFromEnv, type LauncherMode } from './embedded-mode.ts';
import { devToolsAllowed, exposureRefusal, localServicesConfig, missingSecrets } from './local-services.ts';
import { consoleLogger } from './logger.ts';
import { installProcessGuards } from './process-guards.ts';
import { devMailboxMailer } from './mail/mailer.ts';
import { initMetrics } from './observability/metrics.ts';
import { siteDir, startStaticSites } from './static-sites.ts';
import { createRemoteRecords } from './remotes/remote-records.ts';
import { remoteDataDirs, remoteSitesFromEnv } from './remotes/sites.ts';
import { createTaskEventHub } from './services/task-events/task-event-hub.ts';
import { createImageFetcher } from './storage/image-fetcher.ts';
import { createWebhookService } from './webhooks/index.ts';
import { sendTaskWebhooks } from './webhooks/task-webhooks.ts';
import { createAutoTopUpSweeper } from './workers/auto-topup-sweeper.ts';
import { createTaskSweeper, taskSweepFromEnv } from './workers/task-sweeper.ts';
import { createIdempotencySweeper } from './workers/idempotency-sweeper.ts';
import { startUploadSweeper } from './workers/upload-sweeper.ts';
import { createTaskWorker } from './workers/task-worker.ts';
import { clusterLimitsFromEnv, concurrencyFromEnv, enginesFromEnv, mediaStoreFromEnv, workerTimingFromEnv } from './workers/runtime.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const env = process.env;
const num = (v: string | undefined, d: number) => (v && /^\d+$/.test(v) ? Number(v) : d);

const HOST = env.HOST ?? '127.0.0.1';
// The name people type in the browser. Cookies, storage keys and CORS depend on it, so
// every URL we hand out uses it consistently.
const PUBLIC_HOST = env.PUBLIC_HOST ?? 'localhost';
const ports = {
  supabase: num(env.SUPABASE_PORT, 54321),
  api: num(env.API_PORT, 8080),
  shell: num(env.SHELL_PORT, 3000),
};
// each remote's name, port and origin (MFE_*_PORT, MFE_*_URL), shared with scripts/remote-release.mjs
const REMOTES = remoteSitesFromEnv(env);

const origin = (port: number) => `http://${PUBLIC_HOST}:${port}`;
const hostedSupabaseUrl = env.SUPABASE_URL; // set → hosted Supabase, no local services
const supabaseUrl = hostedSupabaseUrl ?? origin(ports.supabase);
const apiBaseUrl = env.API_PUBLIC_URL ?? origin(ports.api);
const shellUrl = env.SITE_URL ?? origin(ports.shell);
// Embedded mode: PGlite and the local services (no DATABASE_URL, no SUPABASE_URL), or EMBEDDED=true|false
// (embedded-mode.ts), never the bind address, which a reverse proxy on this machine hides. In
// production: no dev mailbox, no sandbox billing unless BILLING_PROVIDER=sandbox, no simulated
// engines unless allowed, webhook targets checked, /metrics behind METRICS_TOKEN.
let mode: LauncherMode;
try {
  mode = launcherModeFromEnv(env);
} catch (e) {
  console.error((e as Error).message);
  process.exit(1);
}
const embedded = mode.embedded;
// The dev tools (/_dev) also need loopback and the embedded database: on DATABASE_URL the
// mailbox would hand out anyone's magic link (local-services.ts).
const devTools = embedded && devToolsAllowed(HOST, env);
const devMailboxUrl = devTools ? `${supabaseUrl}/_dev/mailbox` : undefined;

async function openDb(): Promise<Db> {
  if (env.DATABASE_URL) return openPostgres(env.DATABASE_URL);
  const dataDir = path.resolve(repoRoot, env.DATA_DIR ?? '.data/pglite');
  mkdirSync(dataDir, { recursive: true });
  return openPglite(dataDir);
}

function listen(fetch: (req: Request) => Response | Promise<Response>, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = guardHttpServer(serve({ fetch, port, hostname: HOST }, () => resolve(server as Server)) as Server);
    server.once('error', reject);
  });
}

/**
 * Why the local services must not start: their default secrets are public, fine for embedded
 * mode on loopback only. In production a loopback bind proves nothing (a reverse proxy may
 * publish it), so there they need private secrets wherever they listen.
 */
function localServicesRefusal(): string | undefined {
  if (embedded || missingSecrets('0.0.0.0', env).length === 0) return exposureRefusal(HOST, env);
  return [
    `Refusing to start: in production mode the local Supabase services may be reached through a proxy whatever HOST is, and their default keys are public.`,
    `Set ${missingSecrets('0.0.0.0', env).join(', ')} to private values, or set EMBEDDED=true for a development set-up on this machine.`,
  ].join('\n');
}

async function main() {
  const started = Date.now();
  const refusal = hostedSupabaseUrl
    ? env.JWT_SECRET
      ? undefined
      : "Set JWT_SECRET to the Supabase project's JWT secret: it verifies the dashboard sessions that billing, key and webhook calls require."
    : localServicesRefusal();
  if (refusal) {
    console.error(refusal);
    process.exit(1);
  }
  const db = await openDb();
  // Local mode owns its schema; against hosted Supabase migrations go through `supabase db push`.
  if (!hostedSupabaseUrl || env.MIGRATE_ON_START === 'true') {
    const applied = await migrate(db, { local: !hostedSupabaseUrl });
    if (applied.length) console.log(`[db] applied ${applied.length} migration(s): ${applied.join(', ')}`);
  }
  const anonKey = env.SUPABASE_ANON_KEY ?? DEFAULT_ANON_KEY;
  const closers: Array<() => Promise<unknown>> = [];

  // one dev mailbox for the local auth's magic links and the API's own mail (the low-balance
  // alert), served at /_dev/mailbox in embedded mode only; elsewhere the API's mail is log-only
  const mailbox = devMailboxUrl ? new DevMailbox({ log: (line) => console.log(line) }) : undefined;
  if (!hostedSupabaseUrl) {
    const config = {
      ...localServicesConfig(HOST, env, defaultLocalConfig({ publicUrl: supabaseUrl, siteUrl: shellUrl, redirectAllowList: [`${shellUrl}/**`] })),
      // /_dev follows the mode too (EMBEDDED=false turns it off on loopback)
      embedded: devTools,
    };
    const services = createLocalSupabase({ db, config, ...(mailbox ? { mailbox } : {}) });
    const server = await listen(services.fetch, ports.supabase);
    services.attachRealtime(server);
    closers.push(services.close, () => new Promise((r) => server.close(r)));
  }

  initMetrics('api');
  const log = consoleLogger('api');
  const media = mediaStoreFromEnv(apiBaseUrl);
  const engines = enginesFromEnv();
  const billing = createBilling({ db, log, embedded, ...(mailbox ? { mailer: devMailboxMailer(mailbox) } : {}) });
  // its live event streams end before the server closes (server.close waits for every open connection)
  const taskEvents = createTaskEventHub({ db, log });
  const api = createApiApp({
    db,
    taskEvents,
    media,
    engines,
    log,
    billing,
    config: {
      embedded,
      corsOrigins: (env.CORS_ORIGINS ?? shellUrl).split(',').map((s) => s.trim()),
      publicUrl: apiBaseUrl,
      allowSimulatedEngines: env.ALLOW_SIMULATED_ENGINES === 'true',
      // verifies the dashboard sessions that money and credential calls require
      jwtSecret: env.JWT_SECRET || undefined,
    },
  });
  const apiServer = await listen(api.fetch, ports.api);
  closers.push(() => new Promise((r) => apiServer.close(r)));
  closers.push(() => taskEvents.close());

  // Webhook dispatch runs with every API instance; private targets only in embedded mode,
  // where a developer points webhooks at a receiver on their own machine, or when allowed
  // explicitly as for a worker process (WEBHOOKS_ALLOW_PRIVATE_TARGETS=true).
  const webhooks = createWebhookService({ db, log, allowPrivateTargets: embedded || env.WEBHOOKS_ALLOW_PRIVATE_TARGETS === 'true' });
  webhooks.start();
  closers.push(() => webhooks.stop());
  // Every API instance also sweeps tasks no worker will take (services/tasks/expire-stuck-tasks.ts).
  const sweeper = createTaskSweeper({ db, log, ...taskSweepFromEnv(env) });
  sweeper.start();
  closers.push(() => sweeper.stop());
  // ... and finishes auto top-up charges whose answer and webhook were both lost (workers/auto-topup-sweeper.ts)
  const autoTopUps = createAutoTopUpSweeper(billing);
  autoTopUps.start();
  closers.push(() => autoTopUps.stop());
  const uploadSweeper = startUploadSweeper({ db, media, log }); // expired, unreferenced uploads (workers/upload-sweeper.ts)
  closers.push(() => uploadSweeper.stop());
  const idempotencySweeper = createIdempotencySweeper({ db, log }); // idempotency keys past 24 hours (workers/idempotency-sweeper.ts)
  idempotencySweeper.start();
  closers.push(() => idempotencySweeper.stop());
  // Embedded mode runs the task worker in this process; production runs `npm run worker` too.
  if (env.IN_PROCESS_WORKER !== 'false') {
    // embedded mode: faceswap may read pictures over http and from this machine's network
    const imageFetcher = createImageFetcher({ media, embedded });
    const worker = createTaskWorker({
      db,
      media,
      engines,
      concurrency: concurrencyFromEnv(engines),
      clusterLimits: clusterLimitsFromEnv(engines),
      // Ctrl+C stops at once unless WORKER_SHUTDOWN_GRACE_MS says otherwise
      ...workerTimingFromEnv(env, { shutdownGraceMs: 0 }),
      // the worker's lines say role worker, in this process too
      log: log.child({ role: 'worker' }),
      imageFetcher,
    });
    sendTaskWebhooks({ db, events: worker, webhooks, log: log.child({ role: 'worker' }) });
    await worker.start();
    closers.push(() => worker.stop());
  }

  if (env.SERVE_STATIC !== 'false') {
    const defaultRemotes = Object.fromEntries(REMOTES.map((r) => [r.mf, `${r.origin}/mf-manifest.json`]));
    // Each team's record (<REMOTES_CONFIG_DIR>/<mf name>.json, written by scripts/remote-release.mjs)
    // laid over the defaults once validated; a refused record keeps that remote's last good entry.
    const { configDir, releasesDir } = remoteDataDirs(env, repoRoot, embedded);
    const records = configDir ? createRemoteRecords({ dir: configDir, sites: REMOTES, releasesDir, log: (line) => console.log(line) }) : undefined;
    const sites = await startStaticSites({
      host: HOST,
      runtimeConfigFile: env.RUNTIME_CONFIG_FILE,
      sites: [
        { name: 'shell', port: ports.shell, dir: siteDir(repoRoot, 'shell') },
        ...REMOTES.map((r) => ({
          name: r.name,
          port: r.port,
          dir: siteDir(repoRoot, r.name),
          ...(releasesDir ? { releasesDir: path.join(releasesDir, r.folder) } : {}),
        })),
      ],
      runtimeConfig: async () => ({
        mode: embedded ? 'embedded' : 'production',
        supabaseUrl,
        supabaseAnonKey: anonKey,
        apiBaseUrl,
        captcha: hostedSupabaseUrl
          ? { provider: 'turnstile', siteKey: env.TURNSTILE_SITE_KEY ?? '' }
          : { provider: 'altcha', challengeUrl: `${supabaseUrl}/auth/v1/captcha/challenge` },
        remotes: records ? await records.remotes(defaultRemotes) : defaultRemotes,
        previewAllowList: (env.PREVIEW_ALLOW_LIST ?? `http://${PUBLIC_HOST}:*,http://127.0.0.1:*`).split(',').map((s) => s.trim()),
        docsUrl: env.DOCS_URL ?? `${apiBaseUrl}/docs`,
        ...(devMailboxUrl ? { mailboxUrl: devMailboxUrl } : {}),
      }),
    });
    closers.push(sites.close);
  }

  const lines = [
    '',
    `  ${describeMode(mode, env)}`,
    `  Dashboard        ${shellUrl}`,
    `  Provider API     ${apiBaseUrl}   (docs ${apiBaseUrl}/docs)`,
    hostedSupabaseUrl ? `  Supabase         ${supabaseUrl} (hosted)` : `  Local Supabase   ${supabaseUrl}   (auth, rest, realtime)`,
    devMailboxUrl ? `  Dev mailbox      ${devMailboxUrl}   (magic links land here)` : '',
    `  Runtime config   ${shellUrl}/runtime-config.json`,
    ...(env.SERVE_STATIC !== 'false' && remoteDataDirs(env, repoRoot, embedded).configDir
      ? [`  Remote records   ${remoteDataDirs(env, repoRoot, embedded).configDir}   (node scripts/remote-release.mjs deploy <remote>)`]
      : []),
    `  Database         ${env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${env.DATA_DIR ?? '.data/pglite'}`}`,
    '',
    `  Ready in ${((Date.now() - started) / 1000).toFixed(1)} s. Open ${shellUrl} — Ctrl+C stops everything.`,
    '',
  ].filter((l, i, a) => l !== '' || a[i - 1] !== '');
  console.log(lines.join('\n'));

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping…');
    for (const close of closers.reverse()) await close().catch(() => {});
    await db.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

installProcessGuards(consoleLogger('api'));
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
