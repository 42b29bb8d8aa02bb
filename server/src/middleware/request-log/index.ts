/**
 * @module One log line per request: method, path, route pattern, status, duration, request id;
 * and the request's metrics (aim_http_requests_total, aim_http_request_duration_seconds, by
 * route pattern, never the raw path). The path excludes the query string and no header or
 * body is logged, so keys never reach the log. Everything the request's handlers log (and the
 * task it submits: services/tasks/create-task.ts) carries its request id through the log
 * context. The id itself comes from hono's requestId() (app.ts): an incoming `X-Request-Id`
 * of at most 255 characters of [A-Za-z0-9_=-] is kept, anything else replaced by a new UUID,
 * and the response always carries it back.
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { matchedRoutes } from 'hono/route';
import type { AppEnv } from '../../context.ts';
import { type Logger, withLogContext } from '../../logger.ts';
import { recordHttpRequest } from '../../observability/metrics.ts';

/** What answered: the pattern of the last route (not middleware) that matched, or `unmatched`. */
function routeOf(c: Context): string {
  const route = matchedRoutes(c).findLast((r) => r.method !== 'ALL');
  return route?.path ?? 'unmatched';
}

export function requestLog(log: Logger) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const started = performance.now();
    const requestId = c.var.requestId;
    try {
      await withLogContext({ request_id: requestId }, () => next());
    } finally {
      const seconds = (performance.now() - started) / 1000;
      const route = routeOf(c);
      recordHttpRequest(c.req.method, route, c.res.status, seconds);
      log.info('request', {
        method: c.req.method,
        path: c.req.path,
        route,
        status: c.res.status,
        ms: Math.round(seconds * 1000),
        request_id: requestId,
      });
    }
  });
}
