/**
 * @module Subscriptions and their invoices in the sandbox: checkout, plan changes, cancellation,
 * and the billing clock that renews (or ends) them at period end, with Stripe's dunning shortened
 * for a renewal that cannot be charged.
 */
import type { Queryable } from '@aim/supabase/db';
import { isPlanId, PLANS, type PlanId } from '../catalog.ts';
import type { SubscriptionCheckout } from '../payment-provider.ts';
import type { RecordEvent, SandboxContext } from './events.ts';
import { chargeSaved } from './intents.ts';
import type { SandboxProvider } from './sandbox-provider.ts';
import { declineError, insertIntent, missing, newId, requireCustomer, S, type IntentRow, type MethodRow, type SubscriptionRow } from './store.ts';
import type { Decline } from './test-cards.ts';

/** A renewal charged without a usable card (sandbox failRenewal, or no default card). */
export const DECLINED_RENEWAL: Decline = { code: 'card_declined', declineCode: 'generic_decline', message: 'Your card was declined.' };
/** Days a past-due subscription is retried before it ends (Stripe's Smart Retries default to weeks). */
const PAST_DUE_GRACE_DAYS = 14;

/** An open invoice with its payment intent, in one transaction. */
export async function openInvoice(
  tx: Queryable,
  i: {
    customerId: string;
    subscriptionId: string;
    plan: PlanId;
    reason: 'subscription_create' | 'subscription_update' | 'subscription_cycle';
    idempotencyKey: string | null;
    at: Date;
  },
): Promise<{ invoiceId: string; intent: IntentRow } | undefined> {
  const invoiceId = newId('in');
  const { rows } = await tx.query(
    `insert into ${S}.invoices (id, customer_id, subscription_id, plan, amount_cents, billing_reason, status, idempotency_key, created_at)
     values ($1, $2, $3, $4, $5, $6, 'open', $7, $8) on conflict (idempotency_key) do nothing returning id`,
    [invoiceId, i.customerId, i.subscriptionId, i.plan, PLANS[i.plan].amountCents, i.reason, i.idempotencyKey, i.at],
  );
  if (!rows[0]) return undefined;
  const intent = await insertIntent(tx, {
    customerId: i.customerId,
    amountCents: PLANS[i.plan].amountCents,
    kind: null,
    invoiceId,
    offSession: i.reason === 'subscription_cycle',
  });
  await tx.query(`update ${S}.invoices set payment_intent_id = $2 where id = $1`, [invoiceId, intent!.id]);
  return { invoiceId, intent: intent! };
}

async function invoiceCheckoutByKey(q: Queryable, key: string): Promise<SubscriptionCheckout> {
  const { rows } = await q.query<{ id: string; subscription_id: string; client_secret: string }>(
    `select i.id, i.subscription_id, p.client_secret from ${S}.invoices i join ${S}.payment_intents p on p.id = i.payment_intent_id
      where i.idempotency_key = $1`,
    [key],
  );
  return { subscriptionId: rows[0].subscription_id, providerRef: rows[0].id, clientSecret: rows[0].client_secret };
}

/** A renewal that could not be charged: the subscription goes past due (Stripe's dunning), the invoice stays open. */
export async function renewalFailed(
  tx: Queryable,
  record: RecordEvent,
  sub: SubscriptionRow,
  opened: { invoiceId: string; intent: IntentRow },
  decline: Decline,
  at: Date,
): Promise<void> {
  await tx.query(`update ${S}.payment_intents set last_error = coalesce(last_error, $2), updated_at = $3 where id = $1 and status <> 'succeeded'`, [
    opened.intent.id,
    JSON.stringify(declineError(decline)),
    at,
  ]);
  await tx.query(`update ${S}.subscriptions set status = 'past_due' where id = $1`, [sub.id]);
  await record(
    { type: 'invoice.payment_failed', customerId: sub.customer_id, invoiceId: opened.invoiceId, subscriptionId: sub.id, billingReason: 'subscription_cycle' },
    at,
  );
}

