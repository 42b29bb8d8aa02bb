/**
 * @module The route config every call that creates a task shares: the API key with the
 * generate scope, then the Idempotency-Key (middleware/idempotency), documented as the
 * operation's header parameter.
 */
import type { MiddlewareHandler } from 'hono';
import type { Db } from '@aim/supabase/db';
import type { AuthedEnv } from '../context.ts';
import type { Logger } from '../logger.ts';
import { apiKeyAuth } from '../middleware/api-key-auth/index.ts';
import { idempotency } from '../middleware/idempotency/index.ts';
import { idempotencyKeyParameter } from '../openapi/idempotency.ts';
import { apiKeySecurity } from '../openapi/schemas.ts';

/**
 * @example
 * const authed = submitAuth(deps)
 * router.openapi(createRoute({ method: 'post', path: '/pro/imagine', ...authed, request, responses }), handler)
 */
export function submitAuth(deps: { db: Db; log: Logger }) {
  return {
    security: apiKeySecurity,
    // a mutable tuple: createRoute takes no readonly array, and a tuple keeps the handlers' env (c.var.account)
    middleware: [apiKeyAuth(deps, 'generate'), idempotency(deps)] as [MiddlewareHandler<AuthedEnv>, MiddlewareHandler<AuthedEnv>],
    parameters: [idempotencyKeyParameter],
  };
}
