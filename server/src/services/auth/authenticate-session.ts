/**
 * @module Who is at the dashboard: the signed-in Supabase session (its access token in the
 * X-Session-Token header) for the calls that move money or change credentials. The API key
 * alone runs the generation API; it is an integration credential that lives on servers, CI
 * and repositories, so it never decides about plans, cards, top-ups or keys
 * (docs/decisions/0011-two-credentials.md).
 */
import type { Db } from '@aim/supabase/db';
import { JwtError, verifyJwt } from '@aim/supabase';
import { ApiError } from '../../errors.ts';
import { primaryAccount, type Account } from '../../repositories/user-repository.ts';
import { authenticateApiKey, parseApiKey } from './authenticate-api-key.ts';

/** The header the dashboard sends its Supabase access token in, beside the spec's Authorization: <api key>. */
export const SESSION_HEADER = 'X-Session-Token';

export const SESSION_REQUIRED_MESSAGE =
  'This action needs a signed-in dashboard session: an API key alone cannot change billing, keys or webhooks. Sign in to the dashboard and try again.';
export const SESSION_INVALID_MESSAGE = 'Your dashboard session has expired. Sign in again.';
const SESSION_MISMATCH_MESSAGE = 'The API key and the dashboard session belong to different accounts. Reload the page.';

// A Supabase access token is a few hundred characters; the cap keeps absurd headers from the verifier.
const MAX_TOKEN_LENGTH = 8192;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The account of a dashboard session: the access token must verify with the project's JWT
 * secret, be an `authenticated` user's, and its session must still exist (a signed-out
 * session is refused at once, not only when its token expires). When an API key is sent too
 * it must be the same user's (the spec's dashboard sends it on every call).
 */
export async function authenticateSession(
  deps: { db: Db; jwtSecret: string },
  headers: { authorization: string | undefined; session: string | undefined },
): Promise<Account> {
  const token = headers.session?.trim();
  if (!token) {
    // no credential, or a key that is not real: the usual 401s; a real key alone: what is missing
    await authenticateApiKey(deps, headers.authorization);
    throw new ApiError('session_required', SESSION_REQUIRED_MESSAGE);
  }
  if (token.length > MAX_TOKEN_LENGTH) throw new ApiError('invalid_session', SESSION_INVALID_MESSAGE);
  let claims: Awaited<ReturnType<typeof verifyJwt>>;
  try {
    claims = await verifyJwt(token, deps.jwtSecret);
  } catch (e) {
    if (e instanceof JwtError) throw new ApiError('invalid_session', SESSION_INVALID_MESSAGE);
    throw e;
  }
  const userId = claims.sub;
  if (claims.role !== 'authenticated' || typeof userId !== 'string' || !UUID.test(userId)) throw new ApiError('invalid_session', SESSION_INVALID_MESSAGE);
  const sessionId = typeof claims.session_id === 'string' && UUID.test(claims.session_id) ? claims.session_id : null;
  const { rows } = await deps.db.query<Account & { live: boolean }>(
    `select u.id, u.email,
            ($2::uuid is not null and exists (select 1 from auth.sessions s where s.id = $2::uuid and s.user_id = u.id)) as live
       from public.mdusers u where u.id = $1`,
    [userId, sessionId],
  );
  const row = rows[0];
  if (!row?.live) throw new ApiError('invalid_session', SESSION_INVALID_MESSAGE);
  const account: Account = primaryAccount(row);
  if (parseApiKey(headers.authorization)) {
    const keyAccount = await authenticateApiKey(deps, headers.authorization);
    if (keyAccount.id !== account.id) throw new ApiError('forbidden', SESSION_MISMATCH_MESSAGE);
  }
  return account;
}
