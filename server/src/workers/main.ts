// The task worker as its own process (production: `pnpm --filter @aim/server worker`), on
// the PostgreSQL of DATABASE_URL. Run as many as you like; they share the job queue, and each
// adds WORKER_CONCURRENCY jobs per engine (docs/operations/scaling.md). Embedded mode runs the
// same worker inside main.ts instead. Each worker process also dispatches webhooks and sweeps
// stuck tasks (as every API instance does), and serves /livez, /readyz and /metrics on
// WORKER_HEALTH_PORT when set (health-server.ts).
//
// SIGTERM (or SIGINT) drains: no new claims, running jobs get WORKER_SHUTDOWN_GRACE_MS to
// finish, the rest go back to their place in the queue, then the pool closes once the last
// event handlers are done. A PostgreSQL restart is waited out (every part reconnects).
import { type Db, openPostgres, retryOnConnectionLoss } from '@aim/supabase/db';
import { consoleLogger, type Logger } from '../logger.ts';
import { initMetrics } from '../observability/metrics.ts';
import { installProcessGuards } from '../process-guards.ts';
import { healthPortFromEnv, startHealthServer } from './health-server.ts';
import { clusterLimitsFromEnv, concurrencyFromEnv, enginesFromEnv, mediaStoreFromEnv, workerTimingFromEnv } from './runtime.ts';
import { queueFairnessFromEnv } from './queue-fairness.ts';
import { createTaskSweeper, taskSweepFromEnv } from './task-sweeper.ts';
import { createTaskWorker } from './task-worker.ts';
import { timeLimitsFromEnv } from './time-limits.ts';
import { createWebhookService } from '../webhooks/index.ts';
import { sendTaskWebhooks } from '../webhooks/task-webhooks.ts';

const env = process.env;

/** Waits for a database that is still starting: 250 ms doubling to 5 s, about 40 s in all. */
const CONNECT_DELAYS_MS = [250, 500, 1000, 2000, 4000, 5000, 5000, 5000, 5000, 5000, 5000, 5000];

/** Opens the pool, waiting (with backoff) for a database that is still starting. */
function connect(url: string, log: Logger): Promise<Db> {
  return retryOnConnectionLoss(() => openPostgres(url), {
    delaysMs: CONNECT_DELAYS_MS,
    onRetry: (error, attempt) =>
      log.error('database unreachable', { error: error instanceof Error ? error.message : String(error), retry_in_ms: CONNECT_DELAYS_MS[attempt - 1] }),
  });
}

async function main() {
  if (!env.DATABASE_URL) throw new Error('DATABASE_URL is required (the worker runs on PostgreSQL)');
  initMetrics('worker');
  const publicUrl = env.API_PUBLIC_URL ?? `http://localhost:${env.API_PORT ?? '8080'}`;
  const healthAt = healthPortFromEnv(env);
  const timing = workerTimingFromEnv(env);
  const log = consoleLogger('worker');
  const db = await connect(env.DATABASE_URL, log);
  const engines = enginesFromEnv(env);
  const sweeper = createTaskSweeper({ db, log, ...taskSweepFromEnv(env) });
  const worker = createTaskWorker({
    db,
    media: mediaStoreFromEnv(publicUrl, env),
    engines,
    concurrency: concurrencyFromEnv(engines, env),
    clusterLimits: clusterLimitsFromEnv(engines, env),
    timeLimits: timeLimitsFromEnv(engines.names, env),
    ...timing,
    fairness: queueFairnessFromEnv(env),
    log,
  });
  // progress and completion webhooks are enqueued here; any API instance or worker dispatches them
  const webhooks = createWebhookService({ db, log, allowPrivateTargets: env.WEBHOOKS_ALLOW_PRIVATE_TARGETS === 'true' });
  sendTaskWebhooks({ db, events: worker, webhooks, log });
  webhooks.start();
  await worker.start();
  sweeper.start();
  const health = healthAt
    ? await startHealthServer({ db, engines, unavailable: () => (worker.stopping ? 'draining: shutting down' : undefined) }, healthAt)
    : undefined;
  log.info('worker started', { worker_id: worker.id, engines: engines.names.join(','), health: health ? `${healthAt?.host}:${health.port}` : undefined });

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await sweeper.stop();
    await worker.stop();
    await webhooks.stop();
    await health?.close();
    await db.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

// an uncaught exception exits 1 (the supervisor restarts the worker), a stray rejection is logged (process-guards.ts)
installProcessGuards(consoleLogger('worker'));
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
