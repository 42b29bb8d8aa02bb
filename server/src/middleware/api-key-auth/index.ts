/**
 * @module API-key authentication for a route: resolves the Authorization header to the
 * caller's account (`c.var.account`) or answers 401 through the error contract; then checks
 * the scope the route needs (403 insufficient_scope for a named key without it).
 */
import { createMiddleware } from 'hono/factory';
import type { Db } from '@aim/supabase/db';
import type { AuthedEnv } from '../../context.ts';
import { rateLimitRepository } from '../../repositories/rate-limit-repository.ts';
import { primaryAccount } from '../../repositories/user-repository.ts';
import { estimatingAccount } from '../../services/pricing/estimate.ts';
import { authenticateApiKey, requireScope, type KeyRequirement, type PrimaryKeyLookup } from '../../services/auth/authenticate-api-key.ts';
import { ACCOUNT_PLACEHOLDER, limitAccount, primaryKeyLimit, routeClassOf } from '../rate-limit/index.ts';

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
  const rateLimits = rateLimitRepository(deps.db);
  return createMiddleware<AuthedEnv>(async (c, next) => {
    // a POST /estimate dry run of this call: its caller was authenticated (read scope) and counted there
    const estimating = estimatingAccount();
    if (estimating) {
      c.set('account', estimating);
      return next();
    }
    const routeClass = routeClassOf(need, c.req.method);
    // the primary key's limits are counted by the statement that looks it up (it has every
    // scope, so requireScope cannot refuse it after the count)
    const limit = primaryKeyLimit(c, routeClass);
    const findPrimary: PrimaryKeyLookup | undefined =
      limit &&
      (async (key) => {
        const found = await rateLimits.findPrimaryKeyCounting(key, { ...limit, accountPlaceholder: ACCOUNT_PLACEHOLDER });
        if (!found) return undefined;
        limit.settle(found.id, found.rows);
        return primaryAccount(found);
      });
    const account = await authenticateApiKey(deps, c.req.header('authorization'), findPrimary);
    requireScope(account, need);
    if (account.keyId !== null || !limit) await limitAccount(c, account, routeClass, 'key');
    c.set('account', account);
    await next();
  });
}
