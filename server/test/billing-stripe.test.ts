// Contract of the Stripe adapter: the real `stripe` SDK against the local fake Stripe server.
// Paths, form parameters, idempotency keys (also across the SDK's retry of a 500), the pinned
// API version, error mapping and ownership checks.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { ProviderError } from '../src/billing/payment-provider.ts';
import { STRIPE_API_VERSION, stripeConfigFromEnv, type StripeConfig } from '../src/billing/stripe/client.ts';
import { createStripeProvider, type StripeProvider } from '../src/billing/stripe/stripe-provider.ts';
import { startFakeStripe, type FakeStripe, type RecordedRequest } from './support/fake-stripe.ts';

let fake: FakeStripe;
let provider: StripeProvider;

function config(overrides: Partial<StripeConfig> = {}): StripeConfig {
  return {
    secretKey: 'sk_test_fake',
    publishableKey: 'pk_test_fake',
    webhookSecret: 'whsec_test',
    apiBase: fake.url,
    maxNetworkRetries: 2,
    timeoutMs: 5_000,
    ...overrides,
  };
}

beforeAll(async () => {
  fake = await startFakeStripe();
  provider = createStripeProvider(config());
});
afterAll(async () => {
  await fake?.close();
});
beforeEach(() => {
  fake.requests.length = 0;
});

function calls(method: string, pathPattern: RegExp): RecordedRequest[] {
  return fake.requests.filter((r) => r.method === method && pathPattern.test(r.path));
}

