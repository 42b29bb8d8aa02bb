/**
 * @module Liveness and readiness probes, served by the API (mounted in app.ts) and by each
 * worker process's health port (workers/health-server.ts). Operational endpoints, kept out of
 * the OpenAPI document like /openapi.json.
 *
 * - `GET /livez`: the process is up and its event loop answers (no database round trip):
 *   200 `{ "status": "ok" }`. Restart the process when it fails.
 * - `GET /readyz`: the process can do its work: the database answers, its migrations are at
 *   the version this build expects, engines are configured (and, for a worker, it is not
 *   draining). 200 when ready, 503 when not, with each check named in the body:
 *   `{ "status": "ready" | "not_ready", "checks": { "database": { "ok": true }, … } }`.
 *   Take the process out of rotation meanwhile (a PostgreSQL restart: it reconnects by itself).
 */
import { listMigrations, type Db } from '@aim/supabase/db';
import { Hono } from 'hono';
import type { EngineRegistry } from '../services/tasks/engine-registry.ts';

export interface HealthDeps {
  db: Db;
  engines: EngineRegistry;
  /** Why this process should take no work now (a worker draining on SIGTERM), or undefined. */
  unavailable?: () => string | undefined;
  /** How long the database checks may take before counting as failed. Default 2 s. */
  timeoutMs?: number;
}

interface Check {
  ok: boolean;
  detail?: string;
}

interface Readiness {
  status: 'ready' | 'not_ready';
  checks: Record<string, Check>;
}

let expectedVersion: Promise<string | undefined> | undefined;

/** The newest migration this build ships (read once). */
function expectedMigration(): Promise<string | undefined> {
  expectedVersion ??= listMigrations().then((files) => files.at(-1)?.split('_')[0]);
  return expectedVersion;
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Runs every readiness check; never throws. */
async function readiness(deps: HealthDeps): Promise<Readiness> {
  const timeoutMs = deps.timeoutMs ?? 2000;
  const checks: Record<string, Check> = {};
  let applied: string | undefined;
  try {
    const { rows } = await withTimeout(
      deps.db.query<{ version: string | null }>('select max(version) as version from supabase_migrations.schema_migrations'),
      timeoutMs,
    );
    applied = rows[0]?.version ?? undefined;
    checks.database = { ok: true };
  } catch (error) {
    checks.database = { ok: false, detail: message(error) };
  }
  if (checks.database.ok) {
    const expected = await expectedMigration();
    checks.migrations =
      applied === expected ? { ok: true, detail: `at ${expected}` } : { ok: false, detail: `at ${applied ?? 'none'}, expected ${expected ?? 'none'}` };
  } else {
    checks.migrations = { ok: false, detail: 'database unreachable' };
  }
  const names = deps.engines.names;
  checks.engines = names.length > 0 ? { ok: true, detail: names.join(', ') } : { ok: false, detail: 'no engine configured' };
  const reason = deps.unavailable?.();
  if (deps.unavailable) checks.accepting_work = reason ? { ok: false, detail: reason } : { ok: true };
  return { status: Object.values(checks).every((c) => c.ok) ? 'ready' : 'not_ready', checks };
}

export function healthRoutes(deps: HealthDeps) {
  const app = new Hono();
  app.get('/livez', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const result = await readiness(deps);
    return c.json(result, result.status === 'ready' ? 200 : 503);
  });
  return app;
}
