/**
 * @module Which payment provider runs. Stripe when it is configured; the sandbox (fake
 * money, test cards) only where it is meant to run: embedded mode (`npm start` on one
 * machine), or a deployment that opts in explicitly with BILLING_PROVIDER=sandbox (a preview
 * or staging environment that must never take real money). Any other process without
 * Stripe keys refuses to start billing and names what is missing. NODE_ENV plays no part:
 * an unset or mistyped NODE_ENV must not turn a production server into a free-credits one.
 */
import type { Db } from '@aim/supabase/db';
import type { BillingEventSink, PaymentProvider } from './payment-provider.ts';
import { createSandboxProvider } from './sandbox/sandbox-provider.ts';
import { STRIPE_ENV_VARIABLES, stripeConfigFromEnv, type StripeEnv } from './stripe/client.ts';
import { createStripeProvider } from './stripe/stripe-provider.ts';

export interface ProviderEnv extends StripeEnv {
  NODE_ENV?: string;
  /** `stripe` or `sandbox` (the explicit opt-in outside embedded mode); default: Stripe when STRIPE_SECRET_KEY is set. */
  BILLING_PROVIDER?: string;
}

/**
 * @example
 * const provider = selectPaymentProvider({ db, emit, env: process.env, embedded: false })
 */
export function selectPaymentProvider(deps: { db: Db; emit: BillingEventSink; env: ProviderEnv; embedded: boolean; now?: () => Date }): PaymentProvider {
  const { env } = deps;
  const wanted = env.BILLING_PROVIDER || (env.STRIPE_SECRET_KEY ? 'stripe' : deps.embedded ? 'sandbox' : undefined);
  if (wanted === undefined) {
    const missing = STRIPE_ENV_VARIABLES.filter((name) => !env[name]);
    throw new Error(
      `Billing needs Stripe outside embedded mode: set ${missing.join(', ')}. ` +
        'For a test deployment that must take no real money, set BILLING_PROVIDER=sandbox instead.',
    );
  }
  if (wanted === 'stripe') {
    // STRIPE_API_BASE redirects the SDK (tests use a local fake); in production it would send the secret key elsewhere
    if (env.NODE_ENV === 'production' && env.STRIPE_API_BASE) throw new Error('STRIPE_API_BASE is for tests only and refused with NODE_ENV=production');
    return createStripeProvider(stripeConfigFromEnv(env));
  }
  if (wanted !== 'sandbox') throw new Error(`Unknown BILLING_PROVIDER ${JSON.stringify(wanted)} (sandbox or stripe)`);
  return createSandboxProvider(deps);
}
