/**
 * @module The Stripe payment provider: the PaymentProvider port over the real `stripe` SDK.
 *
 * - Every create carries the caller's idempotency key, so a retried business operation (and
 *   the SDK's own transport retries) never creates a second customer, subscription or charge.
 * - Every object the port names (payment method, setup intent, subscription, invoice) is
 *   fetched and checked against the session's customer before use: someone else's object is
 *   ProviderError('resource_missing'), exactly like one that does not exist.
 * - Payment intents are tagged with metadata.kind; webhook.ts ignores intents without it
 *   (invoice payments), which is how Stripe's events reach the one billing event handler.
 */
import Stripe from 'stripe';
import {
  ProviderError,
  type Card,
  type OffSessionResult,
  type PaymentIntentState,
  type PaymentProvider,
  type SetupIntentState,
  type SubscriptionCheckout,
} from '../payment-provider.ts';
import { createStripeClient, isLiveKey, type StripeConfig } from './client.ts';
import { createPriceBook } from './prices.ts';
import { createStripeWebhook, type WebhookOutcome } from './webhook.ts';

export interface StripeProvider extends PaymentProvider {
  readonly kind: 'stripe';
  /** For the browser's Stripe.js (GET /billing/config). */
  readonly publishableKey: string;
  /** Verifies a webhook delivery on its raw body and maps it (throws WebhookSignatureError). */
  parseWebhook(rawBody: Uint8Array | string, signature: string | undefined): Promise<WebhookOutcome>;
}

export function isStripeProvider(provider: PaymentProvider): provider is StripeProvider {
  return provider.kind === 'stripe';
}

/** Subscriptions that still bill (and so use a default payment method). */
const LIVE_SUBSCRIPTION = new Set(['active', 'trialing', 'past_due', 'unpaid', 'incomplete', 'paused']);

/** Stripe's refusals as the port's errors; transport and server failures stay as they are. */
function toProviderError(e: unknown): unknown {
  if (e instanceof Stripe.errors.StripeCardError) return new ProviderError('card_error', e.message);
  if (e instanceof Stripe.errors.StripeInvalidRequestError) {
    return new ProviderError(e.code === 'resource_missing' ? 'resource_missing' : 'invalid_request', e.message);
  }
  return e;
}

async function call<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (e) {
    throw toProviderError(e);
  }
}

function idOf(ref: string | { id: string } | null | undefined): string | null {
  return typeof ref === 'string' ? ref : (ref?.id ?? null);
}

function missing(what: string, id: string): ProviderError {
  return new ProviderError('resource_missing', `No such ${what}: '${id}'`);
}

function checkoutOf(subscription: Stripe.Subscription): SubscriptionCheckout {
  const invoice = subscription.latest_invoice;
  const clientSecret = typeof invoice === 'object' ? invoice?.confirmation_secret?.client_secret : undefined;
  if (!invoice || typeof invoice !== 'object' || !clientSecret) {
    // every catalog plan costs money, so the first invoice always has a payment to confirm
    throw new ProviderError('invalid_request', `Subscription ${subscription.id} has no invoice payment to confirm`);
  }
  return { subscriptionId: subscription.id, providerRef: invoice.id!, clientSecret };
}

function offSessionResultOf(intent: Stripe.PaymentIntent): OffSessionResult {
  if (intent.status === 'succeeded' || intent.status === 'processing') return { status: intent.status as 'succeeded' | 'processing', intentId: intent.id };
  const error = intent.last_payment_error;
  if (error?.code) {
    return {
      status: 'failed',
      intentId: intent.id,
      code: error.code,
      declineCode: error.decline_code ?? undefined,
      message: error.message ?? 'The payment failed',
    };
  }
  // an off-session charge that still wants the customer is one that needs authentication
  return { status: 'failed', intentId: intent.id, code: 'authentication_required', message: 'The payment requires authentication by the card holder' };
}

/**
 * @example
 * const provider = createStripeProvider(stripeConfigFromEnv(process.env))
 */
