import { randomInt, randomUUID } from 'node:crypto';
import type { Queryable } from '../db/index.ts';
import type { LocalSupabaseConfig } from '../config.ts';
import { signJwt } from '../keys.ts';
import { AuthError, validationFailed } from './errors.ts';
import { findUserById, userJson, type UserRow } from './users.ts';

/** How the session was established: the JWT's `amr` method (GoTrue models.AuthenticationMethod). */
export type AmrMethod = 'otp' | 'magiclink' | 'oauth';

interface SessionRow {
  id: string;
  user_id: string;
  created_at: Date;
  not_after: Date | null;
  tag: string | null;
}

interface RefreshTokenRow {
  id: number;
  token: string;
  user_id: string;
  revoked: boolean;
  updated_at: Date;
  parent: string | null;
  session_id: string | null;
}

// Our auth schema has no mfa_amr_claims table, so the session keeps its sign-in method in
// `tag` ("amr:<method>"); refreshed access tokens must carry the same amr.
const AMR_TAG_PREFIX = 'amr:';
const amrOf = (s: SessionRow): AmrMethod => (s.tag?.startsWith(AMR_TAG_PREFIX) ? (s.tag.slice(AMR_TAG_PREFIX.length) as AmrMethod) : 'otp');

const TOKEN_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** GoTrue's legacy refresh token: 12 lowercase alphanumerics. */
function newRefreshToken(): string {
  let s = '';
  for (let i = 0; i < 12; i++) s += TOKEN_ALPHABET[randomInt(TOKEN_ALPHABET.length)];
  return s;
}

async function insertRefreshToken(q: Queryable, userId: string, sessionId: string, parent: string | null): Promise<string> {
  const token = newRefreshToken();
  await q.query(
    `insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
     values ('00000000-0000-0000-0000-000000000000', $1, $2, false, now(), now(), $3, $4)`,
    [token, userId, parent, sessionId],
  );
  return token;
}

/** Extra fields of the session response for provider sign-ins. */
interface ProviderTokens {
  provider_token?: string | null;
  provider_refresh_token?: string | null;
}

export interface IssuedSession {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  expires_at: number;
  refresh_token: string;
  user: Record<string, unknown>;
  provider_token?: string;
  provider_refresh_token?: string;
}

async function accessToken(config: LocalSupabaseConfig, user: UserRow, session: SessionRow): Promise<{ token: string; exp: number }> {
  const iat = Math.floor(Date.now() / 1000);
  const exp = iat + config.jwtExp;
  const token = await signJwt(
    {
      iss: `${config.publicUrl}/auth/v1`,
      sub: user.id,
      aud: 'authenticated',
      exp,
      iat,
      email: user.email ?? '',
      phone: user.phone ?? '',
      app_metadata: user.raw_app_meta_data ?? {},
      user_metadata: user.raw_user_meta_data ?? {},
      role: user.role || 'authenticated',
      aal: 'aal1',
      amr: [{ method: amrOf(session), timestamp: Math.floor(new Date(session.created_at).getTime() / 1000) }],
      session_id: session.id,
      is_anonymous: false,
    },
    config.jwtSecret,
  );
  return { token, exp };
}

async function sessionResponse(
  q: Queryable,
  config: LocalSupabaseConfig,
  user: UserRow,
  session: SessionRow,
  refreshToken: string,
  provider: ProviderTokens = {},
): Promise<IssuedSession> {
  const { token, exp } = await accessToken(config, user, session);
  const out: IssuedSession = {
    access_token: token,
    token_type: 'bearer',
    expires_in: config.jwtExp,
    expires_at: exp,
    refresh_token: refreshToken,
    user: await userJson(q, user),
  };
  if (provider.provider_token) out.provider_token = provider.provider_token;
  if (provider.provider_refresh_token) out.provider_refresh_token = provider.provider_refresh_token;
  return out;
}

/** A new session (aal1) with its first refresh token, answered as GoTrue's AccessTokenResponse. */
export async function createSession(
  q: Queryable,
  config: LocalSupabaseConfig,
  user: UserRow,
  method: AmrMethod,
  opts: { userAgent?: string } & ProviderTokens = {},
): Promise<IssuedSession> {
  const now = new Date();
  const r = await q.query<SessionRow>(
    `insert into auth.sessions (id, user_id, created_at, updated_at, aal, refreshed_at, user_agent, tag)
     values ($1, $2, $3, $3, 'aal1', null, $4, $5) returning *`,
    [randomUUID(), user.id, now, opts.userAgent ?? null, AMR_TAG_PREFIX + method],
  );
  const session = r.rows[0];
  const refreshToken = await insertRefreshToken(q, user.id, session.id, null);
  return sessionResponse(q, config, user, session, refreshToken, opts);
}

const refreshError = (code: string, message: string) => new AuthError(400, code, message);

