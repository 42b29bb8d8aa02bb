/**
 * A task worker in its own process for the crash test of the queue suite: the scripted
 * engine, a short lease, on the PostgreSQL of DATABASE_URL. Prints `ready` once polling.
 */
import { openPostgres } from '@aim/supabase/db';
import { createEngineRegistry } from '../../src/services/tasks/engine-registry.ts';
import { createDiskMediaStore } from '../../src/storage/disk-media-store.ts';
import { createTaskWorker } from '../../src/workers/task-worker.ts';
import { scriptedEngine } from './scripted-engine.ts';

const env = process.env;
const db = await openPostgres(env.DATABASE_URL!);
const worker = createTaskWorker({
  db,
  media: createDiskMediaStore({ dir: env.MEDIA_DIR!, publicUrl: 'http://localhost:8080' }),
  engines: createEngineRegistry([scriptedEngine()]),
  leaseMs: Number(env.LEASE_MS),
  pollMs: 100,
  concurrency: { local: 2 },
  log: { info: () => {}, error: (msg, fields) => console.error(msg, JSON.stringify(fields)) },
});
await worker.start();
console.log('ready');
