/**
 * @module Request rate limits per API key, per account and per client address, counted in
 * the database (public.rate_limit_buckets) so every API process shares them. Over a limit:
 * 429 too_many_requests with Retry-After and the IETF RateLimit-Limit, RateLimit-Remaining
 * and RateLimit-Reset headers (those three on every answer of a limited call too).
 *
 * One statement per request: `rateLimit` (before authentication) counts the address at once
 * when the request carries no credential; otherwise the authentication middleware calls
 * `limitAccount`, which counts the address with the key and account buckets in the same
 * statement, or, for the primary key, `primaryKeyLimit`, whose buckets are counted by the
 * very statement that looks the key up (two statements per submit: that one and
 * submit_task). A credential that fails authentication is still counted for its address
 * (after the 401), so unauthenticated floods reach the address limit either way.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { Db } from '@aim/supabase/db';
import { ApiError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import { rateLimitRepository, type BucketCheck, type BucketCount, type BucketRow } from '../../repositories/rate-limit-repository.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { SESSION_HEADER } from '../../services/auth/authenticate-session.ts';
import { clientAddress } from './client-address.ts';
import { tooManyMessage, type RateLimits, type RouteClass } from './limits.ts';

export { DEFAULT_RATE_LIMITS, rateLimitsFromEnv, routeClassOf, type RateLimits, type RouteClass } from './limits.ts';

const WINDOW_MS = 60_000;
// probes and scrapers poll on their own schedule; Stripe signs its events and retries them itself
const UNLIMITED_PATHS = new Set(['/health', '/livez', '/readyz', '/metrics', '/webhooks/stripe']);
const SWEEP_EVERY_MS = 5 * WINDOW_MS;

interface Bucket extends BucketCheck {
  kind: RouteClass | 'address';
  holder: string;
}

interface RequestState {
  limits: RateLimits;
  check: (buckets: Bucket[]) => Promise<void>;
  now: () => number;
  /** `check` with the counts already taken (by the key lookup's statement). */
  settle: (buckets: Bucket[], rows: readonly BucketRow[], windowStart: Date) => void;
  address?: Bucket;
  /** The address bucket still has to be counted (the request carries a credential). */
  pending: boolean;
}

// per request (keyed by the Context, which the app and every sub-router share; a body limit replaces the Request)
const states = new WeakMap<Context, RequestState>();

export interface RateLimitDeps {
  db: Db;
  log: Logger;
  limits: RateLimits;
  /** The clock (tests move it to the next window). */
  now?: () => number;
}

function windowOf(now: number) {
  const start = now - (now % WINDOW_MS);
  return { start: new Date(start), resetSeconds: Math.max(1, Math.ceil((start + WINDOW_MS - now) / 1000)) };
}

function headersFor(count: BucketCount, resetSeconds: number): Record<string, string> {
  return {
    'RateLimit-Limit': String(count.limit),
    'RateLimit-Remaining': String(Math.max(0, count.limit - count.used)),
    'RateLimit-Reset': String(resetSeconds),
  };
}

/**
 * The per-address limit, before authentication (after CORS, so preflights are not counted).
 *
 * @example
 * app.use(rateLimit({ db, log, limits: rateLimitsFromEnv() }))
 */
export function rateLimit(deps: RateLimitDeps): MiddlewareHandler {
  const now = deps.now ?? (() => Date.now());
  const repo = rateLimitRepository(deps.db);
  let sweptAt = now();

  function sweep(t: number) {
    if (t - sweptAt < SWEEP_EVERY_MS) return;
    sweptAt = t;
    repo.sweep(new Date(t - 2 * WINDOW_MS)).catch((error: unknown) => deps.log.error('rate limit sweep failed', { error: String(error) }));
  }

  /** Counts the buckets; throws the 429 of the first one over its limit, else sets the headers of the tightest. */
  async function check(c: Context, buckets: Bucket[]) {
    if (buckets.length === 0) return;
    const t = now();
    const start = windowOf(t).start;
    settle(c, buckets, await repo.hit(buckets, start), t);
  }

  function settle(c: Context, buckets: Bucket[], { allowed, counts }: { allowed: boolean; counts: BucketCount[] }, t: number) {
    const { resetSeconds } = windowOf(t);
    sweep(t);
    if (!allowed) {
      const i = counts.findIndex((count) => count.used >= count.limit);
      const over = buckets[Math.max(0, i)];
      const count = counts[Math.max(0, i)];
      for (const [name, value] of Object.entries(headersFor(count, resetSeconds))) c.header(name, value);
      c.header('Retry-After', String(resetSeconds));
      throw new ApiError('too_many_requests', tooManyMessage(over.kind, over.limit, over.holder, resetSeconds));
    }
    // the first bucket (the key's, when there is one) unless another has less left
    const tightest = counts.reduce((a, b) => (b.limit - b.used < a.limit - a.used ? b : a));
    for (const [name, value] of Object.entries(headersFor(tightest, resetSeconds))) c.header(name, value);
  }

  return async (c, next) => {
    if (UNLIMITED_PATHS.has(c.req.path)) return next();
    const address = clientAddress(c, deps.limits.trustProxyHops);
    const state: RequestState = {
      limits: deps.limits,
      now,
      check: (buckets) => check(c, buckets),
      settle: (buckets, rows, windowStart) => settle(c, buckets, countsOf(buckets, rows), Math.max(now(), windowStart.getTime())),
      address:
        address === undefined ? undefined : { kind: 'address', key: `address:${address.slice(0, 64)}`, limit: deps.limits.perAddress, holder: 'this address' },
      pending: false,
    };
    states.set(c, state);
    const credential = c.req.header('authorization') || c.req.header(SESSION_HEADER);
    if (!credential || !state.address) {
      if (state.address) await check(c, [state.address]);
      return next();
    }
    state.pending = true;
    await next();
    if (!state.pending) return;
    // a credential that authenticated nothing (a 401, or a route without authentication)
    state.pending = false;
    try {
      await check(c, [state.address]);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      await c.res.body?.cancel().catch(() => {});
      c.res = c.json(error.toBody(), 429);
    }
  };
}

