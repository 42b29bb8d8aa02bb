// Stripe.js comes only from js.stripe.com and only when the provider is Stripe: the /pure entry
// does not inject the script on import (the default entry would, even in sandbox mode).
import { loadStripe } from '@stripe/stripe-js/pure';
import type { Stripe } from '@stripe/stripe-js';

const STRIPE_LOAD_TIMEOUT_MS = 15_000;
export const STRIPE_LOAD_FAILED = "The payment form couldn't load (offline or blocked).";

let cached: { key: string; promise: Promise<Stripe> } | null = null;

/**
 * Stripe.js for a publishable key, once per page. loadStripe retries once and then rejects; a
 * blocked script may also never settle, hence the timeout. A failure is not cached, so Retry
 * asks again.
 */
export function loadStripeOnce(
  publishableKey: string,
  load: (key: string) => Promise<Stripe | null> = loadStripe,
  timeoutMs = STRIPE_LOAD_TIMEOUT_MS,
): Promise<Stripe> {
  if (cached?.key === publishableKey) return cached.promise;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = Promise.race([
    load(publishableKey),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Stripe.js did not load within ${timeoutMs / 1000} s`)), timeoutMs);
    }),
  ])
    .then((stripe) => {
      if (!stripe) throw new Error('Stripe.js is not available in this environment');
      return stripe;
    })
    .finally(() => clearTimeout(timer));
  const entry = { key: publishableKey, promise };
  cached = entry;
  promise.catch(() => {
    if (cached === entry) cached = null;
  });
  return promise;
}
