/**
 * A small stateful fake of the Stripe API on 127.0.0.1, for the real `stripe` SDK pointed at
 * it with host/port/protocol. It speaks only what the Stripe adapter uses, the way Stripe
 * does: form-encoded bodies in bracket notation, GET parameters in the query string,
 * Stripe's error JSON ({ error: { type, code, decline_code, message, param, payment_intent } })
 * with its statuses (400, 402, 404), and Idempotency-Key replay (same key and parameters →
 * the stored answer with `Idempotent-Replayed: true`; other parameters → idempotency_error).
 * Unknown parameters and expand paths are refused like Stripe does, so a typo or a field
 * removed by an API version fails loudly.
 *
 * Test payment methods (Stripe's test tokens) decide outcomes: pm_card_visa and
 * pm_card_mastercard succeed, pm_card_chargeDeclined and
 * pm_card_chargeDeclinedInsufficientFunds decline, pm_card_authenticationRequired needs
 * 3-D Secure on-session and fails authentication_required off-session.
 *
 * For tests: `requests` records every call (an injected failure too), `failNext()` makes the
 * next calls answer 500 before doing anything (so the SDK's retry runs them for real, as
 * when a request never reached Stripe), `dropNextAnswer()` runs the next calls and then cuts
 * the connection instead of answering (Stripe did the work, the caller never heard: a
 * timeout after the charge), and the browser's side (confirming a payment or a
 * setup, paying an invoice) and event payloads are methods on the fake.
 *
 * Response objects are typed with Picks of the SDK's own types, so an SDK upgrade that
 * renames or drops a field the adapter reads breaks `tsc` here.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Stripe from 'stripe';
import { PLAN_IDS, PLANS, type PlanId } from '../../src/billing/catalog.ts';
import { lookupKeyOf } from '../../src/billing/stripe/prices.ts';
import { STRIPE_API_VERSION } from '../../src/billing/stripe/client.ts';

const TEST_PAYMENT_METHODS = {
  pm_card_visa: { brand: 'visa', last4: '4242', outcome: 'ok' },
  pm_card_mastercard: { brand: 'mastercard', last4: '4444', outcome: 'ok' },
  pm_card_chargeDeclined: { brand: 'visa', last4: '0002', outcome: 'declined' },
  pm_card_chargeDeclinedInsufficientFunds: { brand: 'visa', last4: '9995', outcome: 'insufficient_funds' },
  pm_card_authenticationRequired: { brand: 'visa', last4: '3184', outcome: 'authentication_required' },
} as const;
type TestPaymentMethod = keyof typeof TEST_PAYMENT_METHODS;
type Outcome = (typeof TEST_PAYMENT_METHODS)[TestPaymentMethod]['outcome'];

type FakePrice = Pick<
  Stripe.Price,
  'id' | 'object' | 'active' | 'currency' | 'lookup_key' | 'unit_amount' | 'product' | 'type' | 'created' | 'livemode' | 'metadata'
> & {
  recurring: Pick<Stripe.Price.Recurring, 'interval' | 'interval_count'>;
};
type FakeWebhookEndpoint = Pick<
  Stripe.WebhookEndpoint,
  'id' | 'object' | 'url' | 'enabled_events' | 'api_version' | 'status' | 'livemode' | 'created' | 'description' | 'secret'
>;
type FakeCustomer = Pick<Stripe.Customer, 'id' | 'object' | 'created' | 'email' | 'metadata' | 'livemode' | 'invoice_settings'>;
type FakeMethod = Pick<Stripe.PaymentMethod, 'id' | 'object' | 'type' | 'created' | 'livemode' | 'metadata' | 'customer'> & {
  billing_details: Pick<Stripe.PaymentMethod.BillingDetails, 'name' | 'email'>;
  card: Pick<Stripe.PaymentMethod.Card, 'brand' | 'last4' | 'exp_month' | 'exp_year' | 'funding' | 'fingerprint'>;
};
type FakeIntent = Pick<
  Stripe.PaymentIntent,
  | 'id'
  | 'object'
  | 'amount'
  | 'amount_received'
  | 'currency'
  | 'customer'
  | 'description'
  | 'metadata'
  | 'status'
  | 'client_secret'
  | 'setup_future_usage'
  | 'payment_method'
  | 'last_payment_error'
  | 'allowed_payment_method_types'
  | 'created'
  | 'livemode'
>;
type FakeSetupIntent = Pick<
  Stripe.SetupIntent,
  'id' | 'object' | 'customer' | 'status' | 'client_secret' | 'payment_method' | 'usage' | 'metadata' | 'created' | 'livemode'
>;
type FakeLine = Pick<Stripe.InvoiceLineItem, 'id' | 'object' | 'amount' | 'currency' | 'description' | 'period'> & {
  pricing: { type: 'price_details'; price_details: Stripe.InvoiceLineItem.Pricing.PriceDetails; unit_amount_decimal: null };
};
type FakeInvoice = Pick<
  Stripe.Invoice,
  | 'id'
  | 'object'
  | 'customer'
  | 'status'
  | 'billing_reason'
  | 'amount_due'
  | 'amount_paid'
  | 'total'
  | 'currency'
  | 'number'
  | 'invoice_pdf'
  | 'hosted_invoice_url'
  | 'created'
  | 'livemode'
> & {
  parent: {
    type: 'subscription_details';
    quote_details: null;
    subscription_details: Pick<Stripe.Invoice.Parent.SubscriptionDetails, 'subscription' | 'metadata'>;
  };
  lines: { object: 'list'; data: FakeLine[]; has_more: false; url: string };
  /** Only in answers that expand it (Stripe: includable). */
  confirmation_secret?: Stripe.Invoice.ConfirmationSecret | null;
};
type FakeItem = Pick<Stripe.SubscriptionItem, 'id' | 'object' | 'current_period_start' | 'current_period_end' | 'quantity' | 'subscription'> & {
  price: FakePrice;
};
type FakeSubscription = Pick<
  Stripe.Subscription,
  'id' | 'object' | 'customer' | 'status' | 'cancel_at_period_end' | 'default_payment_method' | 'metadata' | 'created' | 'livemode'
