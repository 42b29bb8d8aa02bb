import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { initMetrics } from '../src/observability/metrics.ts';
import { healthRoutes } from '../src/routes/health.ts';
import { createEngineRegistry } from '../src/services/tasks/engine-registry.ts';
import { healthPortFromEnv, startHealthServer, type HealthServer } from '../src/workers/health-server.ts';
import { testApp } from './helpers.ts';
import { openTestDb, scriptedEngine } from './support/tasks.ts';

const engines = createEngineRegistry([scriptedEngine()]);

/** A database that cannot be reached (the server restarting). */
const unreachable = {
  kind: 'postgres',
  query: () => Promise.reject(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })),
} as unknown as Db;

describe('readiness without a database', () => {
  it('should answer 503 naming the failed checks, while liveness stays 200', async () => {
    const app = healthRoutes({ db: unreachable, engines });
    expect((await app.request('/livez')).status).toBe(200);
    const res = await app.request('/readyz');
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      status: 'not_ready',
      checks: {
        database: { ok: false, detail: 'terminating connection due to administrator command' },
        migrations: { ok: false, detail: 'database unreachable' },
        engines: { ok: true, detail: 'local' },
      },
    });
  });

  it('should count a database that does not answer in time as unreachable', async () => {
    const hanging = { kind: 'postgres', query: () => new Promise(() => {}) } as unknown as Db;
    const res = await healthRoutes({ db: hanging, engines, timeoutMs: 50 }).request('/readyz');
    expect(res.status).toBe(503);
    expect(((await res.json()) as { checks: { database: unknown } }).checks.database).toEqual({ ok: false, detail: 'no answer within 50 ms' });
  });

  it('should read the worker health port from the environment: off unless set, loopback unless told', () => {
    expect(healthPortFromEnv({})).toBeUndefined();
    expect(healthPortFromEnv({ WORKER_HEALTH_PORT: '' })).toBeUndefined();
    expect(healthPortFromEnv({ WORKER_HEALTH_PORT: '9464' })).toEqual({ port: 9464, host: '127.0.0.1' });
    expect(healthPortFromEnv({ WORKER_HEALTH_PORT: '9464', WORKER_HEALTH_HOST: '0.0.0.0' })).toEqual({ port: 9464, host: '0.0.0.0' });
    expect(() => healthPortFromEnv({ WORKER_HEALTH_PORT: 'http' })).toThrow('WORKER_HEALTH_PORT must be a port number');
  });
});

describe.each(testDatabaseKinds())('liveness and readiness on %s', (kind) => {
  let db: Db;
  beforeAll(async () => {
    db = await openTestDb(kind);
  });
  afterAll(async () => {
    await db?.close();
  });

  it('should serve /livez and /readyz on the API: database, migrations and engines checked', async () => {
    const app = testApp(db);
    const live = await app.request('/livez');
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const ready = await app.request('/readyz');
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { status: string; checks: Record<string, { ok: boolean; detail?: string }> };
    expect(body.status).toBe('ready');
    expect(Object.keys(body.checks)).toEqual(['database', 'migrations', 'engines']);
    expect(Object.values(body.checks).every((c) => c.ok)).toBe(true);
    expect(body.checks.migrations.detail).toMatch(/^at \d{14}$/);
  });

  it('should not be ready on a database whose migrations are behind this build', async () => {
    const { rows } = await db.query<{ version: string; name: string; statements: string[] }>(
      'select version, name, statements from supabase_migrations.schema_migrations order by version desc limit 1',
    );
    const latest = rows[0];
    await db.query('delete from supabase_migrations.schema_migrations where version = $1', [latest.version]);
    try {
      const res = await healthRoutes({ db, engines }).request('/readyz');
      expect(res.status).toBe(503);
      const body = (await res.json()) as { checks: { migrations: { ok: boolean; detail: string } } };
      expect(body.checks.migrations.ok).toBe(false);
      expect(body.checks.migrations.detail).toContain(`expected ${latest.version}`);
    } finally {
      await db.query('insert into supabase_migrations.schema_migrations (version, name, statements) values ($1, $2, $3)', [
        latest.version,
        latest.name,
        latest.statements,
      ]);
    }
  });

  it('should serve /livez, /readyz and /metrics on a worker health port, not ready while draining', async () => {
    initMetrics('worker');
    let draining = false;
    const server: HealthServer = await startHealthServer(
      { db, engines, unavailable: () => (draining ? 'draining: shutting down' : undefined) },
      { port: 0, host: '127.0.0.1' },
    );
    try {
      const base = `http://127.0.0.1:${server.port}`;
      expect((await fetch(`${base}/livez`)).status).toBe(200);
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { checks: Record<string, unknown> }).checks.accepting_work).toEqual({ ok: true });
      const metrics = await fetch(`${base}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.headers.get('content-type')).toContain('text/plain');
      expect(await metrics.text()).toContain('role="worker"');
      draining = true;
      const drained = await fetch(`${base}/readyz`);
      expect(drained.status).toBe(503);
      expect(((await drained.json()) as { checks: Record<string, unknown> }).checks.accepting_work).toEqual({ ok: false, detail: 'draining: shutting down' });
      expect((await fetch(`${base}/livez`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
