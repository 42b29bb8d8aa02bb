/**
 * @module Refunds and disputes (public.billing_money_events) and the clawbacks they cause
 * (public.billing_payment_clawbacks, ledger source keys `clawback:<payment_ref>:<step>`).
 * Credits move only through public.apply_clawback, the one path that may leave a balance
 * below zero. Every write is keyed by a provider object id (charge, dispute) and state only
 * moves forward, so replayed, duplicated and reordered events converge on the same rows.
 */
import type { Queryable } from '@aim/supabase/db';

interface MoneyEvent {
  id: string;
  user_id: string;
  kind: 'refund' | 'dispute';
  object_id: string;
  charge_id: string;
  payment_ref: string | null;
  payment_amount_cents: number;
  amount_cents: number;
  credits: number;
  status: 'succeeded' | 'open' | 'won' | 'lost';
  reason: string | null;
  state_at: Date;
  created_at: Date;
}

const COLUMNS = 'id, user_id, kind, object_id, charge_id, payment_ref, payment_amount_cents, amount_cents, credits, status, reason, state_at, created_at';

/** Why an account is on hold (no new tasks, no off-session charges), most pressing first. */
export type AccountHold = 'dispute' | 'negative_balance' | 'past_due';

/** Credits a share of a payment is worth: `part / whole` of the credits granted, rounded. */
function shareOf(granted: number, partCents: number, wholeCents: number): number {
  if (wholeCents <= 0 || partCents <= 0) return 0;
  if (partCents >= wholeCents) return granted;
  return Math.round((granted * partCents) / wholeCents);
}

export function moneyEventsRepository(q: Queryable) {
  return {
    /**
     * A charge's refunds as Stripe reports them: the total refunded so far (charge.refunded
     * carries amount_refunded). The stored total only grows, so an older event arriving late
     * changes nothing.
     */
    async recordRefund(r: {
      userId: string;
      chargeId: string;
      paymentRef: string | null;
      paymentAmountCents: number;
      amountRefundedCents: number;
      at: Date;
      reason?: string;
    }): Promise<void> {
      await q.query(
        `insert into public.billing_money_events as m
           (user_id, kind, object_id, charge_id, payment_ref, payment_amount_cents, amount_cents, status, reason, state_at)
         values ($1, 'refund', $2, $2, $3, $4, $5, 'succeeded', $6, $7)
         on conflict (kind, object_id) do update
           set amount_cents = greatest(m.amount_cents, excluded.amount_cents),
               payment_ref = coalesce(m.payment_ref, excluded.payment_ref),
               reason = coalesce(m.reason, excluded.reason),
               state_at = greatest(m.state_at, excluded.state_at)`,
        [r.userId, r.chargeId, r.paymentRef, r.paymentAmountCents, r.amountRefundedCents, r.reason ?? null, r.at],
      );
    },

    /**
     * A dispute opened (open) or closed (won/lost). Closed is final: a late "created" after the
     * "closed" does not reopen it, and one closing never flips to the other.
     */
    async recordDispute(d: {
      userId: string;
      disputeId: string;
      chargeId: string;
      paymentRef: string | null;
      paymentAmountCents: number;
      amountCents: number;
      status: 'open' | 'won' | 'lost';
      at: Date;
    }): Promise<void> {
      await q.query(
        `insert into public.billing_money_events as m
           (user_id, kind, object_id, charge_id, payment_ref, payment_amount_cents, amount_cents, status, state_at)
         values ($1, 'dispute', $2, $3, $4, $5, $6, $7, $8)
         on conflict (kind, object_id) do update
           set status = case when m.status = 'open' then excluded.status else m.status end,
               payment_ref = coalesce(m.payment_ref, excluded.payment_ref),
               amount_cents = excluded.amount_cents,
               state_at = greatest(m.state_at, excluded.state_at)`,
        [d.userId, d.disputeId, d.chargeId, d.paymentRef, d.paymentAmountCents, d.amountCents, d.status, d.at],
      );
    },

    /** Whether we refunded this payment ourselves for `reason` (e.g. a duplicate subscription). */
    async refundedFor(paymentRef: string, reason: string): Promise<boolean> {
      const { rows } = await q.query('select 1 from public.billing_money_events where payment_ref = $1 and reason = $2 limit 1', [paymentRef, reason]);
      return rows.length > 0;
    },

    /**
     * Brings what is taken back from one payment's grant to what its refunds and disputes say
     * now: refunded share + open or lost disputed share, at most the credits granted. Takes the
     * difference (or gives back, after a won dispute) through apply_clawback under the user's
     * row lock, keyed by the step number, so replays and concurrent deliveries move nothing
     * twice. A payment whose grant has not arrived yet is left alone: its grant calls this
     * again (the grant nets out). Answers the credits moved (negative: taken).
     */
    async reconcile(userId: string, paymentRef: string): Promise<number> {
      const { rows: events } = await q.query<MoneyEvent>(`select ${COLUMNS} from public.billing_money_events where payment_ref = $1 and user_id = $2`, [
        paymentRef,
        userId,
      ]);
      if (!events.length) return 0;
      await q.query('select 1 from public.mdusers where id = $1 for update', [userId]);
      const grant = await q.query<{ delta: number }>('select delta from public.credit_ledger where source_key = $1 and user_id = $2', [paymentRef, userId]);
      const granted = grant.rows[0]?.delta ?? 0;
      if (granted <= 0) return 0;

      let target = 0;
      for (const e of events) {
        const holds = e.kind === 'refund' || e.status === 'open' || e.status === 'lost';
        const credits = holds ? shareOf(granted, e.amount_cents, e.payment_amount_cents) : 0;
        target += credits;
        if (credits !== e.credits) await q.query('update public.billing_money_events set credits = $2 where id = $1', [e.id, credits]);
      }
      target = Math.min(target, granted);

      await q.query(`insert into public.billing_payment_clawbacks (payment_ref, user_id) values ($1, $2) on conflict (payment_ref) do nothing`, [
        paymentRef,
        userId,
      ]);
      const { rows } = await q.query<{ credits_taken: number; steps: number }>(
        'select credits_taken, steps from public.billing_payment_clawbacks where payment_ref = $1 for update',
        [paymentRef],
      );
      const diff = target - rows[0].credits_taken;
      if (diff === 0) return 0;
      const step = rows[0].steps + 1;
      const reason = diff > 0 ? 'payment taken back' : 'dispute won';
      await q.query('select public.apply_clawback($1, $2, $3, $4)', [userId, -diff, `clawback:${paymentRef}:${step}`, reason]);
      await q.query('update public.billing_payment_clawbacks set credits_taken = $2, steps = $3 where payment_ref = $1', [paymentRef, target, step]);
      return -diff;
    },

    /** Why the account is on hold now, if it is. */
    async holdOf(userId: string): Promise<AccountHold | undefined> {
      const { rows } = await q.query<{ dispute: boolean; negative: boolean; past_due: boolean }>(
        `select exists (select 1 from public.billing_money_events where user_id = $1 and kind = 'dispute' and status = 'open') as dispute,
                coalesce((select credits < 0 from public.mdusers where id = $1), false) as negative,
                exists (select 1 from public.billing_subscriptions where user_id = $1 and status = 'past_due') as past_due`,
        [userId],
      );
      const r = rows[0];
      if (r?.dispute) return 'dispute';
      if (r?.negative) return 'negative_balance';
      if (r?.past_due) return 'past_due';
      return undefined;
    },
  };
}
