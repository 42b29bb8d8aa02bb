/**
 * @module Stripe webhooks → the port's BillingEvents. The signature is checked on the raw
 * request body (any re-serialisation would break it) with a freshness tolerance, so a
 * tampered or replayed-late delivery is refused before anything is read from it.
 *
 * Only what billing acts on is mapped; everything else is acknowledged and ignored. Credits
 * are never derived from metadata: a top-up is worth what Stripe says it received, an invoice
 * the credits of the catalog plan its price maps to (the handler applies the catalog).
 */
import type Stripe from 'stripe';
import type { PlanId } from '../catalog.ts';
import type { BillingEvent, PaymentKind } from '../payment-provider.ts';
import { planOfPrice, type PriceBook } from './prices.ts';

/** A delivery that is not provably Stripe's (bad or missing signature, stale, not JSON): answer 400. */
export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}

export type WebhookOutcome = { event: BillingEvent } | { ignored: string; eventId: string; type: string };

const PAYMENT_KINDS: readonly string[] = ['topup', 'trial', 'auto_topup'] satisfies PaymentKind[];
const PLAN_REASONS = ['subscription_create', 'subscription_update', 'subscription_cycle'] as const;
type PlanReason = (typeof PLAN_REASONS)[number];

/** Stripe's subscription statuses as ours (anything else has ended or never started). */
const SUBSCRIPTION_STATUS: Partial<Record<Stripe.Subscription.Status, 'active' | 'past_due' | 'incomplete' | 'canceled'>> = {
  active: 'active',
  trialing: 'active',
  past_due: 'past_due',
  unpaid: 'past_due',
  incomplete: 'incomplete',
};

function idOf(ref: string | { id?: string } | null | undefined): string | null {
  return typeof ref === 'string' ? ref : (ref?.id ?? null);
}

function kindOf(metadata: Stripe.Metadata | null): PaymentKind | undefined {
  const kind = metadata?.kind;
  return kind && PAYMENT_KINDS.includes(kind) ? (kind as PaymentKind) : undefined;
}

export interface StripeWebhookDeps {
  stripe: Stripe;
  /** The endpoint's signing secret (whsec_…). */
  secret: string;
  /** Seconds a signature stays valid (default: the SDK's 300). */
  toleranceSec?: number;
  /** Whether the key is a live one: events of the other mode are not this server's. */
  livemode: boolean;
  prices: PriceBook;
}

/**
 * @example
 * const parse = createStripeWebhook({ stripe, secret, livemode: false, prices })
 * const outcome = await parse(rawBody, request.headers['stripe-signature'])
 */
/**
 * The events `map` below acts on; `stripe:setup` subscribes the webhook endpoint to exactly
 * these (any other event is answered 200 and ignored).
 */
export const STRIPE_WEBHOOK_EVENTS = [
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'invoice.paid',
  'setup_intent.succeeded',
  'customer.subscription.deleted',
  'customer.subscription.updated',
  'invoice.payment_failed',
  'charge.refunded',
  'charge.dispute.created',
  'charge.dispute.closed',
] as const satisfies readonly Stripe.Event['type'][];