function accountBuckets(state: RequestState, accountId: string, keyId: string | null, routeClass: RouteClass, via: 'key' | 'session'): Bucket[] {
  const l = state.limits;
  const keyBucket = via === 'session' ? `session:${accountId}` : keyId ? `key:${keyId}` : `primary:${accountId}`;
  const keyHolder = via === 'session' ? 'this dashboard session' : 'this API key';
  const buckets: Bucket[] = [];
  if (routeClass === 'submit') {
    buckets.push({ kind: 'submit', key: `submit:${keyBucket}`, limit: l.submitPerKey, holder: keyHolder });
    buckets.push({ kind: 'submit', key: `submit:account:${accountId}`, limit: l.submitPerAccount, holder: 'this account' });
  } else if (routeClass === 'read') {
    buckets.push({ kind: 'read', key: `read:${keyBucket}`, limit: l.readPerKey, holder: keyHolder });
  } else {
    buckets.push({ kind: 'account', key: `account:account:${accountId}`, limit: l.accountPerAccount, holder: 'this account' });
  }
  if (state.pending && state.address) buckets.push(state.address);
  return buckets;
}

function countsOf(buckets: readonly Bucket[], rows: readonly BucketRow[]): { allowed: boolean; counts: BucketCount[] } {
  const byKey = new Map(rows.map((r) => [r.key, r]));
  return { allowed: rows[0]?.allowed ?? true, counts: buckets.map((b) => ({ key: b.key, limit: b.limit, used: byKey.get(b.key)?.used ?? 0 })) };
}

/**
 * The key's and the account's limits of the route's class (and the address's, when not
 * counted yet), in one statement. Called by the authentication middlewares once the
 * account is known; a no-op in an app without `rateLimit`.
 */
export async function limitAccount(c: Context, account: Account, routeClass: RouteClass, via: 'key' | 'session'): Promise<void> {
  const state = states.get(c);
  if (!state) return;
  const buckets = accountBuckets(state, account.id, account.keyId, routeClass, via);
  state.pending = false;
  await state.check(buckets);
}

/** The placeholder the key lookup's statement replaces with the account's id in `PrimaryKeyLimit.keys`. */
export const ACCOUNT_PLACEHOLDER = '{account}';

/**
 * `limitAccount` for the primary key, folded into the statement that looks the key up
 * (rateLimitRepository.findPrimaryKeyCounting): the buckets with the account's id as
 * ACCOUNT_PLACEHOLDER, and `settle`, which applies the counts that statement returned
 * (throws the 429, or sets the headers) once the account is known. undefined in an app
 * without `rateLimit`.
 */
export interface PrimaryKeyLimit {
  keys: string[];
  limits: number[];
  windowStart: Date;
  settle: (accountId: string, rows: readonly BucketRow[]) => void;
}

export function primaryKeyLimit(c: Context, routeClass: RouteClass): PrimaryKeyLimit | undefined {
  const state = states.get(c);
  if (!state) return undefined;
  const templates = accountBuckets(state, ACCOUNT_PLACEHOLDER, null, routeClass, 'key');
  const windowStart = windowOf(state.now()).start;
  return {
    keys: templates.map((b) => b.key),
    limits: templates.map((b) => b.limit),
    windowStart,
    settle: (accountId, rows) => {
      state.pending = false;
      const buckets = templates.map((b) => ({ ...b, key: b.key.replaceAll(ACCOUNT_PLACEHOLDER, accountId) }));
      state.settle(buckets, rows, windowStart);
    },
  };
}
