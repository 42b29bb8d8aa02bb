/**
 * @module Dashboard-session authentication for the calls that move money or change
 * credentials: sets `c.var.account` like apiKeyAuth, but only for a signed-in dashboard
 * session (X-Session-Token); the API key alone answers 403 session_required.
 */
import { createMiddleware } from 'hono/factory';
import type { Db } from '@aim/supabase/db';
import type { ApiConfig } from '../../config.ts';
import { jwtSecretOf } from '../../config.ts';
import type { AuthedEnv } from '../../context.ts';
import { authenticateSession, SESSION_HEADER } from '../../services/auth/authenticate-session.ts';
import { limitAccount, routeClassOf } from '../rate-limit/index.ts';

/**
 * @example
 * router.openapi(createRoute({ ..., security: dashboardSecurity, middleware: sessionAuth(deps) }), handler)
 */
export function sessionAuth(deps: { db: Db; config: ApiConfig }) {
  const jwtSecret = jwtSecretOf(deps.config);
  return createMiddleware<AuthedEnv>(async (c, next) => {
    const account = await authenticateSession(
      { db: deps.db, jwtSecret },
      { authorization: c.req.header('authorization'), session: c.req.header(SESSION_HEADER) },
    );
    await limitAccount(c, account, routeClassOf('primary', c.req.method), 'session');
    c.set('account', account);
    await next();
  });
}
