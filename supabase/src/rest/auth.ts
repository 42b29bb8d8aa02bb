import type { LocalSupabaseConfig } from '../config.ts';
import { resolveBearer } from '../gateway.ts';
import { JwtError, verifyJwt, type JwtClaims } from '../keys.ts';
import { jwtError, RestError } from './errors.ts';

/** The database roles a request may switch to; anything else never reaches SQL. */
const API_ROLES = ['anon', 'authenticated', 'service_role'] as const;
export type ApiRole = (typeof API_ROLES)[number];

export interface RequestAuth {
  role: ApiRole;
  /** What request.jwt.claims holds: the verified claims with the role set. */
  claims: JwtClaims;
}

/** Verified tokens (PostgREST's JWT cache, jwt-cache-max-lifetime): a token is checked once, then reused until it expires. */
const verified = new Map<string, { secret: string; claims: JwtClaims }>();
const VERIFIED_MAX = 1000;
/** verifyJwt's clock skew: a cached token is dropped once verifyJwt would refuse it. */
const CLOCK_SKEW_S = 30;

async function verifyCached(token: string, secret: string): Promise<JwtClaims> {
  const hit = verified.get(token);
  if (hit && hit.secret === secret && (typeof hit.claims.exp !== 'number' || Math.floor(Date.now() / 1000) < hit.claims.exp + CLOCK_SKEW_S)) return hit.claims;
  verified.delete(token);
  const claims = await verifyJwt(token, secret);
  // the oldest entry goes first (Map keeps insertion order)
  if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value as string);
  verified.set(token, { secret, claims });
  return claims;
}

/**
 * PostgREST's auth step (docs/references/auth.rst): the bearer token, as the gateway
 * rewrites it, decides the role. No token → anon; a token without a role claim → anon.
 */
export async function authenticate(config: LocalSupabaseConfig, authorization: string | undefined, apikey: string | undefined): Promise<RequestAuth> {
  const token = resolveBearer(config, authorization, apikey);
  if (token === undefined) return { role: 'anon', claims: { role: 'anon' } };
  let claims: JwtClaims;
  try {
    claims = await verifyCached(token, config.jwtSecret);
  } catch (e) {
    if (e instanceof JwtError) throw e.reason === 'expired' ? jwtError('PGRST303', 'JWT expired') : jwtError('PGRST301', e.message);
    throw e;
  }
  const role = claims.role ?? 'anon';
  if (!(API_ROLES as readonly string[]).includes(role)) {
    // what Postgres answers when the connecting role may not switch to it
    throw new RestError(403, '42501', `permission denied to set role "${role}"`);
  }
  return { role: role as ApiRole, claims: { ...claims, role } };
}
