/**
 * @module When a failed webhook attempt is tried again: exponential-ish steps with ±20 %
 * jitter (so receivers coming back up are not hit by every sender in the same second),
 * bounded to MAX_ATTEMPTS attempts over about ten hours.
 */

/** Delay after the 1st, 2nd, … failed attempt. */
export const RETRY_DELAYS_MS = [10_000, 30_000, 120_000, 600_000, 3_600_000, 10_800_000, 21_600_000];

/** The first attempt plus one per delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/**
 * The wait before the next attempt after `attempt` (1-based) attempts failed, or null when
 * that was the last one. `random` returns [0, 1) (Math.random by default).
 */
export function nextRetryDelayMs(attempt: number, random: () => number = Math.random): number | null {
  if (attempt >= MAX_ATTEMPTS) return null;
  const base = RETRY_DELAYS_MS[attempt - 1];
  return Math.round(base * (0.8 + 0.4 * random()));
}
