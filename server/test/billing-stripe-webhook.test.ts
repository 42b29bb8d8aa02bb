// Stripe webhooks: signature verification on the raw body, the mapping of Stripe events to
// BillingEvents, and POST /webhooks/stripe feeding the one billing event handler, where
// replays and out-of-order deliveries grant credits once (both database kinds).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import type { Db } from '@aim/supabase/db';
import { createTestDb, testDatabaseKinds } from '@aim/supabase/testing';
import type { BillingEvent } from '../src/billing/payment-provider.ts';
import { createStripeProvider, type StripeProvider } from '../src/billing/stripe/stripe-provider.ts';
import { WebhookSignatureError } from '../src/billing/stripe/webhook.ts';
import { notFoundHandler } from '../src/middleware/error-handler/index.ts';
import { createRouter } from '../src/openapi/router.ts';
import { billingRepository } from '../src/repositories/billing/billing-repository.ts';
import { INVALID_SIGNATURE_MESSAGE, stripeWebhookRoutes } from '../src/routes/stripe-webhook.ts';
import { maybeAutoTopUp } from '../src/services/billing/auto-topup/trigger.ts';
import type { Billing } from '../src/services/billing/billing.ts';
import { captureLogger, createUser, expectErrorBody, testApp } from './helpers.ts';
import { billingState, paymentsOf } from './support/billing.ts';
import { startFakeStripe, type FakeEvent, type FakeStripe } from './support/fake-stripe.ts';

const WEBHOOK_SECRET = 'whsec_test_0123456789abcdef';

let fake: FakeStripe;
let provider: StripeProvider;

beforeAll(async () => {
  fake = await startFakeStripe();
  provider = createStripeProvider({
    secretKey: 'sk_test_fake',
    publishableKey: 'pk_test_fake',
    webhookSecret: WEBHOOK_SECRET,
    apiBase: fake.url,
    timeoutMs: 5_000,
  });
});
afterAll(async () => {
  await fake?.close();
});

function signed(event: FakeEvent, options: { secret?: string; timestamp?: number } = {}) {
  const payload = JSON.stringify(event);
  const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: options.secret ?? WEBHOOK_SECRET, timestamp: options.timestamp });
  return { payload, signature };
}

async function parsed(event: FakeEvent): Promise<BillingEvent> {
  const { payload, signature } = signed(event);
  const outcome = await provider.parseWebhook(payload, signature);
  if (!('event' in outcome)) throw new Error(`ignored: ${outcome.ignored}`);
  return outcome.event;
}

async function newCustomer(): Promise<string> {
  return (await provider.createCustomer({ userId: crypto.randomUUID(), email: 'ada@example.test', idempotencyKey: `customer:${crypto.randomUUID()}` }))
    .customerId;
}

/** A subscription on `plan` whose first invoice the browser paid with 4242. */
async function paidSubscription(customerId: string, plan: 'basic' | 'growth' = 'basic') {
  const checkout = await provider.createSubscription({ customerId, plan, idempotencyKey: `checkout:${crypto.randomUUID()}` });
  return { ...checkout, invoice: fake.payInvoice(checkout.providerRef, 'pm_card_visa') };
}

describe('stripe webhook signature', () => {
  it('should refuse a tampered body, a stale timestamp, a wrong secret and a missing header', async () => {
    const event = fake.event('customer.created', { id: 'cus_x', object: 'customer' });
    const { payload, signature } = signed(event);
    const refusals = [
      provider.parseWebhook(payload.replace('cus_x', 'cus_y'), signature),
      provider.parseWebhook(payload, signed(event, { timestamp: Math.floor(Date.now() / 1000) - 301 }).signature),
      provider.parseWebhook(payload, signed(event, { secret: 'whsec_other' }).signature),
      provider.parseWebhook(payload, undefined),
      provider.parseWebhook(payload, 'garbage'),
    ];
    for (const refusal of refusals) await expect(refusal).rejects.toBeInstanceOf(WebhookSignatureError);
    // the same delivery, untouched and fresh, verifies (on bytes as well as on a string)
    await expect(provider.parseWebhook(new TextEncoder().encode(payload), signature)).resolves.toMatchObject({ eventId: event.id });
  });
});

