import type { LocalSupabaseConfig } from '../config.ts';
import { AuthError } from './errors.ts';

/**
 * The brute-force guard of /verify. A mailed code has 6 digits: without a limit, a script
 * could try them all while the code lives. Two limits, answered like GoTrue's rate limiter
 * (429 over_request_rate_limit "Request rate limit reached"):
 * - failed verifications per client address within a window (GoTrue's RATE_LIMIT_VERIFY
 *   counts every request; we count failures, so a shared address signing in often is fine);
 * - wrong codes per mailed code (keyed by its email): at the limit the code is burned (the
 *   caller deletes it), so even the right digits no longer work; a new code starts again.
 *
 * Counters live in memory, on purpose: the local services are one process (the launcher
 * starts them once; PGlite cannot be shared), and a try is counted synchronously before the
 * database is asked, so a burst of parallel guesses cannot outrun its own count. A restart
 * forgets counts, not burns (a burned code is deleted from the database). Entries expire
 * with their window or with the code's lifetime, so memory stays bounded.
 */
const overRequestRateLimit = () => new AuthError(429, 'over_request_rate_limit', 'Request rate limit reached');

/** One reserved try: settle it exactly once. */
interface VerifyAttempt {
  /** The code was wrong: the try counts. True when the mailed code must now be burned. */
  fail(): boolean;
  /** The code was right, or the try failed for another reason: it does not count. */
  release(): void;
}

interface AddressCount {
  failures: number[];
  pending: number;
}

interface TokenCount {
  failures: number;
  pending: number;
  touchedAt: number;
}

const PRUNE_EVERY_MS = 10_000;

export function createVerifyLimiter(limits: LocalSupabaseConfig['verifyLimits'], tokenLifetimeSeconds: number, now: () => number = Date.now) {
  const windowMs = limits.windowSeconds * 1000;
  const addresses = new Map<string, AddressCount>();
  const tokens = new Map<string, TokenCount>();
  let prunedAt = now();

  function prune(t: number) {
    if (t - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = t;
    for (const [key, a] of addresses) {
      a.failures = a.failures.filter((at) => at > t - windowMs);
      if (a.failures.length === 0 && a.pending === 0) addresses.delete(key);
    }
    for (const [key, k] of tokens) if (k.pending === 0 && k.touchedAt < t - tokenLifetimeSeconds * 1000) tokens.delete(key);
  }

  return {
    /**
     * Reserves a try from `address`, for the mailed code of `tokenKey` when the caller names
     * one (the email+code form). Throws 429 when either is at its limit.
     */
    begin(address: string, tokenKey?: string): VerifyAttempt {
      const t = now();
      prune(t);
      const a = addresses.get(address) ?? { failures: [], pending: 0 };
      a.failures = a.failures.filter((at) => at > t - windowMs);
      const k = tokenKey === undefined ? undefined : (tokens.get(tokenKey) ?? { failures: 0, pending: 0, touchedAt: t });
      if (a.failures.length + a.pending >= limits.perAddress) throw overRequestRateLimit();
      if (k && k.failures + k.pending >= limits.perToken) throw overRequestRateLimit();
      a.pending++;
      addresses.set(address, a);
      if (k && tokenKey !== undefined) {
        k.pending++;
        k.touchedAt = t;
        tokens.set(tokenKey, k);
      }
      let settled = false;
      const settle = (failed: boolean) => {
        if (settled) return false;
        settled = true;
        a.pending--;
        if (failed) a.failures.push(now());
        if (!k) return false;
        k.pending--;
        if (failed) k.failures++;
        return failed && k.failures >= limits.perToken;
      };
      return { fail: () => settle(true), release: () => void settle(false) };
    },

    /** A new code was mailed for `tokenKey`: its wrong tries start again from zero. */
    reset(tokenKey: string) {
      const k = tokens.get(tokenKey);
      if (k && k.pending === 0) tokens.delete(tokenKey);
      else if (k) k.failures = 0;
    },
  };
}
