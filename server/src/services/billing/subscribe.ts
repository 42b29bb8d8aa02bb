/**
 * @module POST /auth/subscribe {plan}: a subscription checkout, or a plan change when a plan
 * is active. Nothing changes until the provider reports the invoice paid (handle-event.ts).
 *
 * Clicking again before paying hands out the same checkout (one open checkout per user, under
 * a row lock; the provider call keyed by it). A different plan replaces the open checkout.
 * A plan change is billed in full at once and starts a new monthly period with the new
 * plan's credits (no proration) [product decision].
 *
 * At most one live subscription (docs/decisions/0012-money-events.md): a superseded checkout
 * is abandoned at the provider as well (invoice voided, unpaid subscription cancelled), and
 * switching plan after a cancel turns renewal back on at the provider.
 */
import type { PlanId } from '../../billing/catalog.ts';
import { ProviderError, type SubscriptionCheckout } from '../../billing/payment-provider.ts';
import { ApiError } from '../../errors.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { billingRepository } from '../../repositories/billing/billing-repository.ts';
import { accountGone } from '../account/account-gone.ts';
import type { Billing } from './billing.ts';
import { ensureCustomer } from './customer.ts';

export async function subscribe(billing: Billing, account: Account, plan: PlanId): Promise<{ clientSecret: string }> {
  const customerId = await ensureCustomer(billing, account);
  const current = await billingRepository(billing.db).subscription(account.id);
  const active = current && current.status !== 'canceled' ? current : undefined;
  if (active?.plan === plan) throw new ApiError('conflict', 'You are already subscribed to this plan');

  let superseded: string | null = null;
  const checkout = await billing.db.transaction(async (tx) => {
    const repo = billingRepository(tx);
    if (!(await repo.lockAccount(account.id))) throw accountGone();
    const open = await repo.openCheckout(account.id, 'subscription');
    if (open?.plan === plan) return open;
    if (open) {
      await repo.supersedeCheckout(open.id);
      superseded = open.provider_ref;
    }
    return repo.insertCheckout(account.id, 'subscription', plan);
  });
  // one live subscription: the replaced checkout's invoice is voided (and its never-paid
  // subscription cancelled) at the provider too, so an old tab can no longer pay it
  if (superseded) await billing.provider.abandonSubscriptionCheckout({ customerId, invoiceId: superseded });
  if (checkout.client_secret) return { clientSecret: checkout.client_secret };

  // switching plan after cancelling: the new plan renews (the provider would otherwise still end it)
  if (active?.cancel_at_period_end) await resumeOrGone(billing, customerId, active.subscription_id);

  const idempotencyKey = `checkout:${checkout.id}`;
  const started = active
    ? await changePlanOrStartOver(billing, { customerId, subscriptionId: active.subscription_id, plan, idempotencyKey })
    : await billing.provider.createSubscription({ customerId, plan, idempotencyKey });
  await billingRepository(billing.db).setCheckoutProvider(checkout.id, started.providerRef, started.clientSecret);
  return { clientSecret: started.clientSecret };
}

async function resumeOrGone(billing: Billing, customerId: string, subscriptionId: string): Promise<void> {
  try {
    await billing.provider.resumeSubscription({ customerId, subscriptionId });
  } catch (e) {
    // ended at the provider already: changePlanOrStartOver starts a new one
    if (!(e instanceof ProviderError && e.code === 'resource_missing')) throw e;
  }
}

/**
 * A plan change of the current subscription; when the provider says that subscription is gone
 * (its period ended and the event telling us has not arrived yet), a new subscription instead,
 * under its own idempotency key.
 */
async function changePlanOrStartOver(
  billing: Billing,
  input: { customerId: string; subscriptionId: string; plan: PlanId; idempotencyKey: string },
): Promise<SubscriptionCheckout> {
  try {
    return await billing.provider.changeSubscriptionPlan(input);
  } catch (e) {
    if (!(e instanceof ProviderError && e.code === 'resource_missing')) throw e;
    billing.log.info('subscription gone at the provider: starting a new one', { subscription_id: input.subscriptionId });
    return billing.provider.createSubscription({ customerId: input.customerId, plan: input.plan, idempotencyKey: `${input.idempotencyKey}:new` });
  }
}
