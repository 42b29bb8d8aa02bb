/**
 * @module POST /auth/trial: the $10, 7-day trial for a user with no plan who never trialed.
 * At most one trial per user, even under concurrent clicks: eligibility is checked under a
 * row lock and the trial checkout has a unique index per user, so every call gets the same
 * payment; once it is paid (handle-event.ts sets mdusers.trialed) no new one is offered.
 */
import { TRIAL } from '../../billing/catalog.ts';
import { ApiError } from '../../errors.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { billingRepository } from '../../repositories/billing/billing-repository.ts';
import { accountGone } from '../account/account-gone.ts';
import type { Billing } from './billing.ts';
import { ensureCustomer } from './customer.ts';

const TRIAL_NOT_ELIGIBLE_MESSAGE = 'The trial is only available once, to accounts without a plan';

export async function startTrial(billing: Billing, account: Account): Promise<{ clientSecret: string; amount: number; credits: number; days: number }> {
  const customerId = await ensureCustomer(billing, account);
  const checkout = await billing.db.transaction(async (tx) => {
    const repo = billingRepository(tx);
    const row = await repo.lockAccount(account.id);
    if (!row) throw accountGone();
    const existing = await repo.trialCheckout(account.id);
    if (row.plan !== 'zero' || row.trialed || existing?.status === 'completed') throw new ApiError('conflict', TRIAL_NOT_ELIGIBLE_MESSAGE);
    return existing ?? repo.insertCheckout(account.id, 'trial', null);
  });
  let clientSecret = checkout.client_secret;
  if (!clientSecret) {
    const started = await billing.provider.createPaymentIntent({
      customerId,
      kind: 'trial',
      amountCents: TRIAL.amountCents,
      credits: TRIAL.credits,
      idempotencyKey: `checkout:${checkout.id}`,
    });
    await billingRepository(billing.db).setCheckoutProvider(checkout.id, started.providerRef, started.clientSecret);
    clientSecret = started.clientSecret;
  }
  return { clientSecret, amount: TRIAL.amountCents / 100, credits: TRIAL.credits, days: TRIAL.days };
}
