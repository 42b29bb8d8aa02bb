/**
 * @module The PaymentProvider port: what billing needs from a card payment provider, shaped
 * after Stripe's API so a Stripe adapter can implement it one call per method, and the
 * normalized provider events (Stripe webhook names) the one billing event handler consumes.
 *
 * Adapters: the sandbox (billing/sandbox, the default without Stripe keys) and, later,
 * Stripe. Every method takes the customer id the server looked up from the session, never
 * one sent by a client; methods that name an object (payment method, setup intent) fail
 * with ProviderError('resource_missing') when it belongs to another customer.
 */
import type { PlanId } from './catalog.ts';

type ProviderKind = 'sandbox' | 'stripe';

/** What a one-off payment intent is for (Stripe: `metadata.kind`; intents without it are ignored). */
export type PaymentKind = 'topup' | 'trial' | 'auto_topup';

export interface Card {
  id: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  name: string | null;
  default: boolean;
  /** The same card number gives the same value (Stripe: card.fingerprint); null when unknown. */
  fingerprint: string | null;
}

/** A payment the browser confirms with the client secret (Stripe: confirmPayment). */
export interface PaymentCheckout {
  /** The provider object whose payment grants credits: an invoice (in_…) or a payment intent (pi_…). */
  providerRef: string;
  clientSecret: string;
}

export interface SubscriptionCheckout extends PaymentCheckout {
  subscriptionId: string;
}

export type OffSessionResult =
  | { status: 'succeeded' | 'processing'; intentId: string }
  | { status: 'failed'; intentId: string; code: string; declineCode?: string; message: string };

/**
 * What became of a payment intent, as the provider reports it now (asked when its outcome
 * did not arrive: a lost answer, a late webhook). `failed` is final: no money moved.
 */
export type PaymentIntentState =
  | { id: string; status: 'succeeded'; amountCents: number; currency: string; paymentMethodId: string | null; metadata: Record<string, string> }
  | { id: string; status: 'processing' }
  | { id: string; status: 'failed'; code: string; declineCode?: string; message: string; metadata: Record<string, string> };

export interface SetupIntentState {
  id: string;
  status: 'requires_payment_method' | 'requires_action' | 'succeeded' | 'canceled';
  paymentMethodId: string | null;
}

export type ProviderErrorCode = 'resource_missing' | 'invalid_request' | 'card_error';

/** A provider refusal with a stable code (Stripe: StripeInvalidRequestError, StripeCardError). */
export class ProviderError extends Error {
  readonly code: ProviderErrorCode;
  constructor(code: ProviderErrorCode, message: string) {
    super(message);
    this.name = 'ProviderError';
    this.code = code;
  }
}

export interface PaymentProvider {
  readonly kind: ProviderKind;

  /** Creates the customer; the same idempotency key always answers the same customer. */
  createCustomer(input: { userId: string; email: string; idempotencyKey: string }): Promise<{ customerId: string }>;

  /**
   * A subscription whose first invoice stays open until paid (Stripe: payment_behavior
   * default_incomplete; the client secret of latest_invoice.confirmation_secret).
   */
  createSubscription(input: { customerId: string; plan: PlanId; idempotencyKey: string }): Promise<SubscriptionCheckout>;

  /** A plan change billed at once (Stripe: proration_behavior always_invoice, pending_if_incomplete). */
  changeSubscriptionPlan(input: { customerId: string; subscriptionId: string; plan: PlanId; idempotencyKey: string }): Promise<SubscriptionCheckout>;

  /** Stops renewal at the period end (Stripe: cancel_at_period_end). */
  cancelSubscription(input: { customerId: string; subscriptionId: string }): Promise<{ currentPeriodEnd: Date | null }>;

  /** Renews again after a cancel at period end (Stripe: cancel_at_period_end false). */
  resumeSubscription(input: { customerId: string; subscriptionId: string }): Promise<void>;

  /**
   * Gives up an unpaid subscription checkout: its open invoice is voided and, when the
   * subscription was never paid (incomplete), the subscription is cancelled. An invoice paid
   * meanwhile is left alone (the one-live-subscription rule in handle-event.ts deals with it).
   */
  abandonSubscriptionCheckout(input: { customerId: string; invoiceId: string }): Promise<void>;

  /** The subscription's status at the provider now (Stripe's statuses; another customer's is resource_missing). */
  subscriptionStatus(customerId: string, subscriptionId: string): Promise<string>;

  /** Ends a subscription at once, without proration (Stripe: DELETE /v1/subscriptions/:id). Ending an ended one is a no-op. */
  cancelSubscriptionNow(input: { customerId: string; subscriptionId: string }): Promise<void>;

