/**
 * @module Spending controls' SQL (docs/decisions/0014-spending-controls.md): the limits on
 * mdusers, what the account spent this month, the refusals, the top-up charges the limits
 * count, and the low-balance alert's state. The limits themselves are checked by
 * public.billing_open_charge (open-charge.ts), never here.
 */
import type { Queryable } from '@aim/supabase/db';
import { openCharge, type RefusalReason } from './open-charge.ts';

export interface SpendingSettings {
  /** Dollars per calendar month (UTC) of top-ups and auto top-ups; null: no limit. */
  monthly_spend_limit: number | null;
  auto_topup_max_per_day: number;
  /** Dollars of auto top-ups per calendar month (UTC). */
  auto_topup_monthly_cap: number;
  /** Credits; null: no alert. */
  low_balance_alert_at: number | null;
}

export interface SpendingUsage {
  /** Top-ups and auto top-ups this month, charged or pending, in cents. */
  month_spend_cents: number;
  /** Auto top-ups this month, charged or pending, in cents. */
  auto_topup_month_cents: number;
  /** Auto top-up charges today (UTC), charged or pending. */
  auto_topups_today: number;
}

export interface Refusal {
  kind: 'topup' | 'auto_topup';
  amount_cents: number;
  reason: RefusalReason;
  message: string;
  created_at: Date;
}

const SETTINGS_COLUMNS = 'monthly_spend_limit, auto_topup_max_per_day, auto_topup_monthly_cap, low_balance_alert_at';

export function spendingRepository(q: Queryable) {
  return {
    async settings(userId: string): Promise<SpendingSettings | undefined> {
      const { rows } = await q.query<SpendingSettings>(`select ${SETTINGS_COLUMNS} from public.mdusers where id = $1`, [userId]);
      return rows[0];
    },

    /** Writes the fields given (undefined: unchanged). The database's checks bound every value. */
    async saveSettings(userId: string, s: Partial<SpendingSettings>): Promise<SpendingSettings | undefined> {
      const fields = (['monthly_spend_limit', 'auto_topup_max_per_day', 'auto_topup_monthly_cap', 'low_balance_alert_at'] as const).filter(
        (f) => s[f] !== undefined,
      );
      if (fields.length === 0) return this.settings(userId);
      const set = fields.map((f, i) => `${f} = $${i + 2}`).join(', ');
      const { rows } = await q.query<SpendingSettings>(`update public.mdusers set ${set} where id = $1 returning ${SETTINGS_COLUMNS}`, [
        userId,
        ...fields.map((f) => s[f]),
      ]);
      return rows[0];
    },

    async usage(userId: string, at: Date): Promise<SpendingUsage> {
      const { rows } = await q.query<{ month: string; auto_month: string; today: number }>(
        `select public.billing_month_spend_cents($1, $2)::text as month,
                coalesce(sum(a.amount_cents), 0)::text as auto_month,
                (count(*) filter (where a.created_at >= date_trunc('day', $2::timestamptz, 'UTC')
                                    and a.created_at < date_trunc('day', $2::timestamptz, 'UTC') + interval '1 day'))::int as today
           from public.billing_auto_topup_attempts a
          where a.user_id = $1 and a.status in ('pending', 'succeeded')
            and a.created_at >= date_trunc('month', $2::timestamptz, 'UTC') and a.created_at < date_trunc('month', $2::timestamptz, 'UTC') + interval '1 month'`,
        [userId, at],
      );
      const r = rows[0];
      return { month_spend_cents: Number(r?.month ?? 0), auto_topup_month_cents: Number(r?.auto_month ?? 0), auto_topups_today: r?.today ?? 0 };
    },

    /** The newest refusal of the user's charges (of one kind, when given). */
    async lastRefusal(userId: string, kind?: Refusal['kind']): Promise<Refusal | undefined> {
      const { rows } = await q.query<Refusal>(
        `select kind, amount_cents, reason, message, created_at from public.billing_charge_refusals
          where user_id = $1 and ($2::text is null or kind = $2) order by created_at desc limit 1`,
        [userId, kind ?? null],
      );
      return rows[0];
    },

    /** Opens a top-up charge (counted by the monthly spending limit) or records its refusal. */
    async openTopUpCharge(c: { userId: string; amountCents: number; credits: number; at: Date }) {
      return openCharge(q, { ...c, kind: 'topup', paymentMethodId: null });
    },

    async setTopUpChargeIntent(chargeId: string, intentId: string): Promise<void> {
      await q.query('update public.billing_topup_charges set intent_id = $2 where id = $1', [chargeId, intentId]);
    },

    /** The provider refused to create the payment: nothing can be paid, so nothing counts. */
    async dropTopUpCharge(chargeId: string): Promise<void> {
      await q.query('delete from public.billing_topup_charges where id = $1 and intent_id is null', [chargeId]);
    },

    /**
     * Takes the user's due low-balance alert (a charge crossed the threshold since the last
     * one): answers where to send it, once, whoever asks concurrently.
     */
    async claimLowBalanceAlert(userId: string, at: Date): Promise<{ email: string; credits: number; threshold: number } | undefined> {
      const { rows } = await q.query<{ email: string; credits: number; threshold: number }>(
        `update public.mdusers set low_balance_alert_due = false, low_balance_alert_sent_at = $2
          where id = $1 and low_balance_alert_due and low_balance_alert_at is not null and credits < low_balance_alert_at
          returning email, credits, low_balance_alert_at as threshold`,
        [userId, at],
      );
      return rows[0];
    },

    /** The mail could not be sent: due again (unless the balance recovered meanwhile). */
    async releaseLowBalanceAlert(userId: string): Promise<void> {
      await q.query(
        `update public.mdusers set low_balance_alert_due = true, low_balance_alert_sent_at = null
          where id = $1 and not low_balance_alert_due and low_balance_alert_at is not null and credits < low_balance_alert_at`,
        [userId],
      );
    },

    async dueLowBalanceAlertUsers(limit: number): Promise<string[]> {
      const { rows } = await q.query<{ id: string }>(
        'select id from public.mdusers where low_balance_alert_due and credits < low_balance_alert_at order by id limit $1',
        [limit],
      );
      return rows.map((r) => r.id);
    },
  };
}
