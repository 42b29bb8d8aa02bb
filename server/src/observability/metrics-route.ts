/**
 * @module GET /metrics on the API: the process's Prometheus metrics plus the queue gauges read
 * from the database at scrape time. Who may scrape: with METRICS_TOKEN set, only a request
 * with `Authorization: Bearer <METRICS_TOKEN>` (any mode); without it, anyone in embedded mode
 * (the API listens on loopback only there) and nobody otherwise (403 naming the setting), so a
 * server exposed to the world never shows its traffic, queue and credit figures by mistake.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Db } from '@aim/supabase/db';
import { Hono } from 'hono';
import type { AppEnv } from '../context.ts';
import { ApiError } from '../errors.ts';
import { renderMetrics, watchQueues } from './metrics.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time comparison of a presented token with the configured one. */
function tokenMatches(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}

export function metricsRoutes(deps: { db: Db; engines: { names: readonly string[] }; embedded: boolean; token: string | undefined }) {
  watchQueues(deps.db, deps.engines.names);
  const router = new Hono<AppEnv>();

  // GET /metrics – Prometheus scrape (docs/operations/observability.md)
  router.get('/metrics', async (c) => {
    if (deps.token) {
      const presented = /^Bearer (.+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
      if (!presented || !tokenMatches(presented, deps.token)) throw new ApiError('forbidden', 'A valid metrics token is required');
    } else if (!deps.embedded) {
      throw new ApiError('forbidden', 'Metrics are off: set METRICS_TOKEN to scrape them');
    }
    const { contentType, body } = await renderMetrics();
    return c.body(body, 200, { 'content-type': contentType, 'cache-control': 'no-store' });
  });

  return router;
}
