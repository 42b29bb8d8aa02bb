/**
 * @module POST /auth/cancel: stop renewing at the end of the paid period. The plan and its
 * credits stay until then; next_billing_date is cleared at once (the dashboard then shows
 * Cancelled). When the period ends the provider reports the subscription deleted and the
 * plan goes back to zero. Cancelling again is a no-op.
 */
import { ApiError } from '../../errors.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { billingRepository } from '../../repositories/billing/billing-repository.ts';
import type { Billing } from './billing.ts';
import { billingAccount } from './customer.ts';

const NOTHING_TO_CANCEL_MESSAGE = 'There is no active subscription to cancel';

export async function cancelSubscription(billing: Billing, account: Account): Promise<{ plan: string; next_billing_date: null; access_until: string | null }> {
  const row = await billingAccount(billing, account);
  const sub = await billingRepository(billing.db).subscription(account.id);
  if (!sub || sub.status === 'canceled' || !row.customer_id) throw new ApiError('conflict', NOTHING_TO_CANCEL_MESSAGE);
  if (!sub.cancel_at_period_end) await billing.provider.cancelSubscription({ customerId: row.customer_id, subscriptionId: sub.subscription_id });
  await billing.db.transaction((tx) => billingRepository(tx).markCancelAtPeriodEnd(account.id, billing.now()));
  return { plan: sub.plan, next_billing_date: null, access_until: sub.current_period_end?.toISOString() ?? null };
}
