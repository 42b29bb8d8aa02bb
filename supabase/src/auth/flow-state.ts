import { createHash, randomUUID } from 'node:crypto';
import type { Queryable } from '../db/index.ts';
import type { LocalSupabaseConfig } from '../config.ts';
import { AuthError, validationFailed } from './errors.ts';
import { createSession, type AmrMethod, type IssuedSession } from './sessions.ts';
import { findUserById } from './users.ts';

/** GoTrue's defaultFlowStateExpiryDuration. */
const FLOW_STATE_EXPIRY_MS = 300_000;

interface Pkce {
  challenge: string;
  method: 's256' | 'plain';
}

export interface FlowStateRow {
  id: string;
  user_id: string | null;
  auth_code: string;
  code_challenge_method: string;
  code_challenge: string;
  provider_type: string;
  provider_access_token: string | null;
  provider_refresh_token: string | null;
  created_at: Date;
  authentication_method: AmrMethod;
  auth_code_issued_at: Date | null;
  referrer: string | null;
}

/** Both PKCE parameters or neither (implicit flow), as GoTrue's validatePKCEParams. */
export function parsePkce(challenge: string | undefined | null, method: string | undefined | null): Pkce | undefined {
  if (!challenge && !method) return undefined;
  if (!challenge || !method) throw validationFailed('PKCE flow requires code_challenge_method and code_challenge');
  const m = method.toLowerCase();
  if (m !== 's256' && m !== 'plain') throw validationFailed(`code challenge method ${method} not supported`);
  if (challenge.length < 43 || challenge.length > 128) throw validationFailed('code challenge has to be between 43 and 128 characters');
  return { challenge, method: m };
}

export async function createFlowState(
  q: Queryable,
  f: { userId?: string; pkce?: Pkce; providerType: string; method: AmrMethod; referrer?: string },
): Promise<FlowStateRow> {
  const now = new Date();
  const r = await q.query<FlowStateRow>(
    `insert into auth.flow_state (id, user_id, auth_code, code_challenge_method, code_challenge, provider_type, created_at, updated_at, authentication_method, referrer)
     values ($1, $2, $3, $4, $5, $6, $7, $7, $8, $9) returning *`,
    [randomUUID(), f.userId ?? null, randomUUID(), f.pkce?.method ?? '', f.pkce?.challenge ?? '', f.providerType, now, f.method, f.referrer ?? null],
  );
  return r.rows[0];
}

/** The auth code becomes redeemable (and its flow state's clock restarts for magic links). */
export async function issueAuthCode(
  q: Queryable,
  flowId: string,
  fields: { userId: string; providerAccessToken?: string; providerRefreshToken?: string },
): Promise<string> {
  const r = await q.query<{ auth_code: string }>(
    `update auth.flow_state set user_id = $2, provider_access_token = $3, provider_refresh_token = $4, auth_code_issued_at = now(), updated_at = now()
     where id = $1 returning auth_code`,
    [flowId, fields.userId, fields.providerAccessToken ?? null, fields.providerRefreshToken ?? null],
  );
  return r.rows[0].auth_code;
}

function isExpired(flow: FlowStateRow): boolean {
  // GoTrue FlowState.IsExpired: magic links count from the click, everything else from creation.
  const start = flow.authentication_method === 'magiclink' && flow.auth_code_issued_at ? flow.auth_code_issued_at : flow.created_at;
  return new Date(start).getTime() + FLOW_STATE_EXPIRY_MS < Date.now();
}

const base64url = (b: Buffer) => b.toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/** POST /token?grant_type=pkce: single-use exchange of an auth code for a session. */
export async function exchangeAuthCode(
  q: Queryable,
  config: LocalSupabaseConfig,
  authCode: string,
  verifier: string,
  userAgent?: string,
): Promise<IssuedSession> {
  if (!authCode || !verifier) throw validationFailed('invalid request: both auth code and code verifier should be non-empty');
  if (verifier.length < 43 || verifier.length > 128) throw validationFailed('code verifier should be at least 43 characters and at most 128 characters');
  const r = await q.query<FlowStateRow>('select * from auth.flow_state where auth_code = $1 and auth_code_issued_at is not null for update', [authCode]);
  const flow = r.rows[0];
  if (!flow?.user_id || !flow.code_challenge) throw new AuthError(404, 'flow_state_not_found', 'invalid flow state, no valid flow state found');
  if (isExpired(flow)) throw new AuthError(422, 'flow_state_expired', 'invalid flow state, flow state has expired');
  const expected = flow.code_challenge_method === 's256' ? base64url(createHash('sha256').update(verifier).digest()) : verifier;
  if (expected !== flow.code_challenge) throw new AuthError(400, 'bad_code_verifier', 'code challenge does not match previously saved code verifier');
  await q.query('delete from auth.flow_state where id = $1', [flow.id]);
  const user = await findUserById(q, flow.user_id);
  if (!user) throw new AuthError(404, 'user_not_found', 'User not found');
  return createSession(q, config, user, flow.authentication_method, {
    userAgent,
    provider_token: flow.provider_access_token,
    provider_refresh_token: flow.provider_refresh_token,
  });
}