> & {
  items: { object: 'list'; data: FakeItem[]; has_more: false; url: string };
  latest_invoice: string | FakeInvoice;
};
type FakeCharge = Pick<
  Stripe.Charge,
  | 'id'
  | 'object'
  | 'amount'
  | 'amount_refunded'
  | 'currency'
  | 'customer'
  | 'payment_intent'
  | 'refunded'
  | 'disputed'
  | 'status'
  | 'paid'
  | 'created'
  | 'livemode'
  | 'metadata'
>;
type FakeDispute = Pick<Stripe.Dispute, 'id' | 'object' | 'amount' | 'charge' | 'payment_intent' | 'currency' | 'status' | 'reason' | 'created' | 'livemode'>;
type FakeInvoicePayment = Pick<Stripe.InvoicePayment, 'id' | 'object' | 'invoice' | 'status' | 'amount_paid' | 'currency' | 'created' | 'livemode'> & {
  payment: { type: 'payment_intent'; payment_intent: string };
};
type FakeRefund = Pick<Stripe.Refund, 'id' | 'object' | 'amount' | 'charge' | 'payment_intent' | 'status' | 'currency' | 'created' | 'metadata'>;
export type FakeEvent = Pick<Stripe.EventBase, 'id' | 'object' | 'api_version' | 'created' | 'livemode' | 'pending_webhooks' | 'request'> & {
  type: Stripe.Event['type'];
  data: { object: object };
};

export interface RecordedRequest {
  method: string;
  path: string;
  /** The form body (POST) or query string (GET), exactly as the SDK encoded it. */
  params: URLSearchParams;
  idempotencyKey: string | undefined;
  stripeVersion: string | undefined;
  /** The status the fake answered. */
  status: number;
  replayed: boolean;
  injected: boolean;
}

type Params = { [key: string]: string | Params | Params[] | string[] };
interface Answer {
  status: number;
  body: unknown;
}

class StripeFail extends Error {
  constructor(
    readonly status: number,
    readonly error: Record<string, unknown>,
  ) {
    super(String(error.message));
  }
}

const missing = (what: string, id: string) =>
  new StripeFail(404, { type: 'invalid_request_error', code: 'resource_missing', param: 'id', message: `No such ${what}: '${id}'` });
const invalid = (message: string, param?: string) => new StripeFail(400, { type: 'invalid_request_error', message, ...(param ? { param } : {}) });

/** `a[b][0][c]=v` pairs → nested objects, numeric keys becoming arrays (Stripe's bracket notation). */
function parseForm(params: URLSearchParams): Params {
  const root: Record<string, unknown> = {};
  for (const [key, value] of params) {
    const path = key.replace(/\]/g, '').split('[');
    let node = root;
    path.forEach((part, i) => {
      if (i === path.length - 1) node[part] = value;
      else node = (node[part] ??= {}) as Record<string, unknown>;
    });
  }
  const arrays = (v: unknown): unknown => {
    if (typeof v !== 'object' || v === null) return v;
    const entries = Object.entries(v).map(([k, x]) => [k, arrays(x)] as const);
    return entries.length && entries.every(([k]) => /^\d+$/.test(k))
      ? entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, x]) => x)
      : Object.fromEntries(entries);
  };
  return arrays(root) as Params;
}

function only(params: Params, allowed: string[]): void {
  for (const key of Object.keys(params)) {
    if (!allowed.includes(key))
      throw new StripeFail(400, { type: 'invalid_request_error', code: 'parameter_unknown', param: key, message: `Received unknown parameter: ${key}` });
  }
}

function expandsOf(params: Params, allowed: string[]): string[] {
  const expand = (params.expand ?? []) as string[];
  for (const path of expand) if (!allowed.includes(path)) throw invalid(`This property cannot be expanded (${path}).`, 'expand');
  return expand;
}

const str = (v: Params[string] | undefined): string | undefined => (typeof v === 'string' ? v : undefined);
const meta = (v: Params[string] | undefined): Record<string, string> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, string>) : {});

export interface FakeStripe {
  /** http://127.0.0.1:<port>, for STRIPE_API_BASE / StripeConfig.apiBase. */
  url: string;
  requests: RecordedRequest[];
  /** The next `times` requests (optionally only those whose path starts with `pathPrefix`) answer `status` without running. */
  failNext(options?: { status?: number; times?: number; pathPrefix?: string }): void;
  /** The next `times` requests (optionally only those whose path starts with `pathPrefix`) run, then lose their answer (the socket is cut). */
  dropNextAnswer(options?: { times?: number; pathPrefix?: string }): void;
  /** Caps list pages below the requested limit (Stripe's cap is 100), to make clients page. */
  setMaxPageSize(size: number): void;
  priceOf(plan: PlanId): string;
  /** Attaches a copy of a test payment method to a customer (as Stripe does with pm_card_* tokens). */
  attachCard(customerId: string, token: TestPaymentMethod, name?: string): string;
  /** The browser's confirmPayment with a test card: the intent succeeds, needs 3-D Secure, or declines. */
  confirmPaymentIntent(intentId: string, token: TestPaymentMethod): FakeIntent;
  /** The browser's confirmSetup: the card is saved to the intent's customer. */
  confirmSetupIntent(setupIntentId: string, token: TestPaymentMethod): FakeSetupIntent;
  /** The browser paying a subscription invoice: invoice paid, subscription active with the card as its default. */
  payInvoice(invoiceId: string, token: TestPaymentMethod): FakeInvoice;
  customer(id: string): FakeCustomer;
  paymentIntent(id: string): FakeIntent;
  setupIntent(id: string): FakeSetupIntent;
  invoice(id: string): FakeInvoice;
  subscription(id: string): FakeSubscription;
  /** The charge a succeeded payment intent made (Stripe: latest_charge). */
  chargeOf(intentId: string): FakeCharge;
  /** A refund from Stripe's dashboard: `amount` cents (default: what is left); answers the charge after it. */
  refundCharge(chargeId: string, amount?: number): FakeCharge;
  /** A bank opens a chargeback on the charge (default: its whole amount). */
  openDispute(chargeId: string, amount?: number): FakeDispute;
  /** The dispute closes: won or lost. */
  closeDispute(disputeId: string, status: 'won' | 'lost'): FakeDispute;
  /** A renewal of the subscription at its current (possibly archived) price, charged to its default card: paid, or past_due when it declines. */
  renew(subscriptionId: string, token?: TestPaymentMethod): FakeInvoice;
  /** An event as Stripe would deliver it, with a copy of `object` as data.object. */
  event(type: Stripe.Event['type'], object: object, options?: { id?: string; created?: number; livemode?: boolean }): FakeEvent;
  close(): Promise<void>;
}

