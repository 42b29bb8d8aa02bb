/**
 * @module POST /auth/topup {amount}: a payment for whole $10 blocks (250 credits each) for a
 * user with an active plan. The credits arrive with the provider's payment event. The
 * account's monthly spending limit is checked by the database as the charge is opened
 * (public.billing_open_charge); over it, 409 with the limit's message (also recorded as a
 * refusal for the dashboard).
 */
import { CREDITS_PER_BLOCK, INVALID_TOPUP_AMOUNT_MESSAGE, parseTopupDollars, TOPUP_BLOCK_DOLLARS } from '../../billing/catalog.ts';
import { ApiError } from '../../errors.ts';
import { spendingRepository } from '../../repositories/billing/spending.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { assertTopUpAllowed } from './account-hold.ts';
import { accountGone } from '../account/account-gone.ts';
import type { Billing } from './billing.ts';
import { billingAccount, ensureCustomer } from './customer.ts';

const SUBSCRIPTION_REQUIRED_MESSAGE = 'Buying credits requires an active subscription. Subscribe to a plan first.';

export async function topUp(billing: Billing, account: Account, amount: unknown): Promise<{ clientSecret: string; amount: number; credits: number }> {
  const dollars = parseTopupDollars(amount);
  if (dollars === undefined) throw new ApiError('validation_failed', INVALID_TOPUP_AMOUNT_MESSAGE);
  const row = await billingAccount(billing, account);
  if (row.plan === 'zero') throw new ApiError('conflict', SUBSCRIPTION_REQUIRED_MESSAGE);
  await assertTopUpAllowed(billing.db, account.id);
  const customerId = await ensureCustomer(billing, account);
  const credits = (dollars / TOPUP_BLOCK_DOLLARS) * CREDITS_PER_BLOCK;
  const spending = spendingRepository(billing.db);
  const opened = await spending.openTopUpCharge({ userId: account.id, amountCents: dollars * 100, credits, at: billing.now() });
  if (opened.outcome === 'refused') throw new ApiError('conflict', opened.message);
  if (opened.outcome !== 'opened') throw accountGone();
  // every click is its own payment (its own charge and key); only a confirmed one is charged
  let checkout: { providerRef: string; clientSecret: string };
  try {
    checkout = await billing.provider.createPaymentIntent({
      customerId,
      kind: 'topup',
      amountCents: dollars * 100,
      credits,
      idempotencyKey: `topup:${account.id}:${opened.chargeId}`,
    });
  } catch (e) {
    await spending.dropTopUpCharge(opened.chargeId);
    throw e;
  }
  await spending.setTopUpChargeIntent(opened.chargeId, checkout.providerRef);
  return { clientSecret: checkout.clientSecret, amount: dollars, credits };
}
