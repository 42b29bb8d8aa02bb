/**
 * @module Payments (public.payments, the invoices) and the credits they grant through
 * public.apply_credit, both keyed by the provider object.
 */
import type { Queryable } from '@aim/supabase/db';

export interface PaymentRecord {
  id: string;
  email: string;
  invoice_number: string;
  payment_date: Date;
  plan_name: string;
  amount: string;
  currency: string;
  kind: 'subscription' | 'topup' | 'trial' | 'auto_topup';
  credits: number;
  provider_ref: string | null;
}

export function paymentsRepository(q: Queryable) {
  return {
    /**
     * Grants a payment's credits through apply_credit and records its payments row (the
     * invoice), both keyed by the provider object: replays and concurrent deliveries grant
     * once. Answers whether this call granted.
     */
    async grantPayment(p: {
      userId: string;
      email: string;
      sourceKey: string;
      credits: number;
      reason: string;
      kind: PaymentRecord['kind'];
      planName: string;
      amountCents: number;
      currency: string;
      paidAt: Date;
    }): Promise<boolean> {
      // apply_credit takes the user's row lock and grants once per key: a replayed or
      // concurrent event waits here and gets null, so only the granting call writes the
      // payments row and takes an invoice number (numbers stay gapless)
      const { rows } = await q.query<{ balance: number | null }>('select public.apply_credit($1, $2, $3, $4) as balance', [
        p.userId,
        p.credits,
        p.sourceKey,
        p.reason,
      ]);
      const granted = rows[0]?.balance !== null && rows[0]?.balance !== undefined;
      if (!granted) return false;
      await q.query(
        `insert into public.payments (user_id, email, payment_date, plan_name, amount, currency, kind, credits, provider_ref)
         select $1, $2, $3, $4, $5, $6, $7, $8, $9
          where not exists (select 1 from public.payments where provider_ref = $9)`,
        [p.userId, p.email, p.paidAt, p.planName, (p.amountCents / 100).toFixed(2), p.currency, p.kind, p.credits, p.sourceKey],
      );
      return true;
    },

    /** One of the caller's payments by invoice number (INV-…), payment id, or provider reference. */
    async findPayment(userId: string, invoiceId: string): Promise<PaymentRecord | undefined> {
      const { rows } = await q.query<PaymentRecord>(
        `select id, email, invoice_number, payment_date, plan_name, amount, currency, kind, credits, provider_ref
           from public.payments
          where user_id = $1 and (invoice_number = $2 or id::text = $2 or provider_ref = $2)
          limit 1`,
        [userId, invoiceId],
      );
      return rows[0];
    },
  };
}