describe('stripe webhook mapping', () => {
  it('should map a succeeded top-up payment intent with its saved card', async () => {
    const customerId = await newCustomer();
    const { providerRef } = await provider.createPaymentIntent({
      customerId,
      kind: 'topup',
      amountCents: 5_000,
      credits: 1_250,
      idempotencyKey: `topup:${crypto.randomUUID()}`,
    });
    const intent = fake.confirmPaymentIntent(providerRef, 'pm_card_visa');
    const event = fake.event('payment_intent.succeeded', intent, { id: 'evt_topup', created: 1_800_000_000 });
    expect(await parsed(event)).toEqual({
      type: 'payment_intent.succeeded',
      id: 'evt_topup',
      created: new Date(1_800_000_000_000),
      customerId,
      intentId: providerRef,
      kind: 'topup',
      amountCents: 5_000,
      currency: 'usd',
      paymentMethodId: intent.payment_method,
      savedPaymentMethod: true,
      metadata: { kind: 'topup', credits: '1250' },
    });
  });

  it('should map a declined off-session auto top-up with its codes', async () => {
    const customerId = await newCustomer();
    const pm = fake.attachCard(customerId, 'pm_card_chargeDeclinedInsufficientFunds');
    const result = await provider.chargeOffSession({
      customerId,
      paymentMethodId: pm,
      amountCents: 1_000,
      credits: 250,
      metadata: { attempt_id: 'att_1' },
      idempotencyKey: `auto-topup:${crypto.randomUUID()}`,
    });
    expect(result.status).toBe('failed');
    const event = await parsed(fake.event('payment_intent.payment_failed', fake.paymentIntent(result.intentId)));
    expect(event).toMatchObject({
      type: 'payment_intent.payment_failed',
      customerId,
      intentId: result.intentId,
      kind: 'auto_topup',
      code: 'card_declined',
      declineCode: 'insufficient_funds',
      message: 'Your card has insufficient funds.',
      metadata: { attempt_id: 'att_1', kind: 'auto_topup', credits: '250' },
    });
  });

  it('should map a paid subscription invoice to its catalog plan, period end and the subscription’s card', async () => {
    const customerId = await newCustomer();
    const { invoice, subscriptionId } = await paidSubscription(customerId, 'growth');
    expect(await parsed(fake.event('invoice.paid', invoice))).toMatchObject({
      type: 'invoice.paid',
      customerId,
      invoiceId: invoice.id,
      subscriptionId,
      plan: 'growth',
      amountCents: 39_900,
      billingReason: 'subscription_create',
      periodEnd: new Date(invoice.lines.data[0].period.end * 1000),
      paymentMethodId: fake.subscription(subscriptionId).default_payment_method,
    });
  });

  it('should map a succeeded setup intent and a deleted subscription', async () => {
    const customerId = await newCustomer();
    const { setupIntentId } = await provider.createSetupIntent({ customerId, idempotencyKey: `setup:${crypto.randomUUID()}` });
    const setup = fake.confirmSetupIntent(setupIntentId, 'pm_card_visa');
    expect(await parsed(fake.event('setup_intent.succeeded', setup))).toMatchObject({
      type: 'setup_intent.succeeded',
      customerId,
      setupIntentId,
      paymentMethodId: setup.payment_method,
    });
    const { subscriptionId } = await paidSubscription(customerId);
    expect(await parsed(fake.event('customer.subscription.deleted', fake.subscription(subscriptionId)))).toMatchObject({
      type: 'customer.subscription.deleted',
      customerId,
      subscriptionId,
    });
  });

  it('should ignore invoice payment intents, unrelated events, manual invoices and events of the other mode', async () => {
    const customerId = await newCustomer();
    const { invoice, clientSecret } = await paidSubscription(customerId);
    const invoiceIntent = fake.paymentIntent(clientSecret.split('_secret_')[0]);
    expect(invoiceIntent.status).toBe('succeeded');
    const ignored = [
      fake.event('payment_intent.succeeded', invoiceIntent),
      fake.event('customer.created', fake.customer(customerId)),
      fake.event('invoice.paid', { ...invoice, billing_reason: 'manual' }),
      fake.event('invoice.paid', invoice, { livemode: true }),
    ];
    for (const event of ignored) {
      const { payload, signature } = signed(event);
      expect(await provider.parseWebhook(payload, signature)).toMatchObject({ ignored: expect.any(String), eventId: event.id, type: event.type });
    }
  });
});

describe('stripe webhook route', () => {
  it('should not exist unless the provider is Stripe (sandbox events never come this way)', async () => {
    const sandboxLike = {
      db: {} as Db,
      log: captureLogger(),
      provider: { ...provider, kind: 'sandbox' as const },
      now: () => new Date(),
      autoTopUpBackoffMs: 0,
    };
    const app = createRouter();
    app.route('/', stripeWebhookRoutes(sandboxLike));
    app.notFound(notFoundHandler);
    const { payload, signature } = signed(fake.event('customer.created', { id: 'cus_x', object: 'customer' }));
    const res = await app.request('/webhooks/stripe', { method: 'POST', headers: { 'stripe-signature': signature }, body: payload });
    expect(res.status).toBe(404);
  });
});