  /** Refunds an invoice's payment in full (Stripe: refunds.create on its payment intent); the same key refunds once. */
  refundInvoicePayment(input: { customerId: string; invoiceId: string; idempotencyKey: string }): Promise<{ chargeId: string; amountCents: number }>;

  /** A one-off, on-session payment that also saves the card for later (setup_future_usage off_session). */
  createPaymentIntent(input: {
    customerId: string;
    kind: Exclude<PaymentKind, 'auto_topup'>;
    amountCents: number;
    credits: number;
    idempotencyKey: string;
  }): Promise<PaymentCheckout>;

  /** Charges a saved card without the user (Stripe: off_session + confirm). Never throws for a decline. */
  chargeOffSession(input: {
    customerId: string;
    paymentMethodId: string;
    amountCents: number;
    credits: number;
    metadata: Record<string, string>;
    idempotencyKey: string;
  }): Promise<OffSessionResult>;

  /** The payment intent's outcome now (Stripe: GET /v1/payment_intents/:id); another customer's is resource_missing. */
  retrievePaymentIntent(customerId: string, intentId: string): Promise<PaymentIntentState>;

  createSetupIntent(input: { customerId: string; idempotencyKey: string }): Promise<{ setupIntentId: string; clientSecret: string }>;
  getSetupIntent(customerId: string, setupIntentId: string): Promise<SetupIntentState>;

  listPaymentMethods(customerId: string): Promise<Card[]>;
  setDefaultPaymentMethod(customerId: string, paymentMethodId: string): Promise<void>;
  /** Makes the card the default only when the customer has none yet. */
  ensureDefaultPaymentMethod(customerId: string, paymentMethodId: string): Promise<void>;
  /** Detaches the card; when it was the default, the newest remaining card becomes the default. */
  detachPaymentMethod(customerId: string, paymentMethodId: string): Promise<void>;

  /** The provider's own PDF of an invoice (Stripe: invoice_pdf), or null to render one locally. */
  invoicePdfUrl(customerId: string, invoiceId: string): Promise<string | null>;
}

interface EventBase {
  /** Provider event id (evt_…): replays of one event carry the same id. */
  id: string;
  created: Date;
  customerId: string;
}

/**
 * The payment whose credits a charge carried: the source key of its grant, `pi:<intent>` for
 * a top-up, trial or auto top-up, `in:<invoice>` for a plan; null when it is none of ours.
 */
type PaymentRef = string | null;

/** The provider events billing reacts to (Stripe webhook names, normalized fields). */
export type BillingEvent =
  | (EventBase & {
      type: 'payment_intent.succeeded';
      intentId: string;
      kind: PaymentKind;
      amountCents: number;
      currency: string;
      paymentMethodId: string | null;
      /** The card was saved to the customer for later use. */
      savedPaymentMethod: boolean;
      metadata: Record<string, string>;
    })
  | (EventBase & {
      type: 'payment_intent.payment_failed';
      intentId: string;
      kind: PaymentKind;
      code: string;
      declineCode?: string;
      message: string;
      metadata: Record<string, string>;
    })
  | (EventBase & {
      type: 'invoice.paid';
      invoiceId: string;
      subscriptionId: string;
      plan: PlanId;
      amountCents: number;
      billingReason: 'subscription_create' | 'subscription_update' | 'subscription_cycle';
      periodEnd: Date;
      paymentMethodId: string | null;
    })
  | (EventBase & { type: 'setup_intent.succeeded'; setupIntentId: string; paymentMethodId: string })
  | (EventBase & { type: 'customer.subscription.deleted'; subscriptionId: string })
  | (EventBase & {
      type: 'customer.subscription.updated';
      subscriptionId: string;
      /** The plan of its price (null: not a catalog price). */
      plan: PlanId | null;
      status: 'active' | 'past_due' | 'incomplete' | 'canceled';
      currentPeriodEnd: Date | null;
      cancelAtPeriodEnd: boolean;
    })
  | (EventBase & {
      type: 'invoice.payment_failed';
      invoiceId: string;
      subscriptionId: string;
      billingReason: string;
    })
  | (EventBase & {
      /** Stripe's charge.refunded: the total refunded so far, whatever the number of refunds. */
      type: 'charge.refunded';
      chargeId: string;
      paymentRef: PaymentRef;
      amountCents: number;
      amountRefundedCents: number;
    })
  | (EventBase & {
      type: 'charge.dispute.created' | 'charge.dispute.closed';
      disputeId: string;
      chargeId: string;
      paymentRef: PaymentRef;
      chargeAmountCents: number;
      amountCents: number;
      /** open for created; won (funds back: won, warning_closed, prevented) or lost for closed. */
      status: 'open' | 'won' | 'lost';
    });

export type BillingEventSink = (event: BillingEvent) => Promise<void>;
