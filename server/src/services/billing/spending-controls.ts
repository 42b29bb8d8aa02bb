/**
 * @module Spending controls (docs/decisions/0014-spending-controls.md): the account's monthly
 * spending limit, the auto top-up caps, and the low-balance alert threshold, read and saved
 * through GET/POST /auth/spending-limits (the only write path; the dashboard has no column
 * grant). The database enforces the limits when a charge is opened
 * (public.billing_open_charge); this module only validates and shows them.
 */
import { accountGone } from '../account/account-gone.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { spendingRepository, type Refusal, type SpendingSettings, type SpendingUsage } from '../../repositories/billing/spending.ts';
import type { Billing } from './billing.ts';

/** The bounds the database checks too (20261128000400_spending_controls.sql). */
export const SPENDING_LIMITS = {
  /** Dollars per calendar month (UTC) of top-ups and auto top-ups; default none. */
  monthlySpendLimit: { min: 10, max: 1_000_000, default: null },
  /** Auto top-up charges per calendar day (UTC). */
  autoTopUpMaxPerDay: { min: 1, max: 20, default: 3 },
  /** Dollars of auto top-ups per calendar month (UTC). */
  autoTopUpMonthlyCap: { min: 10, max: 1_000_000, default: 500 },
  /** Credits; default off. */
  lowBalanceAlertAt: { min: 1, max: 10_000_000, default: null },
} as const;

export interface SpendingControls extends SpendingSettings {
  usage: { month_spend: number; auto_topup_month: number; auto_topups_today: number };
  /** The newest refused charge of each kind, with the limit's message. */
  last_refusal: { topup: RefusalView | null; auto_topup: RefusalView | null };
  defaults: { monthly_spend_limit: null; auto_topup_max_per_day: number; auto_topup_monthly_cap: number; low_balance_alert_at: null };
}

interface RefusalView {
  amount: number;
  reason: Refusal['reason'];
  message: string;
  created_at: string;
}

const DEFAULTS = {
  monthly_spend_limit: SPENDING_LIMITS.monthlySpendLimit.default,
  auto_topup_max_per_day: SPENDING_LIMITS.autoTopUpMaxPerDay.default,
  auto_topup_monthly_cap: SPENDING_LIMITS.autoTopUpMonthlyCap.default,
  low_balance_alert_at: SPENDING_LIMITS.lowBalanceAlertAt.default,
};

function refusalView(r: Refusal | undefined): RefusalView | null {
  return r ? { amount: r.amount_cents / 100, reason: r.reason, message: r.message, created_at: r.created_at.toISOString() } : null;
}

function usageView(u: SpendingUsage): SpendingControls['usage'] {
  return { month_spend: u.month_spend_cents / 100, auto_topup_month: u.auto_topup_month_cents / 100, auto_topups_today: u.auto_topups_today };
}

export async function getSpendingControls(billing: Billing, account: Account): Promise<SpendingControls> {
  const repo = spendingRepository(billing.db);
  const settings = await repo.settings(account.id);
  if (!settings) throw accountGone();
  const [usage, topup, auto] = await Promise.all([
    repo.usage(account.id, billing.now()),
    repo.lastRefusal(account.id, 'topup'),
    repo.lastRefusal(account.id, 'auto_topup'),
  ]);
  return { ...settings, usage: usageView(usage), last_refusal: { topup: refusalView(topup), auto_topup: refusalView(auto) }, defaults: DEFAULTS };
}

/** Saves the fields given (validated by the route's schema; the database checks the bounds again). */
export async function saveSpendingControls(billing: Billing, account: Account, input: Partial<SpendingSettings>): Promise<SpendingControls> {
  const saved = await spendingRepository(billing.db).saveSettings(account.id, input);
  if (!saved) throw accountGone();
  return getSpendingControls(billing, account);
}
