/**
 * @module Saving the auto top-up settings (spec §4, §9): the threshold (250/500/1250/2500
 * credits) and the amount (in $10 blocks). Turning it on needs a default card, and below
 * the threshold tops up at once (trigger.ts).
 */
import { AUTO_TOPUP_THRESHOLDS, INVALID_TOPUP_AMOUNT_MESSAGE, parseTopupDollars } from '../../../billing/catalog.ts';
import { ApiError } from '../../../errors.ts';
import type { AutoTopUpSettings } from '../../../repositories/billing/accounts.ts';
import { billingRepository } from '../../../repositories/billing/billing-repository.ts';
import type { Account } from '../../../repositories/user-repository.ts';
import { accountGone } from '../../account/account-gone.ts';
import type { Billing } from '../billing.ts';
import { billingAccount } from '../customer.ts';
import { maybeAutoTopUp } from './trigger.ts';

const NO_CARD_MESSAGE = 'Add a payment method before turning on auto top-up';

export async function saveAutoTopUpSettings(
  billing: Billing,
  account: Account,
  input: { auto_topup: boolean; auto_topup_min: number; auto_topup_amount?: unknown },
): Promise<AutoTopUpSettings> {
  if (!(AUTO_TOPUP_THRESHOLDS as readonly number[]).includes(input.auto_topup_min)) {
    throw new ApiError('validation_failed', `auto_topup_min: must be one of ${AUTO_TOPUP_THRESHOLDS.join(', ')}`);
  }
  const amountDollars = parseTopupDollars(input.auto_topup_amount);
  if (amountDollars === undefined) throw new ApiError('validation_failed', INVALID_TOPUP_AMOUNT_MESSAGE);
  if (input.auto_topup) {
    const row = await billingAccount(billing, account);
    const cards = row.customer_id ? await billing.provider.listPaymentMethods(row.customer_id) : [];
    if (!cards.some((c) => c.default)) throw new ApiError('conflict', NO_CARD_MESSAGE);
  }
  const saved = await billingRepository(billing.db).saveAutoTopUpSettings(account.id, { enabled: input.auto_topup, min: input.auto_topup_min, amountDollars });
  if (!saved) throw accountGone();
  if (!saved.auto_topup) return saved;
  // turning it on below the threshold tops up now rather than at the next charge
  await maybeAutoTopUp(billing, account.id);
  return (await billingRepository(billing.db).autoTopUpSettings(account.id)) ?? saved;
}