/**
 * POST /token?grant_type=refresh_token, GoTrue's RefreshTokenGrant for legacy tokens:
 * rotate; the parent of the active token gets the active one back; other revoked tokens
 * are forgiven within the reuse interval; beyond it the whole family is revoked. That error
 * is returned rather than thrown so the caller's transaction commits the revocation.
 */
export async function refreshSession(q: Queryable, config: LocalSupabaseConfig, presented: string): Promise<IssuedSession | AuthError> {
  if (presented.length < 12) throw validationFailed('Refresh token is not valid');
  const found = await q.query<RefreshTokenRow>('select * from auth.refresh_tokens where token = $1 for update', [presented]);
  const token = found.rows[0];
  if (!token) throw refreshError('refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
  const sessions = token.session_id ? await q.query<SessionRow>('select * from auth.sessions where id = $1 for update', [token.session_id]) : undefined;
  const session = sessions?.rows[0];
  if (!session) throw refreshError('session_not_found', 'Invalid Refresh Token: No Valid Session Found');
  const user = await findUserById(q, session.user_id);
  if (!user) throw refreshError('session_not_found', 'Invalid Refresh Token: No Valid Session Found');
  if (user.banned_until && new Date(user.banned_until) > new Date()) throw refreshError('user_banned', 'Invalid Refresh Token: User Banned');
  if (session.not_after && new Date(session.not_after) <= new Date()) throw refreshError('session_expired', 'Invalid Refresh Token: Session Expired');

  let issued: string | undefined;
  if (token.revoked) {
    const active = await q.query<RefreshTokenRow>('select * from auth.refresh_tokens where session_id = $1 and revoked = false order by id desc limit 1', [
      session.id,
    ]);
    if (active.rows[0]?.parent === token.token) {
      // The client lost our last answer: hand the same token back instead of forking.
      issued = active.rows[0].token;
    } else if (new Date(token.updated_at).getTime() + config.refreshReuseInterval * 1000 <= Date.now()) {
      // Reuse of an old token: treat the session as stolen. Unlike GoTrue (which only revokes
      // the tokens, leaving them usable again within the reuse window) we also end the
      // session, so neither party can refresh it any more.
      await q.query('update auth.refresh_tokens set revoked = true, updated_at = now() where session_id = $1 and revoked = false', [session.id]);
      await q.query('update auth.sessions set not_after = now(), updated_at = now() where id = $1', [session.id]);
      return refreshError('refresh_token_already_used', 'Invalid Refresh Token: Already Used');
    }
  }
  if (!issued) {
    await q.query('update auth.refresh_tokens set revoked = true, updated_at = now() where id = $1 and revoked = false', [token.id]);
    issued = await insertRefreshToken(q, user.id, session.id, token.token);
  }
  await q.query('update auth.sessions set refreshed_at = now(), updated_at = now() where id = $1', [session.id]);
  return sessionResponse(q, config, user, session, issued);
}

/**
 * The session of a user access token, for /user and /logout. Throws GoTrue's 403s:
 * user_not_found, session_not_found (the session was signed out).
 */
export async function loadUserAndSession(q: Queryable, claims: { sub: string; session_id?: string }): Promise<{ user: UserRow; sessionId?: string }> {
  const user = await findUserById(q, claims.sub);
  if (!user) throw new AuthError(403, 'user_not_found', 'User from sub claim in JWT does not exist');
  if (claims.session_id) {
    const s = await q.query('select 1 from auth.sessions where id = $1 and user_id = $2', [claims.session_id, user.id]);
    if (!s.rows[0]) throw new AuthError(403, 'session_not_found', 'Session from session_id claim in JWT does not exist');
  }
  return { user, sessionId: claims.session_id };
}

/** POST /logout scopes (GoTrue models.Logout and friends): delete the sessions; tokens cascade. */
export async function logout(q: Queryable, userId: string, sessionId: string | undefined, scope: 'global' | 'local' | 'others'): Promise<void> {
  if (scope === 'global' || !sessionId) {
    if (scope !== 'others') await q.query('delete from auth.sessions where user_id = $1', [userId]);
    return;
  }
  if (scope === 'local') await q.query('delete from auth.sessions where id = $1', [sessionId]);
  else await q.query('delete from auth.sessions where user_id = $1 and id <> $2', [userId, sessionId]);
}

/** The implicit-flow redirect: session in the fragment, keys sorted as Go's url.Values.Encode. */
export function sessionFragment(session: IssuedSession, extra: Record<string, string>): string {
  const params: Record<string, string> = {
    access_token: session.access_token,
    expires_at: String(session.expires_at),
    expires_in: String(session.expires_in),
    refresh_token: session.refresh_token,
    sb: '',
    token_type: 'bearer',
    ...extra,
  };
  if (session.provider_token) params.provider_token = session.provider_token;
  if (session.provider_refresh_token) params.provider_refresh_token = session.provider_refresh_token;
  return new URLSearchParams(
    Object.keys(params)
      .sort()
      .map((k) => [k, params[k]]),
  ).toString();
}
