/**
 * @module Which payment provider runs: the sandbox unless Stripe is configured. The sandbox
 * never takes real money, so it refuses to run in production, where a misconfiguration must
 * stop the server instead of handing out fake checkouts.
 */
import type { Db } from '@aim/supabase/db';
import type { BillingEventSink, PaymentProvider } from './payment-provider.ts';
import { createSandboxProvider } from './sandbox/sandbox-provider.ts';
import { stripeConfigFromEnv, type StripeEnv } from './stripe/client.ts';
import { createStripeProvider } from './stripe/stripe-provider.ts';

export interface ProviderEnv extends StripeEnv {
  NODE_ENV?: string;
  BILLING_PROVIDER?: string;
}

/**
 * @example
 * const provider = selectPaymentProvider({ db, emit, env: process.env })
 */
export function selectPaymentProvider(deps: { db: Db; emit: BillingEventSink; env: ProviderEnv; now?: () => Date }): PaymentProvider {
  const { env } = deps;
  const wanted = env.BILLING_PROVIDER ?? (env.STRIPE_SECRET_KEY ? 'stripe' : 'sandbox');
  if (wanted === 'stripe') {
    // STRIPE_API_BASE redirects the SDK (tests use a local fake); in production it would send the secret key elsewhere
    if (env.NODE_ENV === 'production' && env.STRIPE_API_BASE) throw new Error('STRIPE_API_BASE is for tests only and refused with NODE_ENV=production');
    return createStripeProvider(stripeConfigFromEnv(env));
  }
  if (wanted !== 'sandbox') throw new Error(`Unknown BILLING_PROVIDER ${JSON.stringify(wanted)} (sandbox or stripe)`);
  if (env.NODE_ENV === 'production') {
    throw new Error('The sandbox payment provider refuses to run with NODE_ENV=production: configure Stripe (STRIPE_SECRET_KEY)');
  }
  return createSandboxProvider(deps);
}
