// GET/POST /auth/spending-limits (server/src/routes/spending-limits.ts): the account's spending
// controls, what they count this month, and the last charge each refused. The database
// enforces them when a top-up or auto top-up is opened (docs/decisions/0014-spending-controls.md).

type ChargeRefusal = {
  /** Dollars of the refused charge. */
  amount: number;
  reason: 'monthly_spend_limit' | 'auto_topup_daily_count' | 'auto_topup_monthly_cap';
  message: string;
  created_at: string;
};

export type SpendingLimitsInput = {
  /** Dollars per calendar month (UTC) of top-ups and auto top-ups; null: no limit. */
  monthly_spend_limit?: number | null;
  auto_topup_max_per_day?: number;
  /** Dollars of auto top-ups per calendar month (UTC). */
  auto_topup_monthly_cap?: number;
  /** Credits; null: no alert. */
  low_balance_alert_at?: number | null;
};

export type SpendingLimits = {
  monthly_spend_limit: number | null;
  auto_topup_max_per_day: number;
  auto_topup_monthly_cap: number;
  low_balance_alert_at: number | null;
  usage: { month_spend: number; auto_topup_month: number; auto_topups_today: number };
  last_refusal: { topup: ChargeRefusal | null; auto_topup: ChargeRefusal | null };
  defaults: { monthly_spend_limit: null; auto_topup_max_per_day: number; auto_topup_monthly_cap: number; low_balance_alert_at: null };
};
