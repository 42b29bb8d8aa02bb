import type { PgError } from '../db/index.ts';

/** PostgREST's error body: always these four keys (docs/references/errors.rst). */
export interface RestErrorBody {
  code: string;
  details: string | null;
  hint: string | null;
  message: string;
}

/** An error answered as PostgREST would: status, body, and extra headers (WWW-Authenticate). */
export class RestError extends Error {
  readonly body: RestErrorBody;
  constructor(
    readonly status: number,
    code: string,
    message: string,
    details: string | null = null,
    hint: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.body = { code, details, hint, message };
  }
}

/** PGRST100: the query string does not follow the URL grammar. */
export function parseError(message: string, details: string | null = null): RestError {
  return new RestError(400, 'PGRST100', message, details);
}

/** PGRST102: the request body is not the JSON we need. */
export function bodyError(message: string): RestError {
  return new RestError(400, 'PGRST102', message);
}

const PREFIX_STATUS: [string, number][] = [
  ['08', 503],
  ['09', 500],
  ['0L', 403],
  ['0P', 403],
  ['25', 500],
  ['28', 403],
  ['2D', 500],
  ['38', 500],
  ['39', 500],
  ['3B', 500],
  ['40', 500],
  ['53', 503],
  ['54', 500],
  ['55', 500],
  ['57', 500],
  ['58', 500],
  ['F0', 500],
  ['HV', 500],
  ['P0', 500],
  ['XX', 500],
];

const EXACT_STATUS: Record<string, number> = {
  '23503': 409,
  '23505': 409,
  '25006': 405,
  '53400': 500,
  P0001: 400,
  '42883': 404,
  '42P01': 404,
  '42P17': 500,
};

/**
 * HTTP status for a SQLSTATE, PostgREST's table (errors.rst). 42501 depends on who asked:
 * 401 for the anonymous role (so a client knows to sign in), 403 for a JWT role.
 */
export function statusForSqlState(code: string, role: string): number {
  if (code === '42501') return role === 'anon' ? 401 : 403;
  const exact = EXACT_STATUS[code];
  if (exact) return exact;
  const prefix = PREFIX_STATUS.find(([p]) => code.startsWith(p));
  return prefix ? prefix[1] : 400;
}

/** A database error as PostgREST answers it. */
export function fromPgError(e: PgError, role: string): RestError {
  const code = e.code ?? 'XX000';
  const status = statusForSqlState(code, role);
  const headers: Record<string, string> = status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {};
  return new RestError(status, code, e.message, e.detail ?? null, e.hint ?? null, headers);
}

/** PGRST301 / PGRST303: the bearer token is unusable. */
export function jwtError(code: 'PGRST301' | 'PGRST303', message: string): RestError {
  const description = message.replace(/["\\]/g, '');
  return new RestError(401, code, message, null, null, {
    'WWW-Authenticate': `Bearer error="invalid_token", error_description="${description}"`,
  });
}
