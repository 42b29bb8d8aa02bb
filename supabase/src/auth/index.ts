import { Hono, type Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { LocalContext } from '../context.ts';
import { requireApiKey, resolveBearer } from '../gateway.ts';
import { verifyJwt, type JwtClaims } from '../keys.ts';
import { createCaptcha } from './captcha.ts';
import { AuthError, validationFailed } from './errors.ts';
import { registerExternal } from './external.ts';
import { exchangeAuthCode } from './flow-state.ts';
import { registerMagicLink } from './magic-link.ts';
import { rejectNulCharacters } from './nul-guard.ts';
import { clientAddress, optionalString, readJsonObject } from './request.ts';
import { createAddressLimiter, REQUEST_LIMITS } from './request-limits.ts';
import { loadUserAndSession, logout, refreshSession } from './sessions.ts';
import { userJson } from './users.ts';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The GoTrue subset supabase-js uses (magic link with captcha, PKCE and implicit, GitHub,
 * refresh rotation, sign-out), speaking GoTrue's wire protocol of API version 2024-01-01.
 * Mounted at /auth/v1.
 */
export function createAuthApp(ctx: LocalContext): Hono {
  const { db, config } = ctx;
  const app = new Hono();
  const captcha = createCaptcha(config.captcha);

  app.use('*', async (c, next) => {
    await next();
    c.res.headers.set('X-Supabase-Api-Version', '2024-01-01');
  });
  app.use('*', rejectNulCharacters());

  app.onError((err, c) => {
    if (err instanceof AuthError) return c.json({ code: err.code, message: err.message }, err.status);
    if (err instanceof HTTPException) return err.getResponse();
    ctx.log(`[auth] ${c.req.method} ${c.req.path} failed: ${err.stack ?? err.message}`);
    return c.json({ code: 'unexpected_failure', message: 'Unexpected failure, please check server logs for more information' }, 500);
  });

  // Kong's open routes first (browser navigations and the captcha widget): no apikey.

  // GET /captcha/challenge – a signed ALTCHA challenge for the login page's widget.
  app.get('/captcha/challenge', async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(await captcha.createChallenge());
  });
  registerExternal(app, ctx);
  registerMagicLink(app, ctx, captcha);

  app.use('*', requireApiKey());

  // POST /token – grant_type=pkce (exchangeCodeForSession) or refresh_token (refreshSession).
  const tokenLimiter = createAddressLimiter(REQUEST_LIMITS.token);
  app.post('/token', async (c) => {
    tokenLimiter.take(clientAddress(c));
    const grant = c.req.query('grant_type');
    const body = await readJsonObject(c);
    if (grant === 'pkce') {
      const authCode = optionalString(body, 'auth_code') ?? '';
      const verifier = optionalString(body, 'code_verifier') ?? '';
      const session = await db.transaction((tx) => exchangeAuthCode(tx, config, authCode, verifier, c.req.header('user-agent')));
      return c.json(session);
    }
    if (grant === 'refresh_token') {
      const token = optionalString(body, 'refresh_token') ?? '';
      // Reuse detection revokes the family and must commit, so it comes back as a value.
      const result = await db.transaction((tx) => refreshSession(tx, config, token));
      if (result instanceof AuthError) throw result;
      return c.json(result);
    }
    throw new AuthError(400, 'invalid_credentials', 'unsupported_grant_type');
  });

  /** The caller's verified user JWT claims (GoTrue requireAuthentication). */
  async function requireUserClaims(c: Context): Promise<{ sub: string; session_id?: string }> {
    const token = resolveBearer(config, c.req.header('authorization'), c.req.header('apikey'));
    if (!token) throw new AuthError(401, 'no_authorization', 'This endpoint requires a valid Bearer token');
    let claims: JwtClaims;
    try {
      claims = await verifyJwt(token, config.jwtSecret);
    } catch (e) {
      throw new AuthError(403, 'bad_jwt', `invalid JWT: unable to parse or verify signature, ${(e as Error).message}`);
    }
    if (typeof claims.sub !== 'string' || !claims.sub) throw new AuthError(403, 'bad_jwt', 'invalid claim: missing sub claim');
    if (!UUID_RE.test(claims.sub)) throw new AuthError(403, 'bad_jwt', 'invalid claim: sub claim must be a UUID');
    const aud = claims.aud;
    if (aud !== undefined && !(aud === 'authenticated' || (Array.isArray(aud) && aud.includes('authenticated')))) {
      throw validationFailed("Token audience doesn't match request audience");
    }
    const sessionId = claims.session_id;
    if (sessionId !== undefined && (typeof sessionId !== 'string' || !UUID_RE.test(sessionId))) {
      throw new AuthError(403, 'bad_jwt', 'invalid claim: session_id claim must be a UUID');
    }
    return { sub: claims.sub, session_id: sessionId };
  }

  // GET /user – getUser(): the user of a live session.
  app.get('/user', async (c) => {
    const { user } = await loadUserAndSession(db, await requireUserClaims(c));
    return c.json(await userJson(db, user));
  });

  // POST /logout?scope=global|local|others – signOut().
  app.post('/logout', async (c) => {
    const scope = c.req.query('scope') ?? 'global';
    if (scope !== 'global' && scope !== 'local' && scope !== 'others') throw validationFailed(`Unsupported logout scope "${scope}"`);
    const { user, sessionId } = await loadUserAndSession(db, await requireUserClaims(c));
    await logout(db, user.id, sessionId, scope);
    return c.body(null, 204);
  });

  return app;
}
