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

/**
 * PostgREST's auth step (docs/references/auth.rst): the bearer token, as the gateway
 * rewrites it, decides the role. No token → anon; a token without a role claim → anon.
 */
export async function authenticate(config: LocalSupabaseConfig, authorization: string | undefined, apikey: string | undefined): Promise<RequestAuth> {
  const token = resolveBearer(config, authorization, apikey);
  if (token === undefined) return { role: 'anon', claims: { role: 'anon' } };
  let claims: JwtClaims;
  try {
    claims = await verifyJwt(token, config.jwtSecret);
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
