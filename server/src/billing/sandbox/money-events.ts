/**
 * @module Money events in the sandbox, as Stripe's dashboard or a bank would cause them on one
 * of the customer's succeeded payments: refunds (full or partial), disputes opened and closed,
 * and a renewal that fails.
 */
import type { Queryable } from '@aim/supabase/db';
import { isPlanId } from '../catalog.ts';
import { ProviderError } from '../payment-provider.ts';
import type { SandboxContext } from './events.ts';
import type { SandboxMoneyResult, SandboxProvider } from './sandbox-provider.ts';
import { missing, newId, S, type IntentRow, type SubscriptionRow } from './store.ts';
import { DECLINED_RENEWAL, openInvoice, renewalFailed } from './subscriptions.ts';

/** A payment intent's charge (Stripe: latest_charge): ch_sbx_<the intent's suffix>. */
function chargeIdOf(intentId: string): string {
  return intentId.replace(/^pi_/, 'ch_');
}

/** The grant a sandbox payment intent paid for (handle-event.ts source keys). */
function paymentRefOfIntent(pi: Pick<IntentRow, 'id' | 'kind' | 'invoice_id'>): string | null {
  if (pi.invoice_id) return `in:${pi.invoice_id}`;
  return pi.kind ? `pi:${pi.id}` : null;
}

/** One of the customer's succeeded payment intents, by payment ref (pi:…, in:…, or a bare id), default the newest. */
async function paidIntent(q: Queryable, customerId: string, paymentRef: string | undefined): Promise<IntentRow> {
  const ref = paymentRef?.replace(/^(pi|in):(?=(pi|in)_)/, '') ?? null;
  const { rows } = await q.query<IntentRow>(
    `select p.* from ${S}.payment_intents p
      where p.customer_id = $1 and p.status = 'succeeded' and ($2::text is null or p.id = $2 or p.invoice_id = $2)
      order by p.updated_at desc, p.id desc limit 1`,
    [customerId, ref],
  );
  if (!rows[0]) throw missing(paymentRef ? `payment: '${paymentRef}'` : 'succeeded payment');
  return rows[0];
}

function moneyResult(pi: IntentRow, dispute: { id: string; status: SandboxMoneyResult['disputeStatus'] } | null): SandboxMoneyResult {
  return {
    paymentRef: paymentRefOfIntent(pi),
    chargeId: chargeIdOf(pi.id),
    amountCents: pi.amount_cents,
    amountRefundedCents: pi.amount_refunded,
    disputeId: dispute?.id ?? null,
    disputeStatus: dispute?.status ?? null,
  };
}

/**
 * @example
 * const { refund } = sandboxMoneyEvents(ctx)
 */
