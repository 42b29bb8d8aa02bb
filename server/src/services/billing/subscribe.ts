/**
 * @module POST /auth/subscribe {plan}: a subscription checkout, or a plan change when a plan
 * is active. Nothing changes until the provider reports the invoice paid (handle-event.ts).
 *
 * Clicking again before paying hands out the same checkout (one open checkout per user, under
 * a row lock; the provider call keyed by it). A different plan replaces the open checkout.
 * A plan change is billed in full at once and starts a new monthly period with the new
 * plan's credits (no proration) [product decision].
 */
import type { PlanId } from '../../billing/catalog.ts';
import { ApiError } from '../../errors.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { billingRepository } from '../../repositories/billing-repository.ts';
import { accountGone } from '../account/account-gone.ts';
import type { Billing } from './billing.ts';
import { ensureCustomer } from './customer.ts';

export async function subscribe(billing: Billing, account: Account, plan: PlanId): Promise<{ clientSecret: string }> {
  const customerId = await ensureCustomer(billing, account);
  const current = await billingRepository(billing.db).subscription(account.id);
  const active = current && current.status !== 'canceled' ? current : undefined;
  if (active?.plan === plan) throw new ApiError('conflict', 'You are already subscribed to this plan');

  const checkout = await billing.db.transaction(async (tx) => {
    const repo = billingRepository(tx);
    if (!(await repo.lockAccount(account.id))) throw accountGone();
    const open = await repo.openCheckout(account.id, 'subscription');
    if (open?.plan === plan) return open;
    if (open) await repo.supersedeCheckout(open.id);
    return repo.insertCheckout(account.id, 'subscription', plan);
  });
  if (checkout.client_secret) return { clientSecret: checkout.client_secret };

  const idempotencyKey = `checkout:${checkout.id}`;
  const started = active
    ? await billing.provider.changeSubscriptionPlan({ customerId, subscriptionId: active.subscription_id, plan, idempotencyKey })
    : await billing.provider.createSubscription({ customerId, plan, idempotencyKey });
  await billingRepository(billing.db).setCheckoutProvider(checkout.id, started.providerRef, started.clientSecret);
  return { clientSecret: started.clientSecret };
}