export function createStripeProvider(config: StripeConfig): StripeProvider {
  const stripe = createStripeClient(config);
  const prices = createPriceBook(stripe);
  const webhook = createStripeWebhook({
    stripe,
    secret: config.webhookSecret,
    toleranceSec: config.webhookToleranceSec,
    livemode: isLiveKey(config.secretKey),
    prices,
  });

  async function ownedCustomer(customerId: string): Promise<Stripe.Customer> {
    const customer = await call(() => stripe.customers.retrieve(customerId));
    if (customer.deleted) throw missing('customer', customerId);
    return customer;
  }

  async function ownedPaymentMethod(customerId: string, paymentMethodId: string): Promise<Stripe.PaymentMethod> {
    const method = await call(() => stripe.paymentMethods.retrieve(paymentMethodId));
    if (idOf(method.customer) !== customerId) throw missing('payment_method', paymentMethodId);
    return method;
  }

  async function ownedSubscription(customerId: string, subscriptionId: string): Promise<Stripe.Subscription> {
    const subscription = await call(() => stripe.subscriptions.retrieve(subscriptionId));
    if (idOf(subscription.customer) !== customerId) throw missing('subscription', subscriptionId);
    return subscription;
  }

  async function liveSubscriptions(customerId: string): Promise<Stripe.Subscription[]> {
    const all = await call(() => stripe.subscriptions.list({ customer: customerId, status: 'all', limit: 100 }).autoPagingToArray({ limit: 1000 }));
    return all.filter((s) => LIVE_SUBSCRIPTION.has(s.status));
  }

  async function cards(customerId: string): Promise<Stripe.PaymentMethod[]> {
    const newestFirst = await call(() => stripe.customers.listPaymentMethods(customerId, { type: 'card', limit: 100 }).autoPagingToArray({ limit: 1000 }));
    return newestFirst.reverse();
  }

  /** The customer default, and every billing subscription's own default (which beats it). */
  async function makeDefault(customerId: string, paymentMethodId: string | null, onlySubscriptionsUsing?: string): Promise<void> {
    await call(() => stripe.customers.update(customerId, { invoice_settings: { default_payment_method: paymentMethodId ?? '' } }));
    for (const sub of await liveSubscriptions(customerId)) {
      if (onlySubscriptionsUsing !== undefined && idOf(sub.default_payment_method) !== onlySubscriptionsUsing) continue;
      await call(() => stripe.subscriptions.update(sub.id, { default_payment_method: paymentMethodId ?? '' }));
    }
  }

  const provider: StripeProvider = {
    kind: 'stripe',
    publishableKey: config.publishableKey,

    async createCustomer({ userId, email, idempotencyKey }) {
      const customer = await call(() => stripe.customers.create({ email, metadata: { user_id: userId } }, { idempotencyKey }));
      return { customerId: customer.id };
    },

    async createSubscription({ customerId, plan, idempotencyKey }) {
      const price = await prices.priceOf(plan);
      const subscription = await call(() =>
        stripe.subscriptions.create(
          {
            customer: customerId,
            items: [{ price }],
            payment_behavior: 'default_incomplete',
            payment_settings: { save_default_payment_method: 'on_subscription', payment_method_types: ['card'] },
            expand: ['latest_invoice.confirmation_secret'],
            metadata: { plan },
          },
          { idempotencyKey },
        ),
      );
      return checkoutOf(subscription);
    },

    async changeSubscriptionPlan({ customerId, subscriptionId, plan, idempotencyKey }) {
      const current = await ownedSubscription(customerId, subscriptionId);
      // ended at the provider (our copy has not heard yet): nothing to change
      if (!LIVE_SUBSCRIPTION.has(current.status)) throw missing('subscription', subscriptionId);
      const item = current.items.data[0];
      if (!item) throw missing('subscription item of', subscriptionId);
      const price = await prices.priceOf(plan);
      // billed in full at once with a fresh monthly period, like the sandbox (no proration);
      // pending_if_incomplete keeps the old plan until that invoice is paid
      const subscription = await call(() =>
        stripe.subscriptions.update(
          subscriptionId,
          {
            items: [{ id: item.id, price }],
            billing_cycle_anchor: { type: 'now' },
            proration_behavior: 'none',
            payment_behavior: 'pending_if_incomplete',
            expand: ['latest_invoice.confirmation_secret'],
          },
          { idempotencyKey },
        ),
      );
      return checkoutOf(subscription);
    },

    async cancelSubscription({ customerId, subscriptionId }) {
      await ownedSubscription(customerId, subscriptionId);
      const subscription = await call(() => stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true }));
      const end = subscription.items.data[0]?.current_period_end;
      return { currentPeriodEnd: end ? new Date(end * 1000) : null };
    },

    async resumeSubscription({ customerId, subscriptionId }) {
      const current = await ownedSubscription(customerId, subscriptionId);
      if (!current.cancel_at_period_end) return;
      await call(() => stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: false }));
    },

    async abandonSubscriptionCheckout({ customerId, invoiceId }) {
      const invoice = await call(() => stripe.invoices.retrieve(invoiceId));
      if (idOf(invoice.customer) !== customerId) throw missing('invoice', invoiceId);
      if (invoice.status !== 'open' && invoice.status !== 'draft') return;
      const subscriptionId = idOf(invoice.parent?.subscription_details?.subscription);
      const subscription = subscriptionId ? await ownedSubscription(customerId, subscriptionId) : undefined;
      try {
        // a first invoice belongs to an incomplete subscription: cancelling it voids the invoice too
        if (subscription?.status === 'incomplete') await call(() => stripe.subscriptions.cancel(subscription.id));
        const after = await call(() => stripe.invoices.retrieve(invoiceId));
        // a plan change's invoice: voiding it drops the pending update, the subscription stays
        if (after.status === 'open') await call(() => stripe.invoices.voidInvoice(invoiceId));
      } catch (e) {
        // paid in the meantime (another tab): the one-live-subscription rule handles that payment
        if (e instanceof ProviderError && e.code === 'invalid_request') return;
        throw e;
      }
    },

    async subscriptionStatus(customerId, subscriptionId) {
      return (await ownedSubscription(customerId, subscriptionId)).status;
    },

    async cancelSubscriptionNow({ customerId, subscriptionId }) {
      const subscription = await ownedSubscription(customerId, subscriptionId);
      if (subscription.status === 'canceled' || subscription.status === 'incomplete_expired') return;
      try {
        await call(() => stripe.subscriptions.cancel(subscriptionId, { prorate: false }));
      } catch (e) {
        // cancelled meanwhile (a concurrent delivery of the same event): done
        if (e instanceof ProviderError && e.code === 'invalid_request' && (await ownedSubscription(customerId, subscriptionId)).status === 'canceled') return;
        throw e;
      }
    },

    async refundInvoicePayment({ customerId, invoiceId, idempotencyKey }) {
      const invoice = await call(() => stripe.invoices.retrieve(invoiceId));
      if (idOf(invoice.customer) !== customerId) throw missing('invoice', invoiceId);
      const payments = await call(() => stripe.invoicePayments.list({ invoice: invoiceId, status: 'paid', limit: 1 }));
      const intentId = idOf(payments.data[0]?.payment.payment_intent);
      if (!intentId) throw new ProviderError('invalid_request', `Invoice ${invoiceId} has no paid payment to refund`);
      const refund = await call(() =>
        stripe.refunds.create({ payment_intent: intentId, metadata: { reason: 'duplicate_subscription', invoice: invoiceId } }, { idempotencyKey }),
      );
      const chargeId = idOf(refund.charge);
      if (!chargeId) throw new ProviderError('invalid_request', `The refund of invoice ${invoiceId} names no charge`);
      return { chargeId, amountCents: refund.amount };
    },

    async createPaymentIntent({ customerId, kind, amountCents, credits, idempotencyKey }) {
      const intent = await call(() =>
        stripe.paymentIntents.create(
          {
            amount: amountCents,
            currency: 'usd',
            customer: customerId,
            setup_future_usage: 'off_session',
            allowed_payment_method_types: ['card'],
            description: kind === 'trial' ? `Trial: ${credits} credits` : `${credits} credits`,
            metadata: { kind, credits: String(credits) },
          },
          { idempotencyKey },
        ),
      );
      return { providerRef: intent.id, clientSecret: intent.client_secret! };
    },

    async chargeOffSession({ customerId, paymentMethodId, amountCents, credits, metadata, idempotencyKey }) {
      await ownedPaymentMethod(customerId, paymentMethodId);
      try {
        const intent = await stripe.paymentIntents.create(
          {
            amount: amountCents,
            currency: 'usd',
            customer: customerId,
            payment_method: paymentMethodId,
            off_session: true,
            confirm: true,
            allowed_payment_method_types: ['card'],
            description: `${credits} credits (auto top-up)`,
            metadata: { ...metadata, kind: 'auto_topup', credits: String(credits) },
          },
          { idempotencyKey },
        );
        return offSessionResultOf(intent);
      } catch (e) {
        // a decline (or authentication_required) is an answer, not a failure: Stripe returns
        // the intent it left in requires_payment_method with the error
        const intentId = e instanceof Stripe.errors.StripeCardError ? e.payment_intent?.id : undefined;
        if (!intentId) throw toProviderError(e);
        const error = e as Stripe.errors.StripeCardError;
        return { status: 'failed', intentId, code: error.code ?? 'card_declined', declineCode: error.decline_code || undefined, message: error.message };
      }
    },

    async retrievePaymentIntent(customerId, intentId): Promise<PaymentIntentState> {
      const intent = await call(() => stripe.paymentIntents.retrieve(intentId));
      if (idOf(intent.customer) !== customerId) throw missing('payment_intent', intentId);
      const metadata = { ...intent.metadata };
      if (intent.status === 'succeeded') {
        return {
          id: intent.id,
          status: 'succeeded',
          amountCents: intent.amount_received || intent.amount,
          currency: intent.currency,
          paymentMethodId: idOf(intent.payment_method),
          metadata,
        };
      }
      // with the bank, or confirmed but not captured yet: the outcome is still to come
      if (intent.status === 'processing' || intent.status === 'requires_capture') return { id: intent.id, status: 'processing' };
      const error = intent.last_payment_error;
      if (intent.status === 'requires_action') {
        return { id: intent.id, status: 'failed', code: 'authentication_required', message: 'This payment requires authentication', metadata };
      }
      return {
        id: intent.id,
        status: 'failed',
        code: error?.code ?? `payment_intent_${intent.status}`,
        declineCode: error?.decline_code || undefined,
        message: error?.message ?? `The payment is ${intent.status.replaceAll('_', ' ')}`,
        metadata,
      };
    },

    async createSetupIntent({ customerId, idempotencyKey }) {
      const intent = await call(() =>
        stripe.setupIntents.create({ customer: customerId, usage: 'off_session', allowed_payment_method_types: ['card'] }, { idempotencyKey }),
      );
      return { setupIntentId: intent.id, clientSecret: intent.client_secret! };
    },

    async getSetupIntent(customerId, setupIntentId): Promise<SetupIntentState> {
      const intent = await call(() => stripe.setupIntents.retrieve(setupIntentId));
      if (idOf(intent.customer) !== customerId) throw missing('setup_intent', setupIntentId);
      // still with the customer (3-D Secure) or with the bank: not saved yet, not failed either
      const pending = intent.status === 'requires_action' || intent.status === 'processing';
      const status: SetupIntentState['status'] =
        intent.status === 'succeeded' ? 'succeeded' : intent.status === 'canceled' ? 'canceled' : pending ? 'requires_action' : 'requires_payment_method';
      return { id: intent.id, status, paymentMethodId: idOf(intent.payment_method) };
    },

    async listPaymentMethods(customerId): Promise<Card[]> {
      const [customer, methods] = await Promise.all([ownedCustomer(customerId), cards(customerId)]);
      const defaultId = idOf(customer.invoice_settings.default_payment_method);
      return methods.map((m) => ({
        id: m.id,
        brand: m.card?.brand ?? 'unknown',
        last4: m.card?.last4 ?? '',
        exp_month: m.card?.exp_month ?? 0,
        exp_year: m.card?.exp_year ?? 0,
        name: m.billing_details.name ?? null,
        default: m.id === defaultId,
        fingerprint: m.card?.fingerprint ?? null,
      }));
    },

    async setDefaultPaymentMethod(customerId, paymentMethodId) {
      await ownedPaymentMethod(customerId, paymentMethodId);
      await makeDefault(customerId, paymentMethodId);
    },

    async ensureDefaultPaymentMethod(customerId, paymentMethodId) {
      const customer = await ownedCustomer(customerId);
      if (customer.invoice_settings.default_payment_method) return;
      try {
        await ownedPaymentMethod(customerId, paymentMethodId);
      } catch (e) {
        if (e instanceof ProviderError && e.code === 'resource_missing') return;
        throw e;
      }
      await call(() => stripe.customers.update(customerId, { invoice_settings: { default_payment_method: paymentMethodId } }));
    },

    async detachPaymentMethod(customerId, paymentMethodId) {
      await ownedPaymentMethod(customerId, paymentMethodId);
      const customer = await ownedCustomer(customerId);
      await call(() => stripe.paymentMethods.detach(paymentMethodId));
      if (idOf(customer.invoice_settings.default_payment_method) !== paymentMethodId) return;
      const newest = (await cards(customerId)).at(-1);
      await makeDefault(customerId, newest?.id ?? null, paymentMethodId);
    },

    async invoicePdfUrl(customerId, invoiceId) {
      if (!invoiceId.startsWith('in_')) return null;
      const invoice = await call(() => stripe.invoices.retrieve(invoiceId));
      if (idOf(invoice.customer) !== customerId) throw missing('invoice', invoiceId);
      return invoice.invoice_pdf ?? null;
    },

    parseWebhook: webhook,
  };
  return provider;
}