export function sandboxMoneyEvents(
  ctx: SandboxContext,
): Pick<SandboxProvider, 'refundInvoicePayment' | 'refund' | 'openDispute' | 'closeDispute' | 'failRenewal'> {
  const { db, now, withEvents } = ctx;

  /** Refunds `amountCents` of a succeeded intent (default: what is left) and emits charge.refunded with the new total. */
  async function refundIntent(customerId: string, intentId: string, amountCents: number | undefined): Promise<SandboxMoneyResult> {
    return withEvents(async (tx, record) => {
      const { rows } = await tx.query<IntentRow>(`select * from ${S}.payment_intents where id = $1 and customer_id = $2 for update`, [intentId, customerId]);
      const pi = rows[0];
      if (pi?.status !== 'succeeded') throw missing(`payment: '${intentId}'`);
      const left = pi.amount_cents - pi.amount_refunded;
      const amount = amountCents ?? left;
      if (!Number.isInteger(amount) || amount <= 0 || amount > left) {
        throw new ProviderError(
          'invalid_request',
          left > 0 ? `A refund is for a positive amount up to the ${left} cents not refunded yet` : 'This payment is fully refunded',
        );
      }
      const refunded = pi.amount_refunded + amount;
      const at = now();
      await tx.query(`update ${S}.payment_intents set amount_refunded = $2, updated_at = $3 where id = $1`, [pi.id, refunded, at]);
      const paymentRef = paymentRefOfIntent(pi);
      await record(
        { type: 'charge.refunded', customerId, chargeId: chargeIdOf(pi.id), paymentRef, amountCents: pi.amount_cents, amountRefundedCents: refunded },
        at,
      );
      return moneyResult({ ...pi, amount_refunded: refunded }, null);
    });
  }

  return {
    async refundInvoicePayment({ customerId, invoiceId }) {
      const { rows } = await db.query<{ payment_intent_id: string; amount_cents: number }>(
        `select i.payment_intent_id, p.amount_cents from ${S}.invoices i join ${S}.payment_intents p on p.id = i.payment_intent_id
          where i.id = $1 and i.customer_id = $2 and i.status = 'paid'`,
        [invoiceId, customerId],
      );
      if (!rows[0]) throw new ProviderError('invalid_request', `Invoice ${invoiceId} has no paid payment to refund`);
      // the same invoice refunded again (a retried duplicate): nothing left to refund, same answer
      const left = await db.query<{ amount_refunded: number }>(`select amount_refunded from ${S}.payment_intents where id = $1`, [rows[0].payment_intent_id]);
      if (left.rows[0].amount_refunded < rows[0].amount_cents) await refundIntent(customerId, rows[0].payment_intent_id, undefined);
      return { chargeId: chargeIdOf(rows[0].payment_intent_id), amountCents: rows[0].amount_cents };
    },

    async refund(customerId, { paymentRef, amountCents }) {
      const pi = await paidIntent(db, customerId, paymentRef);
      return refundIntent(customerId, pi.id, amountCents);
    },

    async openDispute(customerId, { paymentRef, amountCents }) {
      const found = await paidIntent(db, customerId, paymentRef);
      return withEvents(async (tx, record) => {
        const { rows } = await tx.query<IntentRow>(`select * from ${S}.payment_intents where id = $1 for update`, [found.id]);
        const pi = rows[0];
        const open = await tx.query(`select 1 from ${S}.disputes where payment_intent_id = $1 and status = 'needs_response'`, [pi.id]);
        if (open.rows[0]) throw new ProviderError('invalid_request', 'This payment already has an open dispute');
        const amount = amountCents ?? pi.amount_cents - pi.amount_refunded;
        if (!Number.isInteger(amount) || amount <= 0 || amount > pi.amount_cents) {
          throw new ProviderError('invalid_request', 'A dispute is for a positive amount up to the payment');
        }
        const disputeId = newId('dp');
        const at = now();
        await tx.query(
          `insert into ${S}.disputes (id, customer_id, payment_intent_id, amount_cents, status, created_at) values ($1, $2, $3, $4, 'needs_response', $5)`,
          [disputeId, customerId, pi.id, amount, at],
        );
        const paymentRef = paymentRefOfIntent(pi);
        await record(
          {
            type: 'charge.dispute.created',
            customerId,
            disputeId,
            chargeId: chargeIdOf(pi.id),
            paymentRef,
            chargeAmountCents: pi.amount_cents,
            amountCents: amount,
            status: 'open',
          },
          at,
        );
        return moneyResult(pi, { id: disputeId, status: 'needs_response' });
      });
    },

    async closeDispute(customerId, { disputeId, outcome }) {
      return withEvents(async (tx, record) => {
        const { rows } = await tx.query<{ id: string; payment_intent_id: string; amount_cents: number }>(
          `select id, payment_intent_id, amount_cents from ${S}.disputes
            where customer_id = $1 and status = 'needs_response' and ($2::text is null or id = $2)
            order by created_at desc, id desc limit 1 for update`,
          [customerId, disputeId ?? null],
        );
        const dispute = rows[0];
        if (!dispute) throw missing(disputeId ? `dispute: '${disputeId}'` : 'open dispute');
        await tx.query(`update ${S}.disputes set status = $2 where id = $1`, [dispute.id, outcome]);
        const pi = (await tx.query<IntentRow>(`select * from ${S}.payment_intents where id = $1`, [dispute.payment_intent_id])).rows[0];
        await record(
          {
            type: 'charge.dispute.closed',
            customerId,
            disputeId: dispute.id,
            chargeId: chargeIdOf(pi.id),
            paymentRef: paymentRefOfIntent(pi),
            chargeAmountCents: pi.amount_cents,
            amountCents: dispute.amount_cents,
            status: outcome,
          },
          now(),
        );
        return moneyResult(pi, { id: dispute.id, status: outcome });
      });
    },

    async failRenewal(customerId) {
      return withEvents(async (tx, record) => {
        const { rows } = await tx.query<SubscriptionRow>(
          `select * from ${S}.subscriptions where customer_id = $1 and status = 'active' order by created_at desc limit 1 for update`,
          [customerId],
        );
        const sub = rows[0];
        if (!sub || !isPlanId(sub.plan)) throw missing('active subscription');
        const at = now();
        const opened = await openInvoice(tx, { customerId, subscriptionId: sub.id, plan: sub.plan, reason: 'subscription_cycle', idempotencyKey: null, at });
        await renewalFailed(tx, record, sub, opened!, DECLINED_RENEWAL, at);
        return { subscriptionId: sub.id, invoiceId: opened!.invoiceId };
      });
    },
  };
}
