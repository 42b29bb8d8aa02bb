/**
 * @module API-key authentication for a route: resolves the Authorization header to the
 * caller's account (`c.var.account`) or answers 401 through the error contract; then checks
 * the scope the route needs (403 insufficient_scope for a named key without it).
 */
import { createMiddleware } from 'hono/factory';
import type { Db } from '@aim/supabase/db';
import type { AuthedEnv } from '../../context.ts';
import { authenticateApiKey, requireScope, type KeyRequirement } from '../../services/auth/authenticate-api-key.ts';
import { limitAccount, routeClassOf } from '../rate-limit/index.ts';

/**
 * `need`: the scope the route needs (`generate` for submits and uploads, `read` for reads, or
 * any of a list). Default `primary`: a route that names no scope stays what it was before named
 * keys, for the account's primary key only, so a new route is never opened to named keys by
 * accident.
 *
 * @example
 * router.openapi(createRoute({ ..., security: apiKeySecurity, middleware: apiKeyAuth(deps, 'read') }), (c) => c.json(c.var.account, 200))
 */
export function apiKeyAuth(deps: { db: Db }, need: KeyRequirement = 'primary') {
  return createMiddleware<AuthedEnv>(async (c, next) => {
    const account = await authenticateApiKey(deps, c.req.header('authorization'));
    requireScope(account, need);
    await limitAccount(c, account, routeClassOf(need, c.req.method), 'key');
    c.set('account', account);
    await next();
  });
}
