// The task worker as its own process (production: `pnpm --filter @aim/server worker`), on
// the PostgreSQL of DATABASE_URL. Run as many as you like; they share the job queue.
// Embedded mode runs the same worker inside main.ts instead. Each worker process also
// dispatches webhooks and sweeps stuck tasks (as every API instance does).
import { openPostgres } from '@aim/supabase/db';
import { consoleLogger } from '../logger.ts';
import { concurrencyFromEnv, enginesFromEnv, mediaStoreFromEnv } from './runtime.ts';
import { queueFairnessFromEnv } from './queue-fairness.ts';
import { createTaskSweeper, taskSweepFromEnv } from './task-sweeper.ts';
import { createTaskWorker } from './task-worker.ts';
import { createWebhookService } from '../webhooks/index.ts';
import { sendTaskWebhooks } from '../webhooks/task-webhooks.ts';

const env = process.env;

async function main() {
  if (!env.DATABASE_URL) throw new Error('DATABASE_URL is required (the worker runs on PostgreSQL)');
  const publicUrl = env.API_PUBLIC_URL ?? `http://localhost:${env.API_PORT ?? '8080'}`;
  const db = await openPostgres(env.DATABASE_URL);
  const engines = enginesFromEnv(env);
  const log = consoleLogger();
  const sweeper = createTaskSweeper({ db, log, ...taskSweepFromEnv(env) });
  const worker = createTaskWorker({
    db,
    media: mediaStoreFromEnv(publicUrl, env),
    engines,
    concurrency: concurrencyFromEnv(engines, env),
    fairness: queueFairnessFromEnv(env),
    log,
  });
  // progress and completion webhooks are enqueued here; any API instance or worker dispatches them
  const webhooks = createWebhookService({ db, log, allowPrivateTargets: env.WEBHOOKS_ALLOW_PRIVATE_TARGETS === 'true' });
  sendTaskWebhooks({ db, events: worker, webhooks, log });
  webhooks.start();
  await worker.start();
  sweeper.start();
  console.log(`[worker] ${worker.id} running engines ${engines.names.join(', ')}`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await sweeper.stop();
    await worker.stop();
    await webhooks.stop();
    await db.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
