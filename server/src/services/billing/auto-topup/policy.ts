/**
 * @module Auto top-up's rules that more than one step needs: which failures a retry cannot
 * fix, and how long an attempt may run before anyone else asks the provider about it.
 */

/** Failures a retry cannot fix (the user has to act): auto top-up turns off at once. */
export function isHopelessFailure(code: string): boolean {
  return code === 'authentication_required' || code === 'expired_card';
}

/**
 * Longer than any charge call takes (with its retries): an attempt still pending after this
 * lost its answer (a crash, a timeout, a webhook that has not come), so the next trigger or
 * the sweep asks the provider what became of it instead of waiting for the caller.
 */
export const AUTO_TOPUP_ATTEMPT_WINDOW_MS = 10 * 60_000;

/**
 * Providers keep an idempotency key for 24 hours (Stripe). An attempt without a payment id
 * older than this is not charged again with its key (a second request could then charge
 * twice); it fails as an unknown outcome, and a late success still grants through its webhook.
 */
export const AUTO_TOPUP_RESUME_LIMIT_MS = 23 * 3_600_000;

/** Waits between the tries of one charge call whose answer did not arrive (same idempotency key). */
export const AUTO_TOPUP_RETRY_DELAYS_MS: readonly number[] = [1_000, 4_000];
