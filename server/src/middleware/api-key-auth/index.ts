/**
 * @module API-key authentication for a route: resolves the Authorization header to the
 * caller's account (`c.var.account`) or answers 401 through the error contract.
 */
import { createMiddleware } from 'hono/factory';
import type { Db } from '@aim/supabase/db';
import type { AuthedEnv } from '../../context.ts';
import { authenticateApiKey } from '../../services/auth/authenticate-api-key.ts';

/**
 * @example
 * router.openapi(createRoute({ ..., security: apiKeySecurity, middleware: apiKeyAuth(deps) }), (c) => c.json(c.var.account, 200))
 */
export function apiKeyAuth(deps: { db: Db }) {
  return createMiddleware<AuthedEnv>(async (c, next) => {
    c.set('account', await authenticateApiKey(deps, c.req.header('authorization')));
    await next();
  });
}
