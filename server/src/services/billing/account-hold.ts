/**
 * @module The account hold (docs/decisions/0012-money-events.md): an open dispute or a
 * negative balance (after a refund took a payment's credits back) refuses new tasks (the
 * tasks_account_hold trigger, SQLSTATE PH403) and off-session charges; a past-due
 * subscription (a failed renewal) also pauses auto top-up and refuses top-ups.
 */
import type { Db, Queryable } from '@aim/supabase/db';
import { isPgError } from '@aim/supabase/db';
import { ApiError } from '../../errors.ts';
import { type AccountHold, moneyEventsRepository } from '../../repositories/billing/money-events.ts';

/** SQLSTATE of the tasks_account_hold trigger (migration 20261128000200_money_events.sql). */
const ACCOUNT_ON_HOLD_SQLSTATE = 'PH403';

const HOLD_MESSAGES: Record<AccountHold, string> = {
  dispute: 'Your account is on hold: a payment was disputed. Contact support or resolve the dispute to continue.',
  negative_balance: 'Your balance is negative after a refund. Buy credits to continue.',
  past_due: 'Your last renewal payment failed. Update your card to keep your plan.',
};

export function isAccountOnHold(error: unknown): boolean {
  return isPgError(error) && error.code === ACCOUNT_ON_HOLD_SQLSTATE;
}

export async function accountHold(db: Queryable, userId: string): Promise<AccountHold | undefined> {
  return moneyEventsRepository(db).holdOf(userId);
}

/**
 * The refusal of a task submit that failed with P0402 (not enough credits) or PH403 (hold):
 * the hold's own message when the account is held (a negative balance fails the hold first),
 * else undefined (a plain shortage).
 */
export async function taskHoldError(db: Db, userId: string): Promise<ApiError | undefined> {
  const hold = await accountHold(db, userId);
  if (hold === 'dispute' || hold === 'negative_balance') return new ApiError('account_on_hold', HOLD_MESSAGES[hold]);
  return undefined;
}

/** Whether an off-session charge (auto top-up) must wait: any hold, a past-due renewal included. */
export async function offSessionChargeHeld(db: Queryable, userId: string): Promise<boolean> {
  return (await accountHold(db, userId)) !== undefined;
}

/** Refuses a top-up while a renewal is past due (the card on file failed: update it first). */
export async function assertTopUpAllowed(db: Queryable, userId: string): Promise<void> {
  const hold = await accountHold(db, userId);
  if (hold === 'past_due') throw new ApiError('account_on_hold', HOLD_MESSAGES.past_due);
  if (hold === 'dispute') throw new ApiError('account_on_hold', HOLD_MESSAGES.dispute);
}
