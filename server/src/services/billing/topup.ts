/**
 * @module POST /auth/topup {amount}: a payment for whole $10 blocks (250 credits each) for a
 * user with an active plan. The credits arrive with the provider's payment event.
 */
import { randomUUID } from 'node:crypto';
import { CREDITS_PER_BLOCK, INVALID_TOPUP_AMOUNT_MESSAGE, parseTopupDollars, TOPUP_BLOCK_DOLLARS } from '../../billing/catalog.ts';
import { ApiError } from '../../errors.ts';
import type { Account } from '../../repositories/user-repository.ts';
import type { Billing } from './billing.ts';
import { billingAccount, ensureCustomer } from './customer.ts';

const SUBSCRIPTION_REQUIRED_MESSAGE = 'Buying credits requires an active subscription. Subscribe to a plan first.';

export async function topUp(billing: Billing, account: Account, amount: unknown): Promise<{ clientSecret: string; amount: number; credits: number }> {
  const dollars = parseTopupDollars(amount);
  if (dollars === undefined) throw new ApiError('validation_failed', INVALID_TOPUP_AMOUNT_MESSAGE);
  const row = await billingAccount(billing, account);
  if (row.plan === 'zero') throw new ApiError('conflict', SUBSCRIPTION_REQUIRED_MESSAGE);
  const customerId = await ensureCustomer(billing, account);
  const credits = (dollars / TOPUP_BLOCK_DOLLARS) * CREDITS_PER_BLOCK;
  // every click is its own payment; only a confirmed one is charged
  const { clientSecret } = await billing.provider.createPaymentIntent({
    customerId,
    kind: 'topup',
    amountCents: dollars * 100,
    credits,
    idempotencyKey: `topup:${account.id}:${randomUUID()}`,
  });
  return { clientSecret, amount: dollars, credits };
}