/** The card a renewal charges: the subscription's own default, else the customer's (Stripe's order). */
async function renewalMethod(q: Queryable, customerId: string, sub: SubscriptionRow): Promise<MethodRow | undefined> {
  const { rows } = await q.query<MethodRow>(
    `select pm.* from ${S}.payment_methods pm, ${S}.customers c
      where c.id = $1 and pm.customer_id = $1 and pm.id = coalesce($2, c.default_payment_method)`,
    [customerId, sub.default_payment_method],
  );
  return rows[0];
}

/**
 * @example
 * const { advanceClock } = sandboxSubscriptions(ctx)
 */
export function sandboxSubscriptions(
  ctx: SandboxContext,
): Pick<
  SandboxProvider,
  | 'createSubscription'
  | 'changeSubscriptionPlan'
  | 'cancelSubscription'
  | 'resumeSubscription'
  | 'abandonSubscriptionCheckout'
  | 'subscriptionStatus'
  | 'cancelSubscriptionNow'
  | 'invoicePdfUrl'
  | 'advanceClock'
> {
  const { db, now, withEvents } = ctx;

  /**
   * Stripe's dunning, shortened: each clock run retries a past-due subscription's open renewal
   * with its (possibly new) default card; paid, it is active again (invoice.paid); still unpaid
   * PAST_DUE_GRACE_DAYS after the failure, it ends.
   */
  async function retryPastDue(customerId: string, to: Date): Promise<void> {
    await withEvents(async (tx, record) => {
      const { rows } = await tx.query<SubscriptionRow & { invoice_id: string; invoice_created: Date }>(
        `select s.*, i.id as invoice_id, i.created_at as invoice_created from ${S}.subscriptions s
           join lateral (select id, created_at from ${S}.invoices where subscription_id = s.id and status = 'open' and billing_reason = 'subscription_cycle'
                          order by created_at desc limit 1) i on true
          where s.customer_id = $1 and s.status = 'past_due' for update of s`,
        [customerId],
      );
      for (const sub of rows) {
        const at = now();
        const intent = (await tx.query<IntentRow>(`select * from ${S}.payment_intents where invoice_id = $1`, [sub.invoice_id])).rows[0];
        const method = await renewalMethod(tx, customerId, sub);
        const paid = intent && method ? (await chargeSaved(tx, record, intent, method, at)).status === 'succeeded' : false;
        if (paid || to.getTime() < sub.invoice_created.getTime() + PAST_DUE_GRACE_DAYS * 86_400_000) continue;
        await tx.query(`update ${S}.invoices set status = 'uncollectible' where id = $1`, [sub.invoice_id]);
        await tx.query(`update ${S}.subscriptions set status = 'canceled' where id = $1`, [sub.id]);
        await record({ type: 'customer.subscription.deleted', customerId, subscriptionId: sub.id }, at);
      }
    });
  }

  return {
    async createSubscription({ customerId, plan, idempotencyKey }) {
      return db.transaction(async (tx) => {
        await requireCustomer(tx, customerId);
        const subscriptionId = newId('sub');
        const { rows } = await tx.query(
          `insert into ${S}.subscriptions (id, customer_id, plan, status, idempotency_key) values ($1, $2, $3, 'incomplete', $4)
           on conflict (idempotency_key) do nothing returning id`,
          [subscriptionId, customerId, plan, idempotencyKey],
        );
        if (rows[0]) await openInvoice(tx, { customerId, subscriptionId, plan, reason: 'subscription_create', idempotencyKey, at: now() });
        return invoiceCheckoutByKey(tx, idempotencyKey);
      });
    },

    async changeSubscriptionPlan({ customerId, subscriptionId, plan, idempotencyKey }) {
      return db.transaction(async (tx) => {
        const { rows } = await tx.query(`select 1 from ${S}.subscriptions where id = $1 and customer_id = $2 and status in ('active', 'past_due')`, [
          subscriptionId,
          customerId,
        ]);
        if (!rows[0]) throw missing(`subscription: '${subscriptionId}'`);
        await openInvoice(tx, { customerId, subscriptionId, plan, reason: 'subscription_update', idempotencyKey, at: now() });
        return invoiceCheckoutByKey(tx, idempotencyKey);
      });
    },

    async cancelSubscription({ customerId, subscriptionId }) {
      const { rows } = await db.query<{ current_period_end: Date | null }>(
        `update ${S}.subscriptions set cancel_at_period_end = true where id = $1 and customer_id = $2 and status <> 'canceled' returning current_period_end`,
        [subscriptionId, customerId],
      );
      if (!rows[0]) throw missing(`subscription: '${subscriptionId}'`);
      return { currentPeriodEnd: rows[0].current_period_end };
    },

    async resumeSubscription({ customerId, subscriptionId }) {
      const { rows } = await db.query(
        `update ${S}.subscriptions set cancel_at_period_end = false where id = $1 and customer_id = $2 and status <> 'canceled' returning 1`,
        [subscriptionId, customerId],
      );
      if (!rows[0]) throw missing(`subscription: '${subscriptionId}'`);
    },

    async abandonSubscriptionCheckout({ customerId, invoiceId }) {
      await db.transaction(async (tx) => {
        const { rows } = await tx.query<{ subscription_id: string; payment_intent_id: string | null }>(
          `update ${S}.invoices set status = 'void' where id = $1 and customer_id = $2 and status = 'open' returning subscription_id, payment_intent_id`,
          [invoiceId, customerId],
        );
        const voided = rows[0];
        if (!voided) return;
        await tx.query(`update ${S}.payment_intents set status = 'canceled', updated_at = $2 where id = $1 and status <> 'succeeded'`, [
          voided.payment_intent_id,
          now(),
        ]);
        await tx.query(`update ${S}.subscriptions set status = 'canceled' where id = $1 and status = 'incomplete'`, [voided.subscription_id]);
      });
    },

    async subscriptionStatus(customerId, subscriptionId) {
      const { rows } = await db.query<{ status: string }>(`select status from ${S}.subscriptions where id = $1 and customer_id = $2`, [
        subscriptionId,
        customerId,
      ]);
      if (!rows[0]) throw missing(`subscription: '${subscriptionId}'`);
      return rows[0].status;
    },

    async cancelSubscriptionNow({ customerId, subscriptionId }) {
      await withEvents(async (tx, record) => {
        const { rows } = await tx.query(
          `update ${S}.subscriptions set status = 'canceled', cancel_at_period_end = false where id = $1 and customer_id = $2 and status <> 'canceled' returning 1`,
          [subscriptionId, customerId],
        );
        if (rows[0]) await record({ type: 'customer.subscription.deleted', customerId, subscriptionId }, now());
      });
    },

    async invoicePdfUrl() {
      return null;
    },

    async advanceClock(customerId, to) {
      await retryPastDue(customerId, to);
      // one period at a time, so a long jump renews (or ends) in order
      for (let period = 0; period < 36; period++) {
        const done = await withEvents(async (tx, record) => {
          const { rows } = await tx.query<SubscriptionRow>(
            `select * from ${S}.subscriptions where customer_id = $1 and status = 'active' and current_period_end <= $2
              order by current_period_end limit 1 for update`,
            [customerId, to],
          );
          const sub = rows[0];
          if (!sub || !isPlanId(sub.plan)) return true;
          const at = sub.current_period_end!;
          const end = async () => {
            await tx.query(`update ${S}.subscriptions set status = 'canceled' where id = $1`, [sub.id]);
            await record({ type: 'customer.subscription.deleted', customerId, subscriptionId: sub.id }, at);
          };
          if (sub.cancel_at_period_end) {
            await end();
            return false;
          }
          const opened = await openInvoice(tx, { customerId, subscriptionId: sub.id, plan: sub.plan, reason: 'subscription_cycle', idempotencyKey: null, at });
          const method = await renewalMethod(tx, customerId, sub);
          const paid = method ? (await chargeSaved(tx, record, opened!.intent, method, at)).status === 'succeeded' : false;
          // a renewal that cannot be charged: past due, retried by the next clock runs (retryPastDue)
          if (!paid) await renewalFailed(tx, record, sub, opened!, DECLINED_RENEWAL, at);
          return false;
        });
        if (done) return;
      }
    },
  };
}
