/**
 * @module One log line per request: method, path, status, duration, request id.
 * The path excludes the query string and no header or body is logged, so keys never reach the log.
 */
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../../context.ts';
import type { Logger } from '../../logger.ts';

export function requestLog(log: Logger) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      log.info('request', {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round(performance.now() - started),
        request_id: c.var.requestId,
      });
    }
  });
}
