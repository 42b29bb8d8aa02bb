/**
 * @module Auto top-up (spec §4, §9): the settings (threshold 250/500/1250/2500 credits,
 * amount in $10 blocks) and the top-up itself, an off-session charge of the default card
 * when the balance is below the threshold.
 *
 * `maybeAutoTopUp(billing, userId)` is what the task engine calls after it charged credits.
 * Safe to call any time and concurrently: at most one attempt is open per user (a partial
 * unique index), a failure waits out a backoff (10 min, then 20), and the third failure in a
 * row (or one that retrying cannot fix, such as a card that needs authentication) turns auto
 * top-up off with the reason in mdusers.auto_topup_disabled_reason. Credits arrive only
 * through the provider's payment event (handle-event.ts), which also closes the attempt.
 */
import { AUTO_TOPUP_MAX_FAILURES, AUTO_TOPUP_THRESHOLDS, creditsForCents, INVALID_TOPUP_AMOUNT_MESSAGE, parseTopupDollars } from '../../billing/catalog.ts';
import { ApiError } from '../../errors.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { billingRepository, type AutoTopUpSettings } from '../../repositories/billing-repository.ts';
import { accountGone } from '../account/account-gone.ts';
import type { Billing } from './billing.ts';
import { billingAccount } from './customer.ts';

const NO_CARD_MESSAGE = 'Add a payment method before turning on auto top-up';
const NO_CARD_REASON = 'Auto top-up was turned off: there is no saved card to charge';
/** Longer than any charge takes: an attempt still pending after this was abandoned (a crash). */
const STALE_ATTEMPT_MS = 10 * 60_000;

/** Failures a retry cannot fix (the user has to act): auto top-up turns off at once. */
export function isHopelessFailure(code: string): boolean {
  return code === 'authentication_required' || code === 'expired_card';
}

export type AutoTopUpOutcome =
  | { status: 'skipped'; reason: 'disabled' | 'above_threshold' | 'no_subscription' | 'in_progress' | 'backoff' }
  | { status: 'disabled'; reason: string }
  | { status: 'succeeded' | 'processing'; intentId: string }
  | { status: 'failed'; intentId: string | null; code: string; message: string };

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

export async function maybeAutoTopUp(billing: Billing, userId: string): Promise<AutoTopUpOutcome> {
  const repo = billingRepository(billing.db);
  const row = await repo.account(userId);
  if (!row?.auto_topup) return { status: 'skipped', reason: 'disabled' };
  if (row.credits >= row.auto_topup_min) return { status: 'skipped', reason: 'above_threshold' };
  if (row.plan === 'zero') return { status: 'skipped', reason: 'no_subscription' };
  const now = billing.now();

  if (row.auto_topup_failures > 0) {
    const last = await repo.lastFinishedAttempt(userId);
    const wait = billing.autoTopUpBackoffMs * 2 ** (row.auto_topup_failures - 1);
    if (last && last.finished_at.getTime() + wait > now.getTime()) return { status: 'skipped', reason: 'backoff' };
  }

  const card = row.customer_id ? (await billing.provider.listPaymentMethods(row.customer_id)).find((c) => c.default) : undefined;
  if (!row.customer_id || !card) {
    await repo.disableAutoTopUp(userId, NO_CARD_REASON);
    return { status: 'disabled', reason: NO_CARD_REASON };
  }

  await repo.expireStaleAttempts(userId, new Date(now.getTime() - STALE_ATTEMPT_MS));
  const amountCents = row.auto_topup_amount * 100;
  const credits = creditsForCents(amountCents);
  const attemptId = await repo.openAutoTopUpAttempt(userId, amountCents, credits);
  if (!attemptId) return { status: 'skipped', reason: 'in_progress' };

  let result: Awaited<ReturnType<typeof billing.provider.chargeOffSession>>;
  try {
    result = await billing.provider.chargeOffSession({
      customerId: row.customer_id,
      paymentMethodId: card.id,
      amountCents,
      credits,
      metadata: { attempt_id: attemptId, user_id: userId },
      idempotencyKey: `auto-topup:${attemptId}`,
    });
  } catch (e) {
    billing.log.error('auto top-up charge failed', { user_id: userId, attempt_id: attemptId, error: (e as Error).message });
    const message = 'The payment provider could not be reached';
    await repo.attemptFailed({ attemptId, intentId: null, code: 'provider_error', message, at: now, maxFailures: AUTO_TOPUP_MAX_FAILURES, disable: false });
    return { status: 'failed', intentId: null, code: 'provider_error', message };
  }
  await repo.setAttemptIntent(attemptId, result.intentId);
  if (result.status !== 'failed') return result;
  // the provider's failure event does the same; whichever comes first counts it, once
  await repo.attemptFailed({
    attemptId,
    intentId: result.intentId,
    code: result.declineCode ?? result.code,
    message: result.message,
    at: now,
    maxFailures: AUTO_TOPUP_MAX_FAILURES,
    disable: isHopelessFailure(result.code),
  });
  return { status: 'failed', intentId: result.intentId, code: result.declineCode ?? result.code, message: result.message };
}
