/**
 * @module The request rate limits: route classes, per-minute defaults a normal integration
 * never reaches, and the environment that changes them (RATE_LIMIT_*_PER_MINUTE).
 */

/** `submit`: task-creating and upload calls; `read`: /fetch, /fetch-many, GET calls (/account, lists); `account`: every other authenticated call (the /auth/* calls). */
export type RouteClass = 'submit' | 'read' | 'account';

export interface RateLimits {
  /** Submits per minute per API key (RATE_LIMIT_SUBMIT_PER_MINUTE). */
  submitPerKey: number;
  /** Submits per minute per account, all its keys together (RATE_LIMIT_SUBMIT_ACCOUNT_PER_MINUTE). */
  submitPerAccount: number;
  /** Reads per minute per API key (RATE_LIMIT_READ_PER_MINUTE). */
  readPerKey: number;
  /** Account calls per minute per account (RATE_LIMIT_ACCOUNT_PER_MINUTE). */
  accountPerAccount: number;
  /** Requests per minute per client address, every route together (RATE_LIMIT_ADDRESS_PER_MINUTE). */
  perAddress: number;
  /**
   * How many proxies in front of the API append to X-Forwarded-For (TRUST_PROXY, default 0:
   * the header is ignored and the client is the socket's peer).
   */
  trustProxyHops: number;
}

export const DEFAULT_RATE_LIMITS: RateLimits = {
  submitPerKey: 120,
  submitPerAccount: 240,
  readPerKey: 600,
  accountPerAccount: 60,
  perAddress: 1200,
  trustProxyHops: 0,
};

const ENV_NAMES: Record<keyof RateLimits, string> = {
  submitPerKey: 'RATE_LIMIT_SUBMIT_PER_MINUTE',
  submitPerAccount: 'RATE_LIMIT_SUBMIT_ACCOUNT_PER_MINUTE',
  readPerKey: 'RATE_LIMIT_READ_PER_MINUTE',
  accountPerAccount: 'RATE_LIMIT_ACCOUNT_PER_MINUTE',
  perAddress: 'RATE_LIMIT_ADDRESS_PER_MINUTE',
  trustProxyHops: 'TRUST_PROXY',
};

/** The limits from the environment; a value that is not a whole number (≥ 1; ≥ 0 for TRUST_PROXY) stops the start. */
export function rateLimitsFromEnv(env: Record<string, string | undefined> = process.env): RateLimits {
  const limits = { ...DEFAULT_RATE_LIMITS };
  for (const [field, name] of Object.entries(ENV_NAMES) as [keyof RateLimits, string][]) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    const value = Number(raw);
    const min = field === 'trustProxyHops' ? 0 : 1;
    if (!Number.isSafeInteger(value) || value < min) throw new Error(`${name} must be a whole number of at least ${min}, not "${raw}"`);
    limits[field] = value;
  }
  return limits;
}

/**
 * The class of an authenticated call from the scope its route needs: `generate` is what
 * submits and uploads need; a read scope, or a GET, makes it a read; the rest are account calls.
 */
export function routeClassOf(need: string | readonly string[], method: string): RouteClass {
  if (need === 'generate') return 'submit';
  if (method === 'GET' || need === 'read' || (Array.isArray(need) && need.includes('read'))) return 'read';
  return 'account';
}

const NOUNS: Record<RouteClass | 'address', string> = { submit: 'submits', read: 'reads', account: 'account calls', address: 'requests' };

/** The 429 message: which limit, for what, and when to retry. */
export function tooManyMessage(kind: RouteClass | 'address', limit: number, holder: string, retryAfter: number): string {
  return `Too many requests: at most ${limit} ${NOUNS[kind]} per minute for ${holder}. Retry in ${retryAfter} s.`;
}
