import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';

/**
 * The Supabase CLI's local defaults (supabase/cli pkg/config/apikeys.go): the same JWT secret
 * and legacy anon / service_role keys `supabase start` uses, so tools and docs that assume
 * them work against our embedded services. Production sets its own through the environment.
 */
export const DEFAULT_JWT_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';
export const DEFAULT_ANON_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0';
export const DEFAULT_SERVICE_ROLE_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6InNlcnZpY2Vfcm9sZSIsImV4cCI6MTk4MzgxMjk5Nn0.EGIM96RAZx35lJzdJsyH-qQwv8Hdp7fsn3W0YpN81IU';

/** Signs the embedded ALTCHA challenges unless ALTCHA_HMAC_KEY is set; public like the keys above. */
export const DEFAULT_ALTCHA_HMAC_KEY = 'local-altcha-hmac-key-change-me';

export type JwtClaims = Record<string, unknown> & { role?: string; sub?: string; exp?: number; email?: string; session_id?: string };

export class JwtError extends Error {
  constructor(
    message: string,
    readonly reason: 'malformed' | 'expired' | 'invalid',
  ) {
    super(message);
  }
}

const encoder = new TextEncoder();

function secretKey(secret: string) {
  return encoder.encode(secret);
}

/** HS256 sign, no kid (like `supabase start`, keeping getClaims() on the /user path). */
export async function signJwt(claims: JwtClaims, secret: string): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(secretKey(secret));
}

/** Verifies an HS256 JWT with PostgREST's 30 s clock skew. Throws JwtError. */
export async function verifyJwt(token: string, secret: string): Promise<JwtClaims> {
  if (token?.split('.').length !== 3) throw new JwtError(`Expected 3 parts in JWT; got ${token ? token.split('.').length : 0}`, 'malformed');
  try {
    const { payload } = await jwtVerify(token, secretKey(secret), { algorithms: ['HS256'], clockTolerance: 30 });
    return payload as JwtClaims;
  } catch (e) {
    if (e instanceof joseErrors.JWTExpired) throw new JwtError('JWT expired', 'expired');
    if (e instanceof joseErrors.JWSSignatureVerificationFailed) throw new JwtError('JWSError JWSInvalidSignature', 'invalid');
    throw new JwtError(e instanceof Error ? e.message : 'invalid JWT', 'malformed');
  }
}
