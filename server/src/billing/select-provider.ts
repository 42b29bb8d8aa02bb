/**
 * @module Which payment provider runs: the sandbox unless Stripe is configured. The sandbox
 * never takes real money, so it refuses to run in production, where a misconfiguration must
 * stop the server instead of handing out fake checkouts.
 */
import type { Db } from '@aim/supabase/db';
import type { BillingEventSink, PaymentProvider } from './payment-provider.ts';
import { createSandboxProvider } from './sandbox/sandbox-provider.ts';

export interface ProviderEnv {
  NODE_ENV?: string;
  BILLING_PROVIDER?: string;
  STRIPE_SECRET_KEY?: string;
}

/**
 * @example
 * const provider = selectPaymentProvider({ db, emit, env: process.env })
 */
export function selectPaymentProvider(deps: { db: Db; emit: BillingEventSink; env: ProviderEnv; now?: () => Date }): PaymentProvider {
  const { env } = deps;
  const wanted = env.BILLING_PROVIDER ?? (env.STRIPE_SECRET_KEY ? 'stripe' : 'sandbox');
  if (wanted === 'stripe') throw new Error('BILLING_PROVIDER=stripe (or STRIPE_SECRET_KEY) is set, but this build has no Stripe adapter yet');
  if (wanted !== 'sandbox') throw new Error(`Unknown BILLING_PROVIDER ${JSON.stringify(wanted)} (sandbox or stripe)`);
  if (env.NODE_ENV === 'production') {
    throw new Error('The sandbox payment provider refuses to run with NODE_ENV=production: configure Stripe (STRIPE_SECRET_KEY)');
  }
  return createSandboxProvider(deps);
}
