// The spending controls' form (POST /auth/spending-limits): what each field accepts, the same
// bounds the server and the database check (server/src/services/billing/spending-controls.ts).
import { digitsOnly } from '@aim/shared-kit/validate';
import type { SpendingLimits, SpendingLimitsInput } from '../../gateway/spending-limits.ts';

const n = new Intl.NumberFormat('en-US');

const SPENDING_FIELDS = {
  monthly_spend_limit: {
    min: 10,
    max: 1_000_000,
    optional: true,
    message: `Enter whole dollars from $10 to $${n.format(1_000_000)}, or leave empty for no limit`,
  },
  auto_topup_max_per_day: { min: 1, max: 20, optional: false, message: 'Enter a whole number from 1 to 20' },
  auto_topup_monthly_cap: { min: 10, max: 1_000_000, optional: false, message: `Enter whole dollars from $10 to $${n.format(1_000_000)}` },
  low_balance_alert_at: {
    min: 1,
    max: 10_000_000,
    optional: true,
    message: `Enter whole credits from 1 to ${n.format(10_000_000)}, or leave empty to turn the alert off`,
  },
} as const;

export type SpendingField = keyof typeof SPENDING_FIELDS;
export type SpendingForm = Record<SpendingField, string>;
export type SpendingErrors = Partial<Record<SpendingField, string>>;

/** Only digits are kept as the user types. */
export const cleanNumberInput = digitsOnly;

/** The form's text for the saved controls (an empty field: no limit, alert off). */
export function formOf(limits: SpendingLimits): SpendingForm {
  const text = (v: number | null) => (v === null ? '' : String(v));
  return {
    monthly_spend_limit: text(limits.monthly_spend_limit),
    auto_topup_max_per_day: text(limits.auto_topup_max_per_day),
    auto_topup_monthly_cap: text(limits.auto_topup_monthly_cap),
    low_balance_alert_at: text(limits.low_balance_alert_at),
  };
}

/** The request body for the form, or the message of every field that is not valid. */
export function parseSpendingForm(form: SpendingForm): { ok: true; input: Required<SpendingLimitsInput> } | { ok: false; errors: SpendingErrors } {
  const errors: SpendingErrors = {};
  const values: Partial<Record<SpendingField, number | null>> = {};
  for (const field of Object.keys(SPENDING_FIELDS) as SpendingField[]) {
    const rule = SPENDING_FIELDS[field];
    const raw = form[field].trim();
    if (raw === '' && rule.optional) {
      values[field] = null;
      continue;
    }
    const value = /^[0-9]{1,9}$/.test(raw) ? Number(raw) : Number.NaN;
    if (Number.isInteger(value) && value >= rule.min && value <= rule.max) values[field] = value;
    else errors[field] = rule.message;
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    input: {
      monthly_spend_limit: values.monthly_spend_limit ?? null,
      auto_topup_max_per_day: values.auto_topup_max_per_day as number,
      auto_topup_monthly_cap: values.auto_topup_monthly_cap as number,
      low_balance_alert_at: values.low_balance_alert_at ?? null,
    },
  };
}

/** "$1,250" for dollars (whole, or with cents when there are any). */
export function formatUsd(usd: number): string {
  return `$${usd.toLocaleString('en-US', { minimumFractionDigits: Number.isInteger(usd) ? 0 : 2, maximumFractionDigits: 2 })}`;
}