describe.each(testDatabaseKinds())('POST /webhooks/stripe on %s', (kind) => {
  let db: Db;
  let billing: Billing;
  let app: ReturnType<typeof testApp>;

  beforeAll(async () => {
    db = await createTestDb(kind);
    billing = { db, log: captureLogger(), provider, now: () => new Date(), autoTopUpBackoffMs: 0 };
    // behind the real middleware stack (request id, log, CORS, body limit), as app.ts mounts it
    app = testApp(db, billing.log);
    app.route('/', stripeWebhookRoutes(billing));
  });
  afterAll(async () => {
    await db?.close();
  });

  function post(payload: string, signature?: string) {
    return app.request('/webhooks/stripe', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(signature ? { 'stripe-signature': signature } : {}) },
      body: payload,
    });
  }

  async function deliver(event: FakeEvent): Promise<Response> {
    const { payload, signature } = signed(event);
    return post(payload, signature);
  }

  /** An account whose provider customer is a fresh customer of the fake. */
  async function stripeUser() {
    const user = await createUser(db);
    const { customerId } = await provider.createCustomer({ userId: user.id, email: user.email, idempotencyKey: `customer:${user.id}` });
    await billingRepository(db).setCustomerIdOnce(user.id, customerId);
    return { ...user, customerId };
  }

  it('should grant a top-up once when its event is delivered 10 times, in sequence and in parallel', async () => {
    const user = await stripeUser();
    const { providerRef } = await provider.createPaymentIntent({
      customerId: user.customerId,
      kind: 'topup',
      amountCents: 5_000,
      credits: 1_250,
      idempotencyKey: `topup:${user.id}:r1`,
    });
    const intent = fake.confirmPaymentIntent(providerRef, 'pm_card_visa');
    const event = fake.event('payment_intent.succeeded', intent);

    const sequential = [];
    for (let i = 0; i < 5; i++) sequential.push((await deliver(event)).status);
    const parallel = await Promise.all(Array.from({ length: 5 }, async () => (await deliver(event)).status));
    expect([...sequential, ...parallel]).toEqual(Array(10).fill(200));

    expect((await billingState(db, user.id)).credits).toBe(1_250);
    expect(await paymentsOf(db, user.id)).toMatchObject([{ kind: 'topup', credits: 1_250, provider_ref: `pi:${providerRef}` }]);
    // the card the top-up saved became the default, for auto top-up
    expect(fake.customer(user.customerId).invoice_settings.default_payment_method).toBe(intent.payment_method);
  });

  it('should answer 400 to a tampered, stale or unsigned delivery and grant nothing', async () => {
    const user = await stripeUser();
    const { providerRef } = await provider.createPaymentIntent({
      customerId: user.customerId,
      kind: 'topup',
      amountCents: 10_000,
      credits: 2_500,
      idempotencyKey: `topup:${user.id}:r2`,
    });
    const event = fake.event('payment_intent.succeeded', fake.confirmPaymentIntent(providerRef, 'pm_card_visa'));
    const { payload, signature } = signed(event);
    const stale = signed(event, { timestamp: Math.floor(Date.now() / 1000) - 301 });
    for (const res of [
      await post(payload.replace('"amount_received":10000', '"amount_received":99990000'), signature),
      await post(stale.payload, stale.signature),
      await post(payload),
    ]) {
      expect(res.status).toBe(400);
      expect(await expectErrorBody(res)).toEqual({ msg: INVALID_SIGNATURE_MESSAGE, code: 'bad_request' });
    }
    expect((await billingState(db, user.id)).credits).toBe(0);
    expect(await paymentsOf(db, user.id)).toEqual([]);
  });

  it('should acknowledge an event type billing does not use and change nothing', async () => {
    const user = await stripeUser();
    const res = await deliver(fake.event('customer.updated', fake.customer(user.customerId)));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true });
    expect(await billingState(db, user.id)).toMatchObject({ credits: 0, plan: 'zero' });
  });

  it('should grant each paid invoice once and keep the newest subscription state when events arrive out of order', async () => {
    const user = await stripeUser();
    const first = await paidSubscription(user.customerId, 'basic');
    const change = await provider.changeSubscriptionPlan({
      customerId: user.customerId,
      subscriptionId: first.subscriptionId,
      plan: 'growth',
      idempotencyKey: `checkout:${crypto.randomUUID()}`,
    });
    const second = fake.payInvoice(change.providerRef, 'pm_card_visa');
    const t = Math.floor(Date.now() / 1000);
    const basicPaid = fake.event('invoice.paid', first.invoice, { created: t });
    const growthPaid = fake.event('invoice.paid', second, { created: t + 60 });
    const staleDeleted = fake.event('customer.subscription.deleted', fake.subscription(first.subscriptionId), { created: t + 30 });

    for (const event of [growthPaid, basicPaid, staleDeleted, basicPaid, growthPaid]) expect((await deliver(event)).status).toBe(200);
    const state = await billingState(db, user.id);
    expect(state).toMatchObject({ plan: 'growth', credits: 1_000 + 11_000 });
    expect(state.next_billing_date).toEqual(new Date(second.lines.data[0].period.end * 1000));
    expect((await paymentsOf(db, user.id)).map((p) => p.provider_ref).sort()).toEqual([`in:${first.invoice.id}`, `in:${second.id}`].sort());
    // the subscription's card became the customer default (what auto top-up charges)
    expect(fake.customer(user.customerId).invoice_settings.default_payment_method).toBe(fake.subscription(first.subscriptionId).default_payment_method);

    const deleted = fake.event('customer.subscription.deleted', fake.subscription(first.subscriptionId), { created: t + 120 });
    expect((await deliver(deleted)).status).toBe(200);
    expect(await billingState(db, user.id)).toMatchObject({ plan: 'zero', credits: 12_000 });
  });

  it('should run auto top-up through Stripe: a charge granted as soon as Stripe answers succeeded, its webhook granting nothing more, a decline counted once', async () => {
    const user = await stripeUser();
    const { invoice } = await paidSubscription(user.customerId, 'basic');
    await deliver(fake.event('invoice.paid', invoice));
    await billingRepository(db).saveAutoTopUpSettings(user.id, { enabled: true, min: 2_500, amountDollars: 20 });

    const charged = await maybeAutoTopUp(billing, user.id);
    expect(charged).toMatchObject({ status: 'succeeded' });
    const intentId = (charged as { intentId: string }).intentId;
    expect(fake.paymentIntent(intentId)).toMatchObject({ amount: 2_000, metadata: { kind: 'auto_topup', user_id: user.id } });
    expect((await billingState(db, user.id)).credits).toBe(1_500);
    await deliver(fake.event('payment_intent.succeeded', fake.paymentIntent(intentId)));
    await deliver(fake.event('payment_intent.succeeded', fake.paymentIntent(intentId)));
    expect((await billingState(db, user.id)).credits).toBe(1_500);

    await provider.setDefaultPaymentMethod(user.customerId, fake.attachCard(user.customerId, 'pm_card_chargeDeclined'));
    const declined = await maybeAutoTopUp(billing, user.id);
    expect(declined).toMatchObject({ status: 'failed', code: 'generic_decline' });
    // Stripe's own failure event for the same charge does not count it again
    await deliver(fake.event('payment_intent.payment_failed', fake.paymentIntent((declined as { intentId: string }).intentId)));
    expect(await billingState(db, user.id)).toMatchObject({ credits: 1_500, auto_topup: true, auto_topup_failures: 1 });
  });

  it('should charge once when Stripe made the auto top-up charge but its answer was lost: the retry reuses the idempotency key', async () => {
    // no transport retries in the SDK: the second request is the auto top-up's own retry
    const bare = createStripeProvider({
      secretKey: 'sk_test_fake',
      publishableKey: 'pk_test_fake',
      webhookSecret: WEBHOOK_SECRET,
      apiBase: fake.url,
      timeoutMs: 5_000,
      maxNetworkRetries: 0,
    });
    const retrying: Billing = { ...billing, provider: bare, autoTopUpRetryDelaysMs: [0, 0] };
    const user = await stripeUser();
    const { invoice } = await paidSubscription(user.customerId, 'basic');
    await deliver(fake.event('invoice.paid', invoice));
    await billingRepository(db).saveAutoTopUpSettings(user.id, { enabled: true, min: 2_500, amountDollars: 20 });

    fake.requests.length = 0;
    fake.dropNextAnswer({ pathPrefix: '/v1/payment_intents' });
    const charged = await maybeAutoTopUp(retrying, user.id);
    expect(charged).toMatchObject({ status: 'succeeded' });
    const creates = fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents');
    expect(creates.map((r) => [r.injected, r.replayed])).toEqual([
      [true, false],
      [false, true],
    ]);
    expect(new Set(creates.map((r) => r.idempotencyKey)).size).toBe(1);
    expect((await billingState(db, user.id)).credits).toBe(1_500);
    const intentId = (charged as { intentId: string }).intentId;
    await deliver(fake.event('payment_intent.succeeded', fake.paymentIntent(intentId)));
    expect((await billingState(db, user.id)).credits).toBe(1_500);
    expect((await paymentsOf(db, user.id)).filter((p) => p.kind === 'auto_topup')).toHaveLength(1);
  });
});