export interface FakeStripeOptions {
  /** The account starts with a monthly Price per catalog plan under its lookup key (default), or with none. */
  seedPrices?: boolean;
  /** Seeded prices at other amounts than the catalog's (an account whose prices drifted). */
  priceAmounts?: Partial<Record<PlanId, number>>;
}

export async function startFakeStripe(options: FakeStripeOptions = {}): Promise<FakeStripe> {
  const requests: RecordedRequest[] = [];
  const failures: { status: number; pathPrefix?: string }[] = [];
  const drops: { pathPrefix?: string }[] = [];
  const idempotent = new Map<string, { fingerprint: string; answer: Answer }>();
  const prices = new Map<string, FakePrice>();
  const customers = new Map<string, FakeCustomer>();
  const methods = new Map<string, FakeMethod & { outcome: Outcome }>();
  const intents = new Map<string, FakeIntent>();
  const setups = new Map<string, FakeSetupIntent>();
  const invoices = new Map<string, FakeInvoice>();
  const subscriptions = new Map<string, FakeSubscription>();
  const webhookEndpoints = new Map<string, FakeWebhookEndpoint>();
  const charges = new Map<string, FakeCharge>();
  const chargeByIntent = new Map<string, string>();
  const disputes = new Map<string, FakeDispute>();
  const invoicePayments = new Map<string, FakeInvoicePayment>();
  let invoiceNumber = 0;
  let baseUrl = '';
  let maxPageSize = 100;

  const newId = (prefix: string) => `${prefix}_fake${randomBytes(8).toString('hex')}`;
  const now = () => Math.floor(Date.now() / 1000);
  const copy = <T>(v: T): T => structuredClone(v);

  for (const plan of options.seedPrices === false ? [] : PLAN_IDS) {
    const id = newId('price');
    prices.set(id, {
      id,
      object: 'price',
      active: true,
      currency: 'usd',
      lookup_key: lookupKeyOf(plan),
      unit_amount: options.priceAmounts?.[plan] ?? PLANS[plan].amountCents,
      product: newId('prod'),
      type: 'recurring',
      recurring: { interval: 'month', interval_count: 1 },
      created: now(),
      livemode: false,
      // like a price made by hand in the dashboard: only its lookup key says which plan
      metadata: {},
    });
  }

  function get<T>(map: Map<string, T>, what: string, id: string): T {
    const found = map.get(id);
    if (!found) throw missing(what, id);
    return found;
  }

  function list<T extends { id: string }>(items: T[], params: Params, url: string) {
    const limit = Math.min(Number(str(params.limit) ?? 10), maxPageSize);
    const after = str(params.starting_after);
    const start = after ? items.findIndex((i) => i.id === after) + 1 : 0;
    const data = items.slice(start, start + limit);
    return { object: 'list', data, has_more: start + limit < items.length, url };
  }

  function methodFrom(ref: string, customerId: string | null): FakeMethod & { outcome: Outcome } {
    const test = TEST_PAYMENT_METHODS[ref as TestPaymentMethod];
    if (!test) return get(methods, 'payment_method', ref);
    const id = newId('pm');
    const method = {
      id,
      object: 'payment_method' as const,
      type: 'card' as const,
      created: now(),
      livemode: false,
      metadata: {},
      customer: customerId,
      billing_details: { name: null, email: null },
      // Stripe's fingerprint depends on the card number only: the same test token, the same value
      card: { brand: test.brand, last4: test.last4, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, funding: 'credit', fingerprint: `fp_${ref}` },
      outcome: test.outcome,
    };
    methods.set(id, method);
    return method;
  }

  const publicMethod = ({ outcome: _outcome, ...method }: FakeMethod & { outcome: Outcome }): FakeMethod => method;

  function declineOf(outcome: Outcome, offSession: boolean): Stripe.PaymentIntent.LastPaymentError | null {
    if (outcome === 'ok') return null;
    if (outcome === 'authentication_required') {
      return offSession
        ? {
            type: 'card_error',
            code: 'authentication_required',
            decline_code: 'authentication_required',
            message: 'Your card was declined. This transaction requires authentication.',
          }
        : null;
    }
    if (outcome === 'insufficient_funds')
      return { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' };
    return { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' };
  }

  /** Runs a payment with a card: succeeded, requires_action (3-D Secure on-session) or a decline (402). */
  function charge(intent: FakeIntent, method: FakeMethod & { outcome: Outcome }, offSession: boolean): void {
    intent.payment_method = method.id;
    const decline = declineOf(method.outcome, offSession);
    if (decline) {
      intent.status = 'requires_payment_method';
      intent.last_payment_error = { ...decline, payment_method: publicMethod(method) as Stripe.PaymentMethod };
      throw new StripeFail(402, { ...decline, payment_intent: copy(intent) });
    }
    if (method.outcome === 'authentication_required') {
      intent.status = 'requires_action';
      return;
    }
    intent.status = 'succeeded';
    intent.amount_received = intent.amount;
    intent.last_payment_error = null;
    const chargeId = newId('ch');
    charges.set(chargeId, {
      id: chargeId,
      object: 'charge',
      amount: intent.amount,
      amount_refunded: 0,
      currency: intent.currency,
      customer: intent.customer,
      payment_intent: intent.id,
      refunded: false,
      disputed: false,
      status: 'succeeded',
      paid: true,
      created: now(),
      livemode: false,
      metadata: {},
    });
    chargeByIntent.set(intent.id, chargeId);
    if (intent.setup_future_usage && !method.customer) method.customer = intent.customer as string;
  }

  function newIntent(p: {
    amount: number;
    customer: string;
    metadata: Record<string, string>;
    setupFutureUsage?: 'off_session' | 'on_session' | null;
    description?: string;
  }): FakeIntent {
    const id = newId('pi');
    const intent: FakeIntent = {
      id,
      object: 'payment_intent',
      amount: p.amount,
      amount_received: 0,
      currency: 'usd',
      customer: p.customer,
      description: p.description ?? null,
      metadata: p.metadata,
      status: 'requires_payment_method',
      client_secret: `${id}_secret_${randomBytes(12).toString('hex')}`,
      setup_future_usage: p.setupFutureUsage ?? null,
      payment_method: null,
      last_payment_error: null,
      allowed_payment_method_types: ['card'],
      created: now(),
      livemode: false,
    };
    intents.set(id, intent);
    return intent;
  }

  /** An open invoice of a subscription for its plan's full price, with the payment intent to confirm. */
  function openInvoice(sub: FakeSubscription, price: FakePrice, reason: 'subscription_create' | 'subscription_update' | 'subscription_cycle'): FakeInvoice {
    const id = newId('in');
    const start = reason === 'subscription_cycle' ? sub.items.data[0].current_period_end : now();
    const end = start + 30 * 86_400;
    const intent = newIntent({ amount: price.unit_amount!, customer: sub.customer as string, metadata: {}, setupFutureUsage: 'off_session' });
    invoiceToIntent.set(id, intent.id);
    const invoice: FakeInvoice = {
      id,
      object: 'invoice',
      customer: sub.customer,
      status: 'open',
      billing_reason: reason,
      amount_due: price.unit_amount!,
      amount_paid: 0,
      total: price.unit_amount!,
      currency: 'usd',
      number: `FAKE-${String(++invoiceNumber).padStart(4, '0')}`,
      invoice_pdf: `${baseUrl}/invoice_pdf/${id}`,
      hosted_invoice_url: `${baseUrl}/hosted/${id}`,
      created: start,
      livemode: false,
      parent: { type: 'subscription_details', quote_details: null, subscription_details: { subscription: sub.id, metadata: { ...sub.metadata } } },
      lines: {
        object: 'list',
        data: [
          {
            id: newId('il'),
            object: 'line_item',
            amount: price.unit_amount!,
            currency: 'usd',
            description: `1 × ${price.lookup_key}`,
            period: { start, end },
            pricing: { type: 'price_details', price_details: { price: price.id, product: price.product as string }, unit_amount_decimal: null },
          },
        ],
        has_more: false,
        url: `/v1/invoices/${id}/lines`,
      },
      confirmation_secret: { client_secret: intent.client_secret!, type: 'payment_intent' },
    };
    invoices.set(id, invoice);
    pendingPrice.set(id, price);
    sub.latest_invoice = id;
    return invoice;
  }
  const invoiceToIntent = new Map<string, string>();

  function recordInvoicePayment(invoice: FakeInvoice, intent: FakeIntent): void {
    const id = newId('inpay');
    invoicePayments.set(id, {
      id,
      object: 'invoice_payment',
      invoice: invoice.id!,
      status: 'paid',
      amount_paid: intent.amount,
      currency: 'usd',
      created: now(),
      livemode: false,
      payment: { type: 'payment_intent', payment_intent: intent.id },
    });
  }
  const pendingPrice = new Map<string, FakePrice>();

  function invoiceView(invoice: FakeInvoice, withSecret: boolean): FakeInvoice {
    const { confirmation_secret, ...rest } = copy(invoice);
    return withSecret ? { ...rest, confirmation_secret: confirmation_secret ?? null } : rest;
  }

  function subscriptionView(sub: FakeSubscription, expand: string[]): FakeSubscription {
    const view = copy(sub);
    const latest = typeof sub.latest_invoice === 'string' ? invoices.get(sub.latest_invoice) : undefined;
    if (latest && expand.some((e) => e === 'latest_invoice' || e === 'latest_invoice.confirmation_secret')) {
      view.latest_invoice = invoiceView(latest, expand.includes('latest_invoice.confirmation_secret'));
    }
    return view;
  }

  function priceParam(value: string | undefined): FakePrice {
    if (!value) throw invalid('Missing required param: items[0][price].', 'items[0][price]');
    const price = prices.get(value);
    if (!price) throw missing('price', value);
    return price;
  }

  function refundOf(ch: FakeCharge, amount: number | undefined): FakeRefund {
    const left = ch.amount - ch.amount_refunded;
    const refunded = amount ?? left;
    if (!Number.isInteger(refunded) || refunded <= 0 || refunded > left) {
      throw invalid(`Refund amount ($${(refunded / 100).toFixed(2)}) is greater than unrefunded amount on charge ($${(left / 100).toFixed(2)})`, 'amount');
    }
    ch.amount_refunded += refunded;
    ch.refunded = ch.amount_refunded === ch.amount;
    return {
      id: newId('re'),
      object: 'refund',
      amount: refunded,
      charge: ch.id,
      payment_intent: ch.payment_intent,
      status: 'succeeded',
      currency: ch.currency,
      created: now(),
      metadata: {},
    };
  }

  function route(method: string, path: string, params: Params): Answer {
    const ok = (body: unknown) => ({ status: 200, body });
    let m: RegExpMatchArray | null;

    if (method === 'GET' && path === '/v1/prices') {
      only(params, ['lookup_keys', 'active', 'limit', 'starting_after']);
      const keys = (params.lookup_keys ?? []) as string[];
      if (keys.length > 10) throw invalid('You may only specify up to 10 lookup keys.', 'lookup_keys');
      const found = [...prices.values()].filter((p) => (!keys.length || keys.includes(p.lookup_key!)) && (params.active !== 'true' || p.active));
      return ok(list(found, params, '/v1/prices'));
    }

    if (method === 'POST' && path === '/v1/prices') {
      only(params, ['currency', 'unit_amount', 'recurring', 'lookup_key', 'transfer_lookup_key', 'product', 'product_data', 'metadata']);
      if (!str(params.currency)) throw invalid('Missing required param: currency.', 'currency');
      if (!/^\d+$/.test(str(params.unit_amount) ?? '')) throw invalid('Invalid integer: unit_amount', 'unit_amount');
      if (!params.product === !params.product_data) throw invalid('You must specify either `product` or `product_data` when creating a price.');
      if (params.product_data && !str(meta(params.product_data).name)) throw invalid('Missing required param: product_data[name].', 'product_data[name]');
      const recurring = meta(params.recurring);
      if (params.recurring && !['day', 'week', 'month', 'year'].includes(recurring.interval))
        throw invalid('Invalid recurring[interval]', 'recurring[interval]');
      const lookupKey = str(params.lookup_key) ?? null;
      const holder = lookupKey ? [...prices.values()].find((p) => p.lookup_key === lookupKey) : undefined;
      if (holder) {
        if (params.transfer_lookup_key !== 'true') throw invalid(`A price (\`${holder.id}\`) already uses that lookup key.`, 'lookup_key');
        holder.lookup_key = null;
      }
      const id = newId('price');
      const price: FakePrice = {
        id,
        object: 'price',
        active: true,
        currency: str(params.currency)!,
        lookup_key: lookupKey,
        unit_amount: Number(params.unit_amount),
        product: str(params.product) ?? newId('prod'),
        type: params.recurring ? 'recurring' : 'one_time',
        recurring: { interval: recurring.interval as Stripe.Price.Recurring.Interval, interval_count: Number(recurring.interval_count ?? 1) },
        created: now(),
        livemode: false,
        metadata: meta(params.metadata),
      };
      prices.set(id, price);
      return ok(price);
    }

    if (method === 'GET' && (m = path.match(/^\/v1\/prices\/([^/]+)$/))) {
      only(params, ['expand']);
      return ok(get(prices, 'price', m[1]));
    }
    if (method === 'POST' && (m = path.match(/^\/v1\/prices\/([^/]+)$/))) {
      only(params, ['active', 'metadata', 'lookup_key', 'transfer_lookup_key']);
      const price = get(prices, 'price', m[1]);
      if (params.active !== undefined) price.active = params.active === 'true';
      Object.assign(price.metadata, meta(params.metadata));
      const lookupKey = str(params.lookup_key);
      if (lookupKey !== undefined) {
        const holder = [...prices.values()].find((p) => p.lookup_key === lookupKey && p.id !== price.id);
        if (holder && params.transfer_lookup_key !== 'true') throw invalid(`A price (\`${holder.id}\`) already uses that lookup key.`, 'lookup_key');
        if (holder) holder.lookup_key = null;
        price.lookup_key = lookupKey || null;
      }
      return ok(price);
    }

    if (method === 'GET' && (m = path.match(/^\/v1\/charges\/([^/]+)$/))) {
      only(params, ['expand']);
      return ok(get(charges, 'charge', m[1]));
    }

    if (method === 'GET' && path === '/v1/invoice_payments') {
      only(params, ['invoice', 'payment', 'status', 'limit', 'starting_after']);
      const payment = meta(params.payment);
      if (params.payment) only(payment as Params, ['type', 'payment_intent']);
      if (params.payment && payment.type !== 'payment_intent') throw invalid('Invalid payment[type]', 'payment[type]');
      const found = [...invoicePayments.values()].filter(
        (ip) =>
          (!params.invoice || ip.invoice === params.invoice) &&
          (!payment.payment_intent || ip.payment.payment_intent === payment.payment_intent) &&
          (!params.status || ip.status === params.status),
      );
      return ok(list(found, params, path));
    }

    if (method === 'POST' && path === '/v1/refunds') {
      only(params, ['payment_intent', 'charge', 'amount', 'metadata', 'reason']);
      const chargeId = str(params.charge) ?? chargeByIntent.get(str(params.payment_intent) ?? '');
      if (!chargeId) throw invalid('This PaymentIntent does not have a successful charge to refund.', 'payment_intent');
      const refund = refundOf(get(charges, 'charge', chargeId), params.amount === undefined ? undefined : Number(params.amount));
      refund.metadata = meta(params.metadata);
      return ok(refund);
    }

    if (method === 'POST' && (m = path.match(/^\/v1\/invoices\/([^/]+)\/void$/))) {
      only(params, []);
      const invoice = get(invoices, 'invoice', m[1]);
      if (invoice.status !== 'open') throw invalid(`You can only pass in open invoices. This invoice is ${invoice.status}.`);
      invoice.status = 'void';
      return ok(invoiceView(invoice, false));
    }

    if (path === '/v1/webhook_endpoints') {
      const hideSecret = ({ secret: _secret, ...endpoint }: FakeWebhookEndpoint) => endpoint;
      if (method === 'GET') {
        only(params, ['limit', 'starting_after']);
        return ok(list([...webhookEndpoints.values()].map(hideSecret), params, path));
      }
      only(params, ['url', 'enabled_events', 'api_version', 'description', 'metadata']);
      const url = str(params.url);
      if (!url || !/^https?:\/\//.test(url)) throw invalid('Invalid URL: An explicit scheme (such as https) must be provided.', 'url');
      const events = (params.enabled_events ?? []) as string[];
      if (!events.length) throw invalid('Missing required param: enabled_events.', 'enabled_events');
      const id = newId('we');
      const endpoint: FakeWebhookEndpoint = {
        id,
        object: 'webhook_endpoint',
        url,
        enabled_events: events,
        api_version: str(params.api_version) ?? null,
        status: 'enabled',
        livemode: false,
        created: now(),
        description: str(params.description) ?? null,
        secret: `whsec_${randomBytes(24).toString('hex')}`,
      };
      webhookEndpoints.set(id, endpoint);
      return ok(endpoint);
    }
    if (method === 'POST' && (m = path.match(/^\/v1\/webhook_endpoints\/([^/]+)$/))) {
      only(params, ['enabled_events', 'disabled', 'url', 'description', 'metadata']);
      const endpoint = get(webhookEndpoints, 'webhook_endpoint', m[1]);
      if (params.enabled_events) endpoint.enabled_events = params.enabled_events as string[];
      if (params.disabled !== undefined) endpoint.status = params.disabled === 'true' ? 'disabled' : 'enabled';
      if (str(params.url)) endpoint.url = str(params.url)!;
      const { secret: _secret, ...shown } = endpoint;
      return ok(shown);
    }

    if (method === 'POST' && path === '/v1/customers') {
      only(params, ['email', 'name', 'metadata']);
      const id = newId('cus');
      const customer: FakeCustomer = {
        id,
        object: 'customer',
        created: now(),
        email: str(params.email) ?? null,
        metadata: meta(params.metadata),
        livemode: false,
        invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
      };
      customers.set(id, customer);
      return ok(customer);
    }
    if ((m = path.match(/^\/v1\/customers\/([^/]+)$/))) {
      const customer = get(customers, 'customer', m[1]);
      if (method === 'GET') return ok(customer);
      if (method === 'POST') {
        only(params, ['email', 'metadata', 'invoice_settings']);
        const settings = meta(params.invoice_settings);
        if ('default_payment_method' in settings) {
          const pm = settings.default_payment_method;
          if (pm && methods.get(pm)?.customer !== customer.id) {
            throw invalid(
              `The customer does not have a payment method with the ID ${pm}. The payment method must be attached to the customer.`,
              'invoice_settings[default_payment_method]',
            );
          }
          customer.invoice_settings.default_payment_method = pm || null;
        }
        if (params.email !== undefined) customer.email = str(params.email) ?? null;
        Object.assign(customer.metadata, meta(params.metadata));
        return ok(customer);
      }
    }
    if (method === 'GET' && (m = path.match(/^\/v1\/customers\/([^/]+)\/payment_methods$/))) {
      only(params, ['type', 'limit', 'starting_after']);
      get(customers, 'customer', m[1]);
      // newest first, like Stripe
      const owned = [...methods.values()].filter((pm) => pm.customer === m![1] && (!params.type || pm.type === params.type)).reverse();
      return ok(list(owned.map(publicMethod), params, path));
    }

    if ((m = path.match(/^\/v1\/payment_methods\/([^/]+)(\/detach)?$/))) {
      const pm = get(methods, 'payment_method', m[1]);
      if (method === 'GET' && !m[2]) return ok(publicMethod(pm));
      if (method === 'POST' && m[2]) {
        only(params, []);
        if (!pm.customer) throw invalid('The payment method you provided is not attached to a customer so detachment is impossible.');
        const owner = customers.get(pm.customer as string);
        if (owner?.invoice_settings.default_payment_method === pm.id) owner.invoice_settings.default_payment_method = null;
        pm.customer = null;
        return ok(publicMethod(pm));
      }
    }

    if (method === 'POST' && path === '/v1/setup_intents') {
      only(params, ['customer', 'usage', 'allowed_payment_method_types', 'metadata']);
      const customer = get(customers, 'customer', str(params.customer) ?? '');
      const id = newId('seti');
      const setup: FakeSetupIntent = {
        id,
        object: 'setup_intent',
        customer: customer.id,
        status: 'requires_payment_method',
        client_secret: `${id}_secret_${randomBytes(12).toString('hex')}`,
        payment_method: null,
        usage: str(params.usage) ?? 'off_session',
        metadata: meta(params.metadata),
        created: now(),
        livemode: false,
      };
      setups.set(id, setup);
      return ok(setup);
    }
    if (method === 'GET' && (m = path.match(/^\/v1\/setup_intents\/([^/]+)$/))) return ok(get(setups, 'setup_intent', m[1]));

    if (method === 'POST' && path === '/v1/payment_intents') {
      only(params, [
        'amount',
        'currency',
        'customer',
        'description',
        'metadata',
        'setup_future_usage',
        'allowed_payment_method_types',
        'payment_method',
        'off_session',
        'confirm',
        'payment_method_options',
      ]);
      const amount = Number(str(params.amount));
      if (!Number.isInteger(amount) || amount < 50) throw invalid('Amount must be at least $0.50 usd', 'amount');
      if (params.currency !== 'usd') throw invalid('Invalid currency', 'currency');
      const customer = get(customers, 'customer', str(params.customer) ?? '');
      const offSession = params.off_session === 'true';
      if (offSession && params.confirm !== 'true') throw invalid('off_session can only be used with confirm=true', 'off_session');
      const intent = newIntent({
        amount,
        customer: customer.id,
        metadata: meta(params.metadata),
        setupFutureUsage: (str(params.setup_future_usage) as 'off_session' | undefined) ?? null,
        description: str(params.description),
      });
      if (params.confirm === 'true') {
        const pmRef = str(params.payment_method);
        if (!pmRef) throw invalid('You cannot confirm this PaymentIntent because it\u2019s missing a payment method.', 'payment_method');
        const pm = methodFrom(pmRef, null);
        if (pm.customer && pm.customer !== customer.id) throw invalid('The provided PaymentMethod belongs to another customer.', 'payment_method');
        charge(intent, pm, offSession);
      }
      return ok(intent);
    }
    if (method === 'GET' && (m = path.match(/^\/v1\/payment_intents\/([^/]+)$/))) return ok(get(intents, 'payment_intent', m[1]));

    if (method === 'POST' && path === '/v1/subscriptions') {
      only(params, ['customer', 'items', 'payment_behavior', 'payment_settings', 'expand', 'metadata']);
      const expand = expandsOf(params, ['latest_invoice', 'latest_invoice.confirmation_secret']);
      const customer = get(customers, 'customer', str(params.customer) ?? '');
      const items = (params.items ?? []) as Params[];
      if (items.length !== 1) throw invalid('Exactly one item is supported by the fake.', 'items');
      only(items[0], ['price']);
      const price = priceParam(str(items[0].price));
      if (params.payment_behavior !== 'default_incomplete')
        throw invalid('The fake only creates subscriptions with payment_behavior=default_incomplete.', 'payment_behavior');
      const id = newId('sub');
      const start = now();
      const sub: FakeSubscription = {
        id,
        object: 'subscription',
        customer: customer.id,
        status: 'incomplete',
        cancel_at_period_end: false,
        default_payment_method: null,
        metadata: meta(params.metadata),
        created: start,
        livemode: false,
        items: {
          object: 'list',
          data: [
            {
              id: newId('si'),
              object: 'subscription_item',
              current_period_start: start,
              current_period_end: start + 30 * 86_400,
              quantity: 1,
              subscription: id,
              price,
            },
          ],
          has_more: false,
          url: `/v1/subscription_items?subscription=${id}`,
        },
        latest_invoice: '',
      };
      subscriptions.set(id, sub);
      openInvoice(sub, price, 'subscription_create');
      return ok(subscriptionView(sub, expand));
    }
    if (method === 'GET' && path === '/v1/subscriptions') {
      only(params, ['customer', 'status', 'limit', 'starting_after']);
      const status = str(params.status);
      const found = [...subscriptions.values()].filter(
        (s) => (!params.customer || s.customer === params.customer) && (status === 'all' ? true : status ? s.status === status : s.status !== 'canceled'),
      );
      return ok(
        list(
          found.map((s) => subscriptionView(s, [])),
          params,
          '/v1/subscriptions',
        ),
      );
    }
    if ((m = path.match(/^\/v1\/subscriptions\/([^/]+)$/))) {
      const sub = get(subscriptions, 'subscription', m[1]);
      if (method === 'DELETE') {
        only(params, ['prorate', 'invoice_now', 'expand']);
        if (sub.status === 'canceled') throw invalid(`No such subscription: '${sub.id}'`);
        sub.status = 'canceled';
        sub.cancel_at_period_end = false;
        return ok(subscriptionView(sub, []));
      }
      if (method === 'GET') {
        only(params, ['expand']);
        return ok(subscriptionView(sub, expandsOf(params, ['latest_invoice', 'latest_invoice.confirmation_secret'])));
      }
      if (method === 'POST') {
        only(params, [
          'items',
          'billing_cycle_anchor',
          'proration_behavior',
          'payment_behavior',
          'expand',
          'cancel_at_period_end',
          'default_payment_method',
          'metadata',
        ]);
        const expand = expandsOf(params, ['latest_invoice', 'latest_invoice.confirmation_secret']);
        if (params.cancel_at_period_end !== undefined) sub.cancel_at_period_end = params.cancel_at_period_end === 'true';
        if (params.default_payment_method !== undefined) {
          const pm = str(params.default_payment_method);
          if (pm && methods.get(pm)?.customer !== sub.customer) throw missing('payment_method', pm);
          sub.default_payment_method = pm || null;
        }
        Object.assign(sub.metadata, meta(params.metadata));
        if (params.items) {
          const [item] = params.items as Params[];
          only(item, ['id', 'price']);
          if (item.id !== sub.items.data[0].id) throw missing('subscription_item', String(item.id));
          if (params.payment_behavior !== 'pending_if_incomplete')
            throw invalid('The fake changes plans with payment_behavior=pending_if_incomplete only.', 'payment_behavior');
          // pending_if_incomplete: the new price applies once the invoice is paid (payInvoice)
          openInvoice(sub, priceParam(str(item.price)), 'subscription_update');
        }
        return ok(subscriptionView(sub, expand));
      }
    }

    if (method === 'GET' && (m = path.match(/^\/v1\/invoices\/([^/]+)$/))) {
      only(params, []);
      return ok(invoiceView(get(invoices, 'invoice', m[1]), false));
    }

    throw new StripeFail(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` });
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const raw = req.method === 'GET' || req.method === 'DELETE' ? url.search.slice(1) : Buffer.concat(chunks).toString('utf8');
      const form = new URLSearchParams(raw);
      const key = req.headers['idempotency-key'] as string | undefined;
      const record: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        params: form,
        idempotencyKey: key,
        stripeVersion: req.headers['stripe-version'] as string | undefined,
        status: 0,
        replayed: false,
        injected: false,
      };
      requests.push(record);
      const send = (answer: Answer, headers: Record<string, string> = {}) => {
        record.status = answer.status;
        res.writeHead(answer.status, { 'content-type': 'application/json', 'request-id': `req_${randomBytes(6).toString('hex')}`, ...headers });
        res.end(JSON.stringify(answer.body));
      };

      if (url.pathname.startsWith('/invoice_pdf/')) {
        record.status = 200;
        res.writeHead(200, { 'content-type': 'application/pdf' }).end(`%PDF-1.4\n% fake Stripe invoice ${url.pathname.slice(13)}\n%%EOF\n`);
        return;
      }
      if (req.headers.authorization !== 'Bearer sk_test_fake') {
        send({ status: 401, body: { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } } });
        return;
      }
      const failure = failures.findIndex((f) => !f.pathPrefix || url.pathname.startsWith(f.pathPrefix));
      if (failure >= 0) {
        const [{ status }] = failures.splice(failure, 1);
        record.injected = true;
        send({ status, body: { error: { type: 'api_error', message: 'An unknown error occurred' } } });
        return;
      }
      const fingerprint = `${req.method} ${url.pathname} ${raw}`;
      if (key && req.method === 'POST') {
        const seen = idempotent.get(key);
        if (seen) {
          if (seen.fingerprint !== fingerprint) {
            send({
              status: 400,
              body: {
                error: {
                  type: 'idempotency_error',
                  message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
                },
              },
            });
            return;
          }
          record.replayed = true;
          send(seen.answer, { 'idempotent-replayed': 'true' });
          return;
        }
      }
      let answer: Answer;
      try {
        answer = route(record.method, url.pathname, parseForm(form));
        answer = { status: answer.status, body: copy(answer.body) };
      } catch (e) {
        if (!(e instanceof StripeFail)) throw e;
        answer = { status: e.status, body: { error: e.error } };
      }
      // Stripe keeps the result of every request that ran, errors included
      if (key && req.method === 'POST') idempotent.set(key, { fingerprint, answer });
      const drop = drops.findIndex((d) => !d.pathPrefix || url.pathname.startsWith(d.pathPrefix));
      if (drop >= 0) {
        drops.splice(drop, 1);
        record.injected = true;
        record.status = answer.status;
        req.socket.destroy();
        return;
      }
      send(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: baseUrl,
    requests,
    failNext({ status = 500, times = 1, pathPrefix } = {}) {
      for (let i = 0; i < times; i++) failures.push({ status, pathPrefix });
    },
    dropNextAnswer({ times = 1, pathPrefix } = {}) {
      for (let i = 0; i < times; i++) drops.push({ pathPrefix });
    },
    setMaxPageSize(size) {
      maxPageSize = size;
    },
    priceOf(plan) {
      return [...prices.values()].find((p) => p.lookup_key === lookupKeyOf(plan))!.id;
    },
    attachCard(customerId, token, name) {
      get(customers, 'customer', customerId);
      const pm = methodFrom(token, customerId);
      pm.billing_details.name = name ?? null;
      return pm.id;
    },
    confirmPaymentIntent(intentId, token) {
      const intent = get(intents, 'payment_intent', intentId);
      try {
        charge(intent, methodFrom(token, null), false);
      } catch (e) {
        if (!(e instanceof StripeFail)) throw e;
      }
      return copy(intent);
    },
    confirmSetupIntent(setupIntentId, token) {
      const setup = get(setups, 'setup_intent', setupIntentId);
      const pm = methodFrom(token, setup.customer as string);
      setup.payment_method = pm.id;
      setup.status = 'succeeded';
      return copy(setup);
    },
    payInvoice(invoiceId, token) {
      const invoice = get(invoices, 'invoice', invoiceId);
      if (invoice.status !== 'open') throw new Error(`invoice ${invoiceId} is ${invoice.status} and cannot be paid`);
      const intent = get(intents, 'payment_intent', invoiceToIntent.get(invoiceId)!);
      const pm = methodFrom(token, invoice.customer as string);
      charge(intent, pm, false);
      if (intent.status !== 'succeeded') throw new Error(`invoice ${invoiceId} not paid: ${intent.status}`);
      recordInvoicePayment(invoice, intent);
      invoice.status = 'paid';
      invoice.amount_paid = invoice.amount_due;
      const sub = get(subscriptions, 'subscription', invoice.parent.subscription_details.subscription as string);
      const line = invoice.lines.data[0];
      sub.status = 'active';
      sub.default_payment_method = pm.id;
      sub.items.data[0].price = pendingPrice.get(invoiceId)!;
      sub.items.data[0].current_period_start = line.period.start;
      sub.items.data[0].current_period_end = line.period.end;
      return copy(invoice);
    },
    chargeOf(intentId) {
      return copy(get(charges, 'charge', chargeByIntent.get(intentId) ?? intentId));
    },
    refundCharge(chargeId, amount) {
      const ch = get(charges, 'charge', chargeId);
      refundOf(ch, amount);
      return copy(ch);
    },
    openDispute(chargeId, amount) {
      const ch = get(charges, 'charge', chargeId);
      ch.disputed = true;
      const id = newId('dp');
      const dispute: FakeDispute = {
        id,
        object: 'dispute',
        amount: amount ?? ch.amount,
        charge: ch.id,
        payment_intent: ch.payment_intent,
        currency: ch.currency,
        status: 'needs_response',
        reason: 'fraudulent',
        created: now(),
        livemode: false,
      };
      disputes.set(id, dispute);
      return copy(dispute);
    },
    closeDispute(disputeId, status) {
      const dispute = get(disputes, 'dispute', disputeId);
      dispute.status = status;
      return copy(dispute);
    },
    renew(subscriptionId, token) {
      const sub = get(subscriptions, 'subscription', subscriptionId);
      const item = sub.items.data[0];
      const invoice = openInvoice(sub, item.price, 'subscription_cycle');
      invoice.confirmation_secret = null;
      const intent = get(intents, 'payment_intent', invoiceToIntent.get(invoice.id!)!);
      const pm = methodFrom(token ?? (sub.default_payment_method as string), sub.customer as string);
      try {
        charge(intent, pm, true);
      } catch (e) {
        if (!(e instanceof StripeFail)) throw e;
      }
      if (intent.status === 'succeeded') {
        invoice.status = 'paid';
        invoice.amount_paid = invoice.amount_due;
        recordInvoicePayment(invoice, intent);
        const line = invoice.lines.data[0];
        item.current_period_start = line.period.start;
        item.current_period_end = line.period.end;
        sub.status = 'active';
      } else {
        sub.status = 'past_due';
      }
      return invoiceView(invoice, false);
    },
    customer: (id) => copy(get(customers, 'customer', id)),
    paymentIntent: (id) => copy(get(intents, 'payment_intent', id)),
    setupIntent: (id) => copy(get(setups, 'setup_intent', id)),
    invoice: (id) => invoiceView(get(invoices, 'invoice', id), false),
    subscription: (id) => subscriptionView(get(subscriptions, 'subscription', id), []),
    event(type, object, options = {}) {
      return {
        id: options.id ?? newId('evt'),
        object: 'event',
        api_version: STRIPE_API_VERSION,
        created: options.created ?? now(),
        livemode: options.livemode ?? false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type,
        data: { object: copy(object) },
      };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}
