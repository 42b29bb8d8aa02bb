/**
 * @module A worker process's small HTTP port for probes and scrapes: `GET /livez`, `GET /readyz`
 * (routes/health.ts; not ready while the database is away or the worker drains) and
 * `GET /metrics` (observability/metrics.ts).
 *
 * Environment: WORKER_HEALTH_PORT (unset or empty: no port; 0: any free port), WORKER_HEALTH_HOST
 * (default 127.0.0.1, loopback: set 0.0.0.0 for a probe or scraper on another machine).
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { renderMetrics } from '../observability/metrics.ts';
import { type HealthDeps, healthRoutes } from '../routes/health.ts';

export interface HealthServer {
  /** The port it listens on. */
  readonly port: number;
  close(): Promise<void>;
}

/** Where the health port listens, from the environment; undefined when it is off. */
export function healthPortFromEnv(env: NodeJS.ProcessEnv = process.env): { port: number; host: string } | undefined {
  const port = env.WORKER_HEALTH_PORT;
  if (port === undefined || port === '') return undefined;
  if (!/^\d+$/.test(port) || Number(port) > 65535) throw new Error(`WORKER_HEALTH_PORT must be a port number, got ${JSON.stringify(port)}`);
  return { port: Number(port), host: env.WORKER_HEALTH_HOST || '127.0.0.1' };
}

export async function startHealthServer(deps: HealthDeps, where: { port: number; host: string }): Promise<HealthServer> {
  const app = healthRoutes(deps);
  app.get('/metrics', async (c) => {
    const { contentType, body } = await renderMetrics();
    return c.body(body, 200, { 'content-type': contentType });
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: where.port, hostname: where.host }, () => resolve(s as Server)) as Server;
    s.once('error', reject);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