function only(method: string, pathPattern: RegExp): RecordedRequest {
  const found = calls(method, pathPattern);
  expect(found, `${method} ${pathPattern}`).toHaveLength(1);
  return found[0];
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

async function newCustomer(): Promise<string> {
  const { customerId } = await provider.createCustomer({
    userId: crypto.randomUUID(),
    email: 'ada@example.test',
    idempotencyKey: `customer:${crypto.randomUUID()}`,
  });
  return customerId;
}

describe('stripe configuration', () => {
  it('should require the secret, publishable and webhook keys and accept an API base for tests', () => {
    expect(() => stripeConfigFromEnv({ STRIPE_SECRET_KEY: 'sk_test_x' })).toThrow(/STRIPE_PUBLISHABLE_KEY, STRIPE_WEBHOOK_SECRET/);
    expect(
      stripeConfigFromEnv({ STRIPE_SECRET_KEY: 'sk', STRIPE_PUBLISHABLE_KEY: 'pk', STRIPE_WEBHOOK_SECRET: 'wh', STRIPE_API_BASE: 'http://127.0.0.1:1' }),
    ).toEqual({
      secretKey: 'sk',
      publishableKey: 'pk',
      webhookSecret: 'wh',
      apiBase: 'http://127.0.0.1:1',
    });
    expect(provider).toMatchObject({ kind: 'stripe', publishableKey: 'pk_test_fake' });
  });
});

describe('stripe adapter contract', () => {
  it('should create a customer once per idempotency key, on the pinned API version', async () => {
    const input = { userId: 'user-1', email: 'ada@example.test', idempotencyKey: `customer:${crypto.randomUUID()}` };
    const first = await provider.createCustomer(input);
    const again = await provider.createCustomer(input);
    expect(again.customerId).toBe(first.customerId);
    const [created, replayed] = calls('POST', /^\/v1\/customers$/);
    expect(created.params.get('email')).toBe('ada@example.test');
    expect(created.params.get('metadata[user_id]')).toBe('user-1');
    expect([created.idempotencyKey, replayed.idempotencyKey]).toEqual([input.idempotencyKey, input.idempotencyKey]);
    expect(replayed.replayed).toBe(true);
    expect(fake.requests.every((r) => r.stripeVersion === STRIPE_API_VERSION)).toBe(true);
  });

  it('should subscribe with default_incomplete and hand out the invoice confirmation secret, resolving prices by lookup key once', async () => {
    const customerId = await newCustomer();
    const checkout = await provider.createSubscription({ customerId, plan: 'growth', idempotencyKey: 'checkout:c1' });

    const lookup = only('GET', /^\/v1\/prices$/);
    expect(lookup.params.getAll('lookup_keys[0]')).toEqual(['plan_basic_monthly']);
    expect(lookup.params.get('lookup_keys[6]')).toBe('plan_scale_c1_monthly');
    expect(lookup.params.get('active')).toBe('true');

    const create = only('POST', /^\/v1\/subscriptions$/);
    expect(Object.fromEntries(create.params)).toMatchObject({
      customer: customerId,
      'items[0][price]': fake.priceOf('growth'),
      payment_behavior: 'default_incomplete',
      'payment_settings[save_default_payment_method]': 'on_subscription',
      'payment_settings[payment_method_types][0]': 'card',
      'expand[0]': 'latest_invoice.confirmation_secret',
      'metadata[plan]': 'growth',
    });
    expect(create.idempotencyKey).toBe('checkout:c1');

    const subscription = fake.subscription(checkout.subscriptionId);
    expect(subscription.latest_invoice).toBe(checkout.providerRef);
    expect(checkout.providerRef).toMatch(/^in_/);
    const intent = fake.paymentIntent(checkout.clientSecret.split('_secret_')[0]);
    expect(intent).toMatchObject({ client_secret: checkout.clientSecret, amount: 39_900 });

    await provider.createSubscription({ customerId, plan: 'basic', idempotencyKey: 'checkout:c2' });
    expect(calls('GET', /^\/v1\/prices$/)).toHaveLength(1);
  });

  it('should change a plan with pending_if_incomplete, billed at once from now, only on the caller’s subscription', async () => {
    const customerId = await newCustomer();
    const { subscriptionId, providerRef } = await provider.createSubscription({ customerId, plan: 'basic', idempotencyKey: `checkout:${crypto.randomUUID()}` });
    fake.payInvoice(providerRef, 'pm_card_visa');
    fake.requests.length = 0;

    const change = await provider.changeSubscriptionPlan({ customerId, subscriptionId, plan: 'starter', idempotencyKey: 'checkout:change' });
    const update = only('POST', /^\/v1\/subscriptions\/sub_/);
    expect(Object.fromEntries(update.params)).toMatchObject({
      'items[0][id]': fake.subscription(subscriptionId).items.data[0].id,
      'items[0][price]': fake.priceOf('starter'),
      'billing_cycle_anchor[type]': 'now',
      proration_behavior: 'none',
      payment_behavior: 'pending_if_incomplete',
      'expand[0]': 'latest_invoice.confirmation_secret',
    });
    expect(update.idempotencyKey).toBe('checkout:change');
    expect(change.providerRef).not.toBe(providerRef);
    expect(fake.invoice(change.providerRef)).toMatchObject({ billing_reason: 'subscription_update', amount_due: 19_900 });

    const stranger = await newCustomer();
    fake.requests.length = 0;
    const e = await rejection(provider.changeSubscriptionPlan({ customerId: stranger, subscriptionId, plan: 'growth', idempotencyKey: 'checkout:x' }));
    expect(e).toBeInstanceOf(ProviderError);
    expect((e as ProviderError).code).toBe('resource_missing');
    expect(calls('POST', /^\/v1\/subscriptions/)).toHaveLength(0);
  });

  it('should cancel at the period end', async () => {
    const customerId = await newCustomer();
    const { subscriptionId, providerRef } = await provider.createSubscription({ customerId, plan: 'basic', idempotencyKey: `checkout:${crypto.randomUUID()}` });
    fake.payInvoice(providerRef, 'pm_card_visa');
    const { currentPeriodEnd } = await provider.cancelSubscription({ customerId, subscriptionId });
    expect(only('POST', /^\/v1\/subscriptions\/sub_/).params.get('cancel_at_period_end')).toBe('true');
    expect(currentPeriodEnd?.getTime()).toBe(fake.subscription(subscriptionId).items.data[0].current_period_end * 1000);
    expect(fake.subscription(subscriptionId).cancel_at_period_end).toBe(true);
  });

  it('should create top-up and trial payment intents tagged with their kind that save the card', async () => {
    const customerId = await newCustomer();
    const topup = await provider.createPaymentIntent({ customerId, kind: 'topup', amountCents: 5_000, credits: 1_250, idempotencyKey: 'topup:u:r1' });
    const trial = await provider.createPaymentIntent({ customerId, kind: 'trial', amountCents: 1_000, credits: 250, idempotencyKey: 'trial:u' });
    const [topupCall, trialCall] = calls('POST', /^\/v1\/payment_intents$/);
    expect(Object.fromEntries(topupCall.params)).toMatchObject({
      amount: '5000',
      currency: 'usd',
      customer: customerId,
      setup_future_usage: 'off_session',
      'allowed_payment_method_types[0]': 'card',
      'metadata[kind]': 'topup',
      'metadata[credits]': '1250',
    });
    expect(topupCall.params.has('confirm')).toBe(false);
    expect(topupCall.idempotencyKey).toBe('topup:u:r1');
    expect(trialCall.params.get('metadata[kind]')).toBe('trial');
    expect(trialCall.idempotencyKey).toBe('trial:u');
    expect(topup.clientSecret).toBe(fake.paymentIntent(topup.providerRef).client_secret);
    expect(trial.providerRef).not.toBe(topup.providerRef);
  });

  it('should retry a 500 with the same idempotency key and create one payment intent', async () => {
    const customerId = await newCustomer();
    fake.requests.length = 0;
    fake.failNext({ status: 500, pathPrefix: '/v1/payment_intents' });
    const created = await provider.createPaymentIntent({ customerId, kind: 'topup', amountCents: 2_000, credits: 500, idempotencyKey: 'topup:u:retry' });
    const attempts = calls('POST', /^\/v1\/payment_intents$/);
    expect(attempts.map((a) => [a.status, a.injected, a.idempotencyKey])).toEqual([
      [500, true, 'topup:u:retry'],
      [200, false, 'topup:u:retry'],
    ]);
    // the business retry of the same click answers the same intent
    const again = await provider.createPaymentIntent({ customerId, kind: 'topup', amountCents: 2_000, credits: 500, idempotencyKey: 'topup:u:retry' });
    expect(again.providerRef).toBe(created.providerRef);
    expect(calls('POST', /^\/v1\/payment_intents$/).at(-1)!.replayed).toBe(true);
  });

  it('should surface a provider outage as a transport error (not a card answer) once retries are spent', async () => {
    const noRetries = createStripeProvider(config({ maxNetworkRetries: 0 }));
    const customerId = await newCustomer();
    const pm = fake.attachCard(customerId, 'pm_card_visa');
    fake.failNext({ status: 503, pathPrefix: '/v1/payment_intents' });
    const e = await rejection(
      noRetries.chargeOffSession({
        customerId,
        paymentMethodId: pm,
        amountCents: 1_000,
        credits: 250,
        metadata: { attempt_id: 'a0' },
        idempotencyKey: 'auto-topup:a0',
      }),
    );
    expect(e).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(e).not.toBeInstanceOf(ProviderError);
  });

  it('should charge a saved card off-session and report success', async () => {
    const customerId = await newCustomer();
    const pm = fake.attachCard(customerId, 'pm_card_visa');
    fake.requests.length = 0;
    const result = await provider.chargeOffSession({
      customerId,
      paymentMethodId: pm,
      amountCents: 1_000,
      credits: 250,
      metadata: { attempt_id: 'a1', user_id: 'u1' },
      idempotencyKey: 'auto-topup:a1',
    });
    expect(result).toEqual({ status: 'succeeded', intentId: expect.stringMatching(/^pi_/) });
    const create = only('POST', /^\/v1\/payment_intents$/);
    expect(Object.fromEntries(create.params)).toMatchObject({
      amount: '1000',
      customer: customerId,
      payment_method: pm,
      off_session: 'true',
      confirm: 'true',
      'metadata[kind]': 'auto_topup',
      'metadata[attempt_id]': 'a1',
      'metadata[user_id]': 'u1',
      'metadata[credits]': '250',
    });
    expect(create.params.has('setup_future_usage')).toBe(false);
    expect(create.idempotencyKey).toBe('auto-topup:a1');
    expect(only('GET', /^\/v1\/payment_methods\//).path).toBe(`/v1/payment_methods/${pm}`);
  });

  it.each([
    ['pm_card_chargeDeclined', 'card_declined', 'generic_decline'],
    ['pm_card_chargeDeclinedInsufficientFunds', 'card_declined', 'insufficient_funds'],
    ['pm_card_authenticationRequired', 'authentication_required', 'authentication_required'],
  ] as const)('should answer a failed off-session charge with %s without throwing', async (token, code, declineCode) => {
    const customerId = await newCustomer();
    const pm = fake.attachCard(customerId, token);
    const result = await provider.chargeOffSession({
      customerId,
      paymentMethodId: pm,
      amountCents: 1_000,
      credits: 250,
      metadata: { attempt_id: 'a2' },
      idempotencyKey: `auto-topup:${token}`,
    });
    expect(result).toMatchObject({ status: 'failed', code, declineCode, message: expect.any(String) });
    expect(result.intentId).toMatch(/^pi_/);
    expect(fake.paymentIntent(result.intentId)).toMatchObject({ status: 'requires_payment_method', metadata: { kind: 'auto_topup' } });
    expect(calls('POST', /^\/v1\/payment_intents$/).at(-1)!.status).toBe(402);
  });

  it('should refuse to charge or use another customer’s card before anything reaches Stripe', async () => {
    const owner = await newCustomer();
    const stranger = await newCustomer();
    const pm = fake.attachCard(owner, 'pm_card_visa');
    fake.requests.length = 0;
    for (const attempt of [
      provider.chargeOffSession({
        customerId: stranger,
        paymentMethodId: pm,
        amountCents: 1_000,
        credits: 250,
        metadata: {},
        idempotencyKey: 'auto-topup:steal',
      }),
      provider.setDefaultPaymentMethod(stranger, pm),
      provider.detachPaymentMethod(stranger, pm),
      provider.chargeOffSession({
        customerId: stranger,
        paymentMethodId: 'pm_does_not_exist',
        amountCents: 1_000,
        credits: 250,
        metadata: {},
        idempotencyKey: 'auto-topup:ghost',
      }),
    ]) {
      const e = await rejection(attempt);
      expect(e).toBeInstanceOf(ProviderError);
      expect((e as ProviderError).code).toBe('resource_missing');
    }
    expect(fake.requests.filter((r) => r.method === 'POST')).toEqual([]);
    expect(fake.customer(stranger).invoice_settings.default_payment_method).toBeNull();
  });

  it('should create setup intents for off-session use and check whose they are', async () => {
    const customerId = await newCustomer();
    const { setupIntentId, clientSecret } = await provider.createSetupIntent({ customerId, idempotencyKey: 'setup:u:r1' });
    const create = only('POST', /^\/v1\/setup_intents$/);
    expect(Object.fromEntries(create.params)).toMatchObject({ customer: customerId, usage: 'off_session', 'allowed_payment_method_types[0]': 'card' });
    expect(create.idempotencyKey).toBe('setup:u:r1');
    expect(clientSecret).toBe(fake.setupIntent(setupIntentId).client_secret);

    expect(await provider.getSetupIntent(customerId, setupIntentId)).toEqual({ id: setupIntentId, status: 'requires_payment_method', paymentMethodId: null });
    const confirmed = fake.confirmSetupIntent(setupIntentId, 'pm_card_visa');
    expect(await provider.getSetupIntent(customerId, setupIntentId)).toEqual({
      id: setupIntentId,
      status: 'succeeded',
      paymentMethodId: confirmed.payment_method,
    });

    const stranger = await newCustomer();
    const e = await rejection(provider.getSetupIntent(stranger, setupIntentId));
    expect((e as ProviderError).code).toBe('resource_missing');
    const ghost = await rejection(provider.getSetupIntent(customerId, 'seti_missing'));
    expect(ghost).toBeInstanceOf(ProviderError);
    expect((ghost as ProviderError).code).toBe('resource_missing');
  });

  it('should list cards with the default, set a default on the customer and its live subscription, and promote a card when the default is removed', async () => {
    const customerId = await newCustomer();
    const { subscriptionId, providerRef } = await provider.createSubscription({ customerId, plan: 'basic', idempotencyKey: `checkout:${crypto.randomUUID()}` });
    fake.payInvoice(providerRef, 'pm_card_visa');
    const visa = fake.subscription(subscriptionId).default_payment_method as string;
    const master = fake.attachCard(customerId, 'pm_card_mastercard', 'Ada Lovelace');

    await provider.ensureDefaultPaymentMethod(customerId, visa);
    await provider.ensureDefaultPaymentMethod(customerId, master);
    expect(fake.customer(customerId).invoice_settings.default_payment_method).toBe(visa);

    const year = new Date().getUTCFullYear() + 3;
    expect(await provider.listPaymentMethods(customerId)).toEqual([
      { id: visa, brand: 'visa', last4: '4242', exp_month: 12, exp_year: year, name: null, default: true, fingerprint: 'fp_pm_card_visa' },
      {
        id: master,
        brand: 'mastercard',
        last4: '4444',
        exp_month: 12,
        exp_year: year,
        name: 'Ada Lovelace',
        default: false,
        fingerprint: 'fp_pm_card_mastercard',
      },
    ]);

    fake.requests.length = 0;
    await provider.setDefaultPaymentMethod(customerId, master);
    expect(only('POST', /^\/v1\/customers\/cus_/).params.get('invoice_settings[default_payment_method]')).toBe(master);
    expect(only('POST', /^\/v1\/subscriptions\/sub_/).params.get('default_payment_method')).toBe(master);
    expect(fake.subscription(subscriptionId).default_payment_method).toBe(master);

    fake.requests.length = 0;
    await provider.detachPaymentMethod(customerId, master);
    expect(only('POST', /\/detach$/).path).toBe(`/v1/payment_methods/${master}/detach`);
    expect(fake.customer(customerId).invoice_settings.default_payment_method).toBe(visa);
    expect(fake.subscription(subscriptionId).default_payment_method).toBe(visa);
    expect((await provider.listPaymentMethods(customerId)).map((c) => [c.id, c.default])).toEqual([[visa, true]]);
  });

  it('should page through every saved card, oldest first', async () => {
    const customerId = await newCustomer();
    const ids = Array.from({ length: 3 }, () => fake.attachCard(customerId, 'pm_card_visa'));
    fake.setMaxPageSize(2);
    fake.requests.length = 0;
    try {
      expect((await provider.listPaymentMethods(customerId)).map((c) => c.id)).toEqual(ids);
    } finally {
      fake.setMaxPageSize(100);
    }
    const pages = calls('GET', /\/payment_methods$/);
    expect(pages.map((r) => [r.params.get('limit'), r.params.get('starting_after')])).toEqual([
      ['100', null],
      ['100', ids[1]],
    ]);
  });

  it('should answer the invoice PDF URL for the caller’s invoice only', async () => {
    const customerId = await newCustomer();
    const { providerRef } = await provider.createSubscription({ customerId, plan: 'basic', idempotencyKey: `checkout:${crypto.randomUUID()}` });
    fake.payInvoice(providerRef, 'pm_card_visa');
    const url = await provider.invoicePdfUrl(customerId, providerRef);
    expect(url).toBe(fake.invoice(providerRef).invoice_pdf);
    expect(new TextDecoder().decode(await (await fetch(url!)).arrayBuffer())).toMatch(/^%PDF-/);

    const stranger = await newCustomer();
    expect(((await rejection(provider.invoicePdfUrl(stranger, providerRef))) as ProviderError).code).toBe('resource_missing');
    fake.requests.length = 0;
    expect(await provider.invoicePdfUrl(customerId, 'pi_local_receipt')).toBeNull();
    expect(fake.requests).toEqual([]);
  });

  it('should map Stripe refusals to ProviderError codes', async () => {
    const missingCustomer = await rejection(
      provider.createPaymentIntent({ customerId: 'cus_gone', kind: 'topup', amountCents: 1_000, credits: 250, idempotencyKey: 'topup:gone' }),
    );
    expect(missingCustomer).toBeInstanceOf(ProviderError);
    expect((missingCustomer as ProviderError).code).toBe('resource_missing');

    const customerId = await newCustomer();
    const tooSmall = await rejection(provider.createPaymentIntent({ customerId, kind: 'topup', amountCents: 10, credits: 0, idempotencyKey: 'topup:small' }));
    expect(tooSmall).toMatchObject({ name: 'ProviderError', code: 'invalid_request', message: 'Amount must be at least $0.50 usd' });

    // the same key with other parameters is Stripe's idempotency_error: a bug, not a user error
    await provider.createPaymentIntent({ customerId, kind: 'topup', amountCents: 1_000, credits: 250, idempotencyKey: 'topup:reused' });
    const reused = await rejection(
      provider.createPaymentIntent({ customerId, kind: 'topup', amountCents: 2_000, credits: 500, idempotencyKey: 'topup:reused' }),
    );
    expect(reused).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
  });
});
