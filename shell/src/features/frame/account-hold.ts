/**
 * Why the account is on hold (docs/decisions/0012-money-events.md), from what the dashboard can
 * read of its own rows, most pressing first: an open dispute or a negative balance refuses new
 * tasks; a past-due renewal pauses auto top-up and top-ups.
 */
export type AccountHold = 'dispute' | 'negative_balance' | 'past_due';

export function accountHoldOf(state: { openDispute: boolean; credits: number; subscriptionStatus: string | null | undefined }): AccountHold | null {
  if (state.openDispute) return 'dispute';
  if (state.credits < 0) return 'negative_balance';
  if (state.subscriptionStatus === 'past_due') return 'past_due';
  return null;
}

export const PAYMENT_METHODS_PATH = '/dashboard/billing/payment-methods';
export const SUBSCRIPTION_PATH = '/dashboard/billing/subscription';
