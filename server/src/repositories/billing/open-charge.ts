/**
 * @module public.billing_open_charge, shared by the two charges the spending controls limit:
 * an auto top-up attempt (auto-topup-attempts.ts) and a top-up (spending.ts).
 */
import type { Queryable } from '@aim/supabase/db';

/** A charge a spending control refused (recorded in billing_charge_refusals). */
export interface ChargeRefusal {
  refused: true;
  reason: RefusalReason;
  message: string;
}

export type RefusalReason = 'monthly_spend_limit' | 'auto_topup_daily_count' | 'auto_topup_monthly_cap';

type OpenedCharge =
  | { outcome: 'opened'; chargeId: string }
  | { outcome: 'refused'; reason: RefusalReason; message: string }
  | { outcome: 'not_due' | 'in_progress' | 'gone' };

/**
 * public.billing_open_charge: the limits checked and the charge (auto top-up attempt, or
 * top-up) opened or its refusal recorded, in one statement under the user's row lock.
 */
export async function openCharge(
  q: Queryable,
  c: { userId: string; kind: 'topup' | 'auto_topup'; amountCents: number; credits: number; paymentMethodId: string | null; at: Date },
): Promise<OpenedCharge> {
  const { rows } = await q.query<{ outcome: string; charge_id: string | null; reason: RefusalReason | null; message: string | null }>(
    'select outcome, charge_id, reason, message from public.billing_open_charge($1, $2, $3, $4, $5, $6)',
    [c.userId, c.kind, c.amountCents, c.credits, c.paymentMethodId, c.at],
  );
  const row = rows[0];
  if (row?.outcome === 'opened' && row.charge_id) return { outcome: 'opened', chargeId: row.charge_id };
  if (row?.outcome === 'refused' && row.reason && row.message) return { outcome: 'refused', reason: row.reason, message: row.message };
  return { outcome: (row?.outcome ?? 'gone') as 'not_due' | 'in_progress' | 'gone' };
}