export function createStripeWebhook(deps: StripeWebhookDeps) {
  /** The subscription line that sets the plan: a catalog price, charged, ending last. */
  async function planLineOf(invoice: Stripe.Invoice): Promise<{ plan: PlanId; periodEnd: Date } | undefined> {
    let best: { plan: PlanId; periodEnd: Date } | undefined;
    for (const line of invoice.lines?.data ?? []) {
      const priceId = idOf(line.pricing?.price_details?.price);
      const plan = priceId ? await deps.prices.planOf(priceId) : undefined;
      if (!plan || line.amount <= 0) continue;
      const periodEnd = new Date(line.period.end * 1000);
      if (!best || periodEnd > best.periodEnd) best = { plan, periodEnd };
    }
    return best;
  }

  /**
   * The grant a charge's payment intent paid for: `pi:<id>` for our own intents (metadata.kind),
   * else the invoice it paid (`in:<id>`, through GET /v1/invoice_payments: since basil neither
   * the charge nor the intent names its invoice); null when it is neither.
   */
  async function paymentRefOf(intentRef: string | { id: string } | null): Promise<string | null> {
    const intentId = idOf(intentRef);
    if (!intentId) return null;
    const intent = await deps.stripe.paymentIntents.retrieve(intentId);
    if (kindOf(intent.metadata)) return `pi:${intent.id}`;
    const payments = await deps.stripe.invoicePayments.list({ payment: { type: 'payment_intent', payment_intent: intentId }, limit: 1 });
    const invoiceId = idOf(payments.data[0]?.invoice as string | { id: string } | undefined);
    return invoiceId ? `in:${invoiceId}` : null;
  }

  async function map(event: Stripe.Event): Promise<WebhookOutcome> {
    const ignore = (why: string): WebhookOutcome => ({ ignored: why, eventId: event.id, type: event.type });
    const base = (customerId: string) => ({ id: event.id, created: new Date(event.created * 1000), customerId });

    switch (event.type) {
      case 'payment_intent.succeeded':
      case 'payment_intent.payment_failed': {
        const intent = event.data.object;
        const kind = kindOf(intent.metadata);
        const customerId = idOf(intent.customer);
        // intents without a kind are invoice payments: their invoice.paid event counts instead
        if (!kind) return ignore('payment intent without metadata.kind');
        if (!customerId) return ignore('payment intent without a customer');
        const metadata = { ...intent.metadata };
        if (event.type === 'payment_intent.succeeded') {
          return {
            event: {
              ...base(customerId),
              type: 'payment_intent.succeeded',
              intentId: intent.id,
              kind,
              amountCents: intent.amount_received,
              currency: intent.currency,
              paymentMethodId: idOf(intent.payment_method),
              savedPaymentMethod: intent.setup_future_usage != null,
              metadata,
            },
          };
        }
        const error = intent.last_payment_error;
        return {
          event: {
            ...base(customerId),
            type: 'payment_intent.payment_failed',
            intentId: intent.id,
            kind,
            code: error?.code ?? 'payment_failed',
            ...(error?.decline_code ? { declineCode: error.decline_code } : {}),
            message: error?.message ?? 'The payment failed',
            metadata,
          },
        };
      }

      case 'invoice.paid': {
        const invoice = event.data.object;
        const reason = invoice.billing_reason as PlanReason;
        if (!PLAN_REASONS.includes(reason)) return ignore(`invoice billing_reason ${invoice.billing_reason}`);
        const customerId = idOf(invoice.customer);
        const subscriptionId = idOf(invoice.parent?.subscription_details?.subscription);
        if (!customerId || !subscriptionId || !invoice.id) return ignore('invoice without a customer or subscription');
        const line = await planLineOf(invoice);
        if (!line) return ignore('invoice without a catalog plan price');
        // the card paying a subscription is saved on the subscription (save_default_payment_method)
        const subscription = await deps.stripe.subscriptions.retrieve(subscriptionId);
        return {
          event: {
            ...base(customerId),
            type: 'invoice.paid',
            invoiceId: invoice.id,
            subscriptionId,
            plan: line.plan,
            amountCents: invoice.amount_paid,
            billingReason: reason,
            periodEnd: line.periodEnd,
            paymentMethodId: idOf(subscription.default_payment_method),
          },
        };
      }

      case 'setup_intent.succeeded': {
        const intent = event.data.object;
        const customerId = idOf(intent.customer);
        const paymentMethodId = idOf(intent.payment_method);
        if (!customerId || !paymentMethodId) return ignore('setup intent without a customer or payment method');
        return { event: { ...base(customerId), type: 'setup_intent.succeeded', setupIntentId: intent.id, paymentMethodId } };
      }

      case 'customer.subscription.deleted': {
        const subscription = event.data.object;
        const customerId = idOf(subscription.customer);
        if (!customerId) return ignore('subscription without a customer');
        return { event: { ...base(customerId), type: 'customer.subscription.deleted', subscriptionId: subscription.id } };
      }

      case 'customer.subscription.updated': {
        const subscription = event.data.object;
        const customerId = idOf(subscription.customer);
        if (!customerId) return ignore('subscription without a customer');
        const item = subscription.items.data[0];
        const price = item?.price;
        // the price the subscription bills now, archived or not (prices.ts)
        const plan = price ? ((await deps.prices.planOf(price.id)) ?? planOfPrice(price) ?? null) : null;
        const status = SUBSCRIPTION_STATUS[subscription.status] ?? 'canceled';
        return {
          event: {
            ...base(customerId),
            type: 'customer.subscription.updated',
            subscriptionId: subscription.id,
            plan,
            status,
            currentPeriodEnd: item?.current_period_end ? new Date(item.current_period_end * 1000) : null,
            cancelAtPeriodEnd: subscription.cancel_at_period_end,
          },
        };
      }

      case 'invoice.payment_failed': {
        const invoice = event.data.object;
        const customerId = idOf(invoice.customer);
        const subscriptionId = idOf(invoice.parent?.subscription_details?.subscription);
        if (!customerId || !subscriptionId || !invoice.id) return ignore('invoice without a customer or subscription');
        return {
          event: {
            ...base(customerId),
            type: 'invoice.payment_failed',
            invoiceId: invoice.id,
            subscriptionId,
            billingReason: invoice.billing_reason ?? 'unknown',
          },
        };
      }

      case 'charge.refunded': {
        const charge = event.data.object;
        const customerId = idOf(charge.customer);
        if (!customerId) return ignore('charge without a customer');
        return {
          event: {
            ...base(customerId),
            type: 'charge.refunded',
            chargeId: charge.id,
            paymentRef: await paymentRefOf(charge.payment_intent),
            amountCents: charge.amount,
            amountRefundedCents: charge.amount_refunded,
          },
        };
      }

      case 'charge.dispute.created':
      case 'charge.dispute.closed': {
        const dispute = event.data.object;
        const chargeId = idOf(dispute.charge);
        if (!chargeId) return ignore('dispute without a charge');
        // a dispute names neither the customer nor the charge's amount: the charge does
        const charge = await deps.stripe.charges.retrieve(chargeId);
        const customerId = idOf(charge.customer);
        if (!customerId) return ignore('disputed charge without a customer');
        const status = event.type === 'charge.dispute.created' ? 'open' : dispute.status === 'lost' ? 'lost' : 'won';
        return {
          event: {
            ...base(customerId),
            type: event.type,
            disputeId: dispute.id,
            chargeId,
            paymentRef: await paymentRefOf(dispute.payment_intent ?? charge.payment_intent),
            chargeAmountCents: charge.amount,
            amountCents: dispute.amount,
            status,
          },
        };
      }

      default:
        return ignore('not a billing event');
    }
  }

  return async function parseWebhook(rawBody: Uint8Array | string, signature: string | undefined): Promise<WebhookOutcome> {
    if (!signature) throw new WebhookSignatureError('Missing stripe-signature header');
    let event: Stripe.Event;
    try {
      event = deps.stripe.webhooks.constructEvent(rawBody, signature, deps.secret, deps.toleranceSec);
    } catch (e) {
      throw new WebhookSignatureError(e instanceof Error ? e.message : String(e));
    }
    if (event.livemode !== deps.livemode) return { ignored: 'event of the other mode (live/test)', eventId: event.id, type: event.type };
    return map(event);
  };
}
