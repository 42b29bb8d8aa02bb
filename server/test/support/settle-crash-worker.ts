/**
 * A worker process as workers/main.ts builds it (task worker + webhook events) on the
 * PostgreSQL of DATABASE_URL that SIGKILLs itself right after the first task settlement
 * commits: the crash between settlement and webhook dispatch. Its dispatcher is not
 * started: the test's process dispatches (a dispatcher killed in the middle of a send would
 * send that event again, at least once, which is another crash than this one).
 */
import { openPostgres } from '@aim/supabase/db';
import { createEngineRegistry } from '../../src/services/tasks/engine-registry.ts';
import { createDiskMediaStore } from '../../src/storage/disk-media-store.ts';
import { createWebhookService } from '../../src/webhooks/index.ts';
import { sendTaskWebhooks } from '../../src/webhooks/task-webhooks.ts';
import { createTaskWorker } from '../../src/workers/task-worker.ts';
import { crashAfterSettlement } from './crash-after-settlement.ts';
import { scriptedEngine } from './scripted-engine.ts';

const env = process.env;
const db = crashAfterSettlement(await openPostgres(env.DATABASE_URL!), () => {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable: killed');
});
const log = { info: () => {}, error: (msg: string, fields?: Record<string, unknown>) => console.error(msg, JSON.stringify(fields)) };
const worker = createTaskWorker({
  db,
  media: createDiskMediaStore({ dir: env.MEDIA_DIR!, publicUrl: 'http://localhost:8080' }),
  engines: createEngineRegistry([scriptedEngine()]),
  pollMs: 100,
  log,
});
const webhooks = createWebhookService({ db, log, allowPrivateTargets: true });
sendTaskWebhooks({ db, events: worker, webhooks, log });
await worker.start();
