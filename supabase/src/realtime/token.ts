import { decodeJwt } from 'jose';
import { JwtError, verifyJwt, type JwtClaims } from '../keys.ts';
import { SUBSCRIBER_ROLES, type SubscriberRole } from './catalog.ts';

export type RealtimeClaims = JwtClaims & { role: string; exp: number };

export type TokenCheck =
  | { ok: true; claims: RealtimeClaims }
  /** `code` prefixes join error reasons ("InvalidJWTToken: …"); `message` alone is used elsewhere. */
  | { ok: false; code: string; message: string };

/**
 * Realtime's token rules (channels_authorization.ex): a valid signature, `role` and `exp`
 * present, not expired (no clock skew allowance, unlike PostgREST).
 */
export async function checkToken(token: string | undefined, secret: string): Promise<TokenCheck> {
  if (!token) return { ok: false, code: 'InvalidJWTToken', message: 'No api key provided' };
  let claims: JwtClaims;
  try {
    claims = await verifyJwt(token, secret);
  } catch (e) {
    if (e instanceof JwtError && e.reason === 'expired') return expired(token);
    if (e instanceof JwtError && e.reason === 'invalid') return { ok: false, code: 'JwtSignatureError', message: 'Failed to validate JWT signature' };
    return { ok: false, code: 'MalformedJWT', message: 'The token provided is not a valid JWT' };
  }
  if (typeof claims.role !== 'string' || typeof claims.exp !== 'number') {
    return { ok: false, code: 'InvalidJWTToken', message: 'Fields `role` and `exp` are required in JWT' };
  }
  if (claims.exp * 1000 <= Date.now()) return expired(token);
  return { ok: true, claims: claims as RealtimeClaims };
}

function expired(token: string): TokenCheck {
  let exp = 0;
  try {
    exp = Number(decodeJwt(token).exp ?? 0);
  } catch {
    // verifyJwt already parsed it; keep 0
  }
  const ago = Math.max(0, Math.floor(Date.now() / 1000 - exp));
  return { ok: false, code: 'InvalidJWTToken', message: `Token has expired ${ago} seconds ago` };
}

export function isSubscriberRole(role: string): role is SubscriberRole {
  return (SUBSCRIBER_ROLES as readonly string[]).includes(role);
}
