/**
 * @module Auto top-up (spec §4, §9): the top-up itself, an off-session charge of the default
 * card when the balance is below the threshold (the settings: settings.ts).
 *
 * `maybeAutoTopUp(billing, userId)` is what the task engine calls after it charged credits
 * (`checkAfterCharge`, below); the sweep (workers/auto-topup-sweeper.ts, every API instance,
 * each minute) also checks every account found due (`topUpDueAccounts`), so an account whose
 * check was lost (a process dying after the charge committed) is still topped up without
 * waiting for its next task.
 * Safe to call any time and concurrently: at most one attempt is open per user (a partial
 * unique index), a failure waits out a backoff (10 min, then 20), and the third failure in a
 * row of any kind (declines, unknown outcomes; or at once one that retrying cannot fix, such
 * as a card that needs authentication) turns auto top-up off with the reason in
 * mdusers.auto_topup_disabled_reason. The spending controls (a monthly spending limit, at most
 * N charges a day, a monthly cap: ../spending-controls.ts) are checked by the database in the
 * statement that opens the attempt; a refusal is recorded for the dashboard and the account
 * is not tried again before the day, month or pending top-up it waits for.
 *
 * One shortfall is charged at most once (charge-attempt.ts): one attempt is one idempotency
 * key, a charge call that fails without an answer is retried with that key, and an attempt
 * whose outcome is not known is never replaced: the provider is asked what became of it.
 * Credits come from the same idempotent grant as the provider's webhook (../handle-event.ts),
 * whichever reports the success first.
 */
import { creditsForCents } from '../../../billing/catalog.ts';
import { billingRepository } from '../../../repositories/billing/billing-repository.ts';
import { offSessionChargeHeld } from '../account-hold.ts';
import type { Billing } from '../billing.ts';
import { sendLowBalanceAlert } from '../low-balance-alert.ts';
import { chargeAttempt, finishAttempt } from './charge-attempt.ts';
import type { AutoTopUpOutcome } from './types.ts';

const NO_CARD_REASON = 'Auto top-up was turned off: there is no saved card to charge';

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
 * What billing checks after a charge took credits (app.ts `afterCharge`, after the task's
 * transaction committed): the auto top-up first, since a top-up that brings the balance back
 * above the alert threshold makes the low-balance alert moot, then the alert. The sweep runs
 * both for every due account too, so a check lost with a dying process still happens within
 * a minute. The submit statement asks for this check when auto top-up is due or the charge
 * crossed the alert threshold.
 */
export async function checkAfterCharge(billing: Billing, userId: string): Promise<void> {
  try {
    await maybeAutoTopUp(billing, userId);
  } finally {
    await sendLowBalanceAlert(billing, userId);
  }
}
