/**
 * @module Auto top-up (spec §4, §9): the settings (threshold 250/500/1250/2500 credits,
 * amount in $10 blocks) and the top-up itself, an off-session charge of the default card
 * when the balance is below the threshold.
 *
 * `maybeAutoTopUp(billing, userId)` is what the task engine calls after it charged credits;
 * `autoTopUpSweeper` (every API instance, each minute) also checks every account found due,
 * so an account whose check was lost (a process dying after the charge committed) is still
 * topped up without waiting for its next task.
 * Safe to call any time and concurrently: at most one attempt is open per user (a partial
 * unique index), a failure waits out a backoff (10 min, then 20), and the third failure in a
 * row of any kind (declines, unknown outcomes; or at once one that retrying cannot fix, such
 * as a card that needs authentication) turns auto top-up off with the reason in
 * mdusers.auto_topup_disabled_reason. The spending controls (a monthly spending limit, at most
 * N charges a day, a monthly cap: spending-controls.ts) are checked by the database in the
 * statement that opens the attempt; a refusal is recorded for the dashboard and the account
 * is not tried again before the day, month or pending top-up it waits for.
 *
 * One shortfall is charged at most once (finish-attempt.ts): one attempt is one idempotency
 * key, a charge call that fails without an answer is retried with that key, and an attempt
 * whose outcome is not known is never replaced: the provider is asked what became of it.
 * Credits come from the same idempotent grant as the provider's webhook (handle-event.ts),
 * whichever reports the success first.
 */
import { AUTO_TOPUP_THRESHOLDS, creditsForCents, INVALID_TOPUP_AMOUNT_MESSAGE, parseTopupDollars } from '../../billing/catalog.ts';
import { ApiError } from '../../errors.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { billingRepository, type AutoTopUpSettings, type RefusalReason } from '../../repositories/billing-repository.ts';
import { accountGone } from '../account/account-gone.ts';
import { offSessionChargeHeld } from './account-hold.ts';
import type { Billing } from './billing.ts';
import { billingAccount } from './customer.ts';
import { periodic, type Periodic } from '../../workers/periodic.ts';
import { chargeAttempt, finishAbandonedAttempts, finishAttempt } from './finish-attempt.ts';
import { sendDueLowBalanceAlerts } from './low-balance-alert.ts';

const NO_CARD_MESSAGE = 'Add a payment method before turning on auto top-up';
const NO_CARD_REASON = 'Auto top-up was turned off: there is no saved card to charge';

export type AutoTopUpOutcome =
  | { status: 'skipped'; reason: 'disabled' | 'above_threshold' | 'no_subscription' | 'in_progress' | 'backoff' | 'on_hold' }
  | { status: 'skipped'; reason: 'limit_reached' }
  | { status: 'refused'; reason: RefusalReason; message: string }
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
  // a dispute, a negative balance or a past-due renewal: no off-session charge (account-hold.ts)
  if (await offSessionChargeHeld(billing.db, userId)) return { status: 'skipped', reason: 'on_hold' };
  const repo = billingRepository(billing.db);
  // a charge whose outcome is not known yet is finished first, whatever the settings say now
  const pending = await repo.pendingAttempt(userId);
  if (pending && (await finishAttempt(billing, pending)) === 'open') return { status: 'skipped', reason: 'in_progress' };

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
  // a spending control refused the last try: not again before the day, month or pending top-up it waits for
  if (row.auto_topup_refused_until && row.auto_topup_refused_until > now) return { status: 'skipped', reason: 'limit_reached' };

  const card = row.customer_id ? (await billing.provider.listPaymentMethods(row.customer_id)).find((c) => c.default) : undefined;
  if (!row.customer_id || !card) {
    await repo.setHasDefaultCard(userId, false);
    await repo.disableAutoTopUp(userId, NO_CARD_REASON);
    return { status: 'disabled', reason: NO_CARD_REASON };
  }

  const amountCents = row.auto_topup_amount * 100;
  // the spending controls are checked in the same statement that opens the attempt (public.billing_open_charge)
  const attempt = await repo.openAutoTopUpCharge({ userId, amountCents, credits: creditsForCents(amountCents), paymentMethodId: card.id, at: now });
  if (!attempt) return { status: 'skipped', reason: 'in_progress' };
  if ('refused' in attempt) {
    billing.log.info('auto top-up refused by a spending control', { user_id: userId, reason: attempt.reason });
    return { status: 'refused', reason: attempt.reason, message: attempt.message };
  }
  return chargeAttempt(billing, attempt, row.customer_id);
}

/**
 * Checks a batch of the accounts whose auto top-up is due. The check after a charge runs once
 * the task's transaction committed; a process that dies in between would leave the account
 * below its threshold until its next charge: this finds it. Fair: each batch takes the due
 * accounts checked longest ago, and accounts in backoff, with an attempt pending or refused
 * by a spending control take no slot (dueAutoTopUpUsers), so every due account gets its turn
 * however many there are. Safe in several processes at once (one open attempt per user).
 * Returns how many accounts were charged or had a charge started.
 */
export async function topUpDueAccounts(billing: Billing, limit = 50): Promise<number> {
  let started = 0;
  const due = await billingRepository(billing.db).dueAutoTopUpUsers(limit, { now: billing.now(), backoffMs: billing.autoTopUpBackoffMs });
  for (const userId of due) {
    try {
      const outcome = await maybeAutoTopUp(billing, userId);
      if (outcome.status === 'succeeded' || outcome.status === 'processing') started++;
    } catch (e) {
      billing.log.error('auto top-up sweep could not check an account', { user_id: userId, error: (e as Error).message });
    }
  }
  return started;
}

/**
 * The sweep every minute in every API instance (main.ts): abandoned attempts first, then due
 * accounts, then due low-balance alerts (low-balance-alert.ts).
 */
export function autoTopUpSweeper(billing: Billing, intervalMs = 60_000): Periodic {
  return periodic(
    async () => {
      await finishAbandonedAttempts(billing);
      await topUpDueAccounts(billing);
      await sendDueLowBalanceAlerts(billing);
    },
    {
      intervalMs,
      onError: (error) => billing.log.error('auto top-up sweep failed', { error: error instanceof Error ? error.message : String(error) }),
    },
  );
}
