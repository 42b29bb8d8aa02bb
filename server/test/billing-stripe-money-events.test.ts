// Money events with Stripe (issue 20): the webhook mapping of charge.refunded,
// charge.dispute.created/closed, invoice.payment_failed and customer.subscription.updated
// (charges mapped to their grant through the payment intent or GET /v1/invoice_payments),
// renewals at archived or re-keyed prices, the one-live-subscription rule and the resume of a
// cancelled subscription on a plan switch, all with the real `stripe` SDK against the fake.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import type { Db } from '@aim/supabase/db';
import { createTestDb, testDatabaseKinds } from '@aim/supabase/testing';
import type { BillingEvent } from '../src/billing/payment-provider.ts';
import { createStripeClient } from '../src/billing/stripe/client.ts';
import { createStripeProvider, type StripeProvider } from '../src/billing/stripe/stripe-provider.ts';
import { billingRepository } from '../src/repositories/billing/billing-repository.ts';
import type { Account } from '../src/repositories/user-repository.ts';
import type { Billing } from '../src/services/billing/billing.ts';
import { cancelSubscription } from '../src/services/billing/cancel.ts';
import { handleBillingEvent } from '../src/services/billing/handle-event.ts';
import { subscribe } from '../src/services/billing/subscribe.ts';
import { captureLogger, createUser } from './helpers.ts';
import { billingState, paymentsOf } from './support/billing.ts';
import { startFakeStripe, type FakeEvent, type FakeStripe } from './support/fake-stripe.ts';

const WEBHOOK_SECRET = 'whsec_test_money_events';
const CONFIG = { secretKey: 'sk_test_fake', publishableKey: 'pk_test_fake', webhookSecret: WEBHOOK_SECRET, timeoutMs: 5_000 };

let fake: FakeStripe;
let provider: StripeProvider;
let stripe: Stripe;

beforeAll(async () => {
  fake = await startFakeStripe();
  provider = createStripeProvider({ ...CONFIG, apiBase: fake.url });
  stripe = createStripeClient({ ...CONFIG, apiBase: fake.url });
});
afterAll(async () => {
  await fake?.close();
});

async function parsed(event: FakeEvent): Promise<BillingEvent> {
  const payload = JSON.stringify(event);
  const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
  const outcome = await provider.parseWebhook(payload, signature);
  if (!('event' in outcome)) throw new Error(`ignored: ${outcome.ignored}`);
  return outcome.event;
}

async function newCustomer(): Promise<string> {
  return (await provider.createCustomer({ userId: randomUUID(), email: 'ada@example.test', idempotencyKey: `customer:${randomUUID()}` })).customerId;
}

async function paidTopUp(customerId: string, amountCents = 5_000) {
  const { providerRef } = await provider.createPaymentIntent({
    customerId,
    kind: 'topup',
    amountCents,
    credits: 1_250,
    idempotencyKey: `topup:${randomUUID()}`,
  });
  return fake.confirmPaymentIntent(providerRef, 'pm_card_visa');
}

async function paidSubscription(customerId: string, plan: 'basic' | 'growth' = 'basic') {
  const checkout = await provider.createSubscription({ customerId, plan, idempotencyKey: `checkout:${randomUUID()}` });
  return { ...checkout, invoice: fake.payInvoice(checkout.providerRef, 'pm_card_visa') };
}

describe('stripe money event mapping', () => {
  it('should map a refund of a top-up to its pi: grant and of a plan invoice to its in: grant, with the refunded total', async () => {
    const customerId = await newCustomer();
    const intent = await paidTopUp(customerId);
    const charge = fake.refundCharge(fake.chargeOf(intent.id).id, 2_000);
    expect(await parsed(fake.event('charge.refunded', charge, { id: 'evt_refund', created: 1_800_000_000 }))).toEqual({
      type: 'charge.refunded',
      id: 'evt_refund',
      created: new Date(1_800_000_000_000),
      customerId,
      chargeId: charge.id,
      paymentRef: `pi:${intent.id}`,
      amountCents: 5_000,
      amountRefundedCents: 2_000,
    });

    const { invoice } = await paidSubscription(customerId);
    const invoicePayment = fake.requests.length;
    const invoiceIntent = (await stripe.invoicePayments.list({ invoice: invoice.id!, limit: 1 })).data[0].payment.payment_intent as string;
    const full = fake.refundCharge(fake.chargeOf(invoiceIntent).id);
    expect(await parsed(fake.event('charge.refunded', full))).toMatchObject({
      paymentRef: `in:${invoice.id}`,
      amountCents: 3_900,
      amountRefundedCents: 3_900,
    });
    // since basil the charge names no invoice: the mapping asked GET /v1/invoice_payments by payment intent
    expect(
      fake.requests
        .slice(invoicePayment)
        .some(
          (r) =>
            r.path === '/v1/invoice_payments' &&
            r.params.get('payment[payment_intent]') === invoiceIntent &&
            r.params.get('payment[type]') === 'payment_intent',
        ),
    ).toBe(true);
  });

  it('should map a dispute through its charge (customer, amount) and its closing status', async () => {
    const customerId = await newCustomer();
    const intent = await paidTopUp(customerId);
    const charge = fake.chargeOf(intent.id);
    const dispute = fake.openDispute(charge.id, 1_000);
    expect(await parsed(fake.event('charge.dispute.created', dispute))).toMatchObject({
      type: 'charge.dispute.created',
      customerId,
      disputeId: dispute.id,
      chargeId: charge.id,
      paymentRef: `pi:${intent.id}`,
      chargeAmountCents: 5_000,
      amountCents: 1_000,
      status: 'open',
    });
    expect(await parsed(fake.event('charge.dispute.closed', fake.closeDispute(dispute.id, 'lost')))).toMatchObject({ status: 'lost' });
    expect(await parsed(fake.event('charge.dispute.closed', { ...dispute, status: 'won' }))).toMatchObject({ status: 'won' });
    expect(await parsed(fake.event('charge.dispute.closed', { ...dispute, status: 'warning_closed' }))).toMatchObject({ status: 'won' });
  });

  it('should map a failed renewal and a subscription update whose price was archived since', async () => {
    const customerId = await newCustomer();
    const { subscriptionId } = await paidSubscription(customerId, 'growth');
    await stripe.prices.update(fake.priceOf('growth'), { active: false });
    const failed = fake.renew(subscriptionId, 'pm_card_chargeDeclined');
    expect(await parsed(fake.event('invoice.payment_failed', failed))).toMatchObject({
      type: 'invoice.payment_failed',
      customerId,
      invoiceId: failed.id,
      subscriptionId,
      billingReason: 'subscription_cycle',
    });
    const sub = fake.subscription(subscriptionId);
    expect(await parsed(fake.event('customer.subscription.updated', { ...sub, cancel_at_period_end: true }))).toEqual(
      expect.objectContaining({
        type: 'customer.subscription.updated',
        subscriptionId,
        plan: 'growth',
        status: 'past_due',
        cancelAtPeriodEnd: true,
        currentPeriodEnd: new Date(sub.items.data[0].current_period_end * 1000),
      }),
    );
    await stripe.prices.update(fake.priceOf('growth'), { active: true });
  });
});

describe.each(testDatabaseKinds())('stripe money events on %s', (kind) => {
  let db: Db;
  let billing: Billing;

  beforeAll(async () => {
    db = await createTestDb(kind);
    billing = { db, log: captureLogger(), provider, now: () => new Date(), autoTopUpBackoffMs: 0 } as unknown as Billing;
  });
  afterAll(async () => {
    await db?.close();
  });

  async function deliver(event: FakeEvent): Promise<void> {
    await handleBillingEvent(billing, await parsed(event));
  }

  async function stripeUser() {
    const user = await createUser(db);
    const { customerId } = await provider.createCustomer({ userId: user.id, email: user.email, idempotencyKey: `customer:${user.id}` });
    await billingRepository(db).setCustomerIdOnce(user.id, customerId);
    return { ...user, customerId, account: { id: user.id, email: user.email } as Account };
  }

  async function invoiceIntentOf(invoiceId: string): Promise<string> {
    return (await stripe.invoicePayments.list({ invoice: invoiceId, limit: 1 })).data[0].payment.payment_intent as string;
  }

  async function subscriptionRow(userId: string) {
    const { rows } = await db.query<{ subscription_id: string; status: string; plan: string }>(
      'select subscription_id, status, plan from public.billing_subscriptions where user_id = $1',
      [userId],
    );
    return rows[0];
  }

  it('should take back refunded plan credits cumulatively, a refund arriving before its invoice.paid netting out', async () => {
    const user = await stripeUser();
    const { invoice } = await paidSubscription(user.customerId, 'basic');
    const chargeId = fake.chargeOf(await invoiceIntentOf(invoice.id!)).id;
    const first = fake.event('charge.refunded', fake.refundCharge(chargeId, 1_950));
    const second = fake.event('charge.refunded', fake.refundCharge(chargeId, 975));
    // reordered: both refunds (newest first) before the grant, then the grant, then replays
    await deliver(second);
    await deliver(first);
    expect((await billingState(db, user.id)).credits).toBe(0);
    await deliver(fake.event('invoice.paid', invoice));
    expect((await billingState(db, user.id)).credits).toBe(250);
    for (const e of [first, second, fake.event('invoice.paid', invoice)]) await deliver(e);
    expect((await billingState(db, user.id)).credits).toBe(250);
    expect(await subscriptionRow(user.id)).toMatchObject({ status: 'active', plan: 'basic' });
  });

  it('should hold during a dispute of a top-up and give back once when won; lost keeps the credits taken', async () => {
    const user = await stripeUser();
    const intent = await paidTopUp(user.customerId, 10_000);
    await deliver(fake.event('payment_intent.succeeded', intent));
    expect((await billingState(db, user.id)).credits).toBe(2_500);
    const chargeId = fake.chargeOf(intent.id).id;
    const dispute = fake.openDispute(chargeId, 4_000);
    await deliver(fake.event('charge.dispute.created', dispute));
    expect((await billingState(db, user.id)).credits).toBe(1_500);
    const { rows } = await db.query<{ status: string }>('select status from public.billing_money_events where user_id = $1', [user.id]);
    expect(rows).toEqual([{ status: 'open' }]);
    const won = fake.event('charge.dispute.closed', fake.closeDispute(dispute.id, 'won'));
    await deliver(won);
    await deliver(won);
    await deliver(fake.event('charge.dispute.created', dispute));
    expect((await billingState(db, user.id)).credits).toBe(2_500);

    const lost = fake.openDispute(chargeId);
    await deliver(fake.event('charge.dispute.closed', fake.closeDispute(lost.id, 'lost')));
    await deliver(fake.event('charge.dispute.created', lost));
    expect((await billingState(db, user.id)).credits).toBe(0);
  });

  it('should grant a renewal whose price was archived, or whose lookup key moved to a new price', async () => {
    const user = await stripeUser();
    const { subscriptionId, invoice } = await paidSubscription(user.customerId, 'basic');
    await deliver(fake.event('invoice.paid', invoice));
    await stripe.prices.update(fake.priceOf('basic'), { active: false });
    await deliver(fake.event('invoice.paid', fake.renew(subscriptionId)));
    expect(await billingState(db, user.id)).toMatchObject({ plan: 'basic', credits: 2_000 });
    await stripe.prices.update(fake.priceOf('basic'), { active: true });

    // a price made by stripe:setup (metadata.plan), whose lookup key then moves to a newer price
    const newScale1Price = () =>
      stripe.prices.create({
        currency: 'usd',
        unit_amount: 249_900,
        recurring: { interval: 'month' },
        product_data: { name: 'Scale 1' },
        lookup_key: 'plan_scale1_monthly',
        transfer_lookup_key: true,
        metadata: { plan: 'scale1' },
      });
    const tagged = await newScale1Price();
    const other = await stripeUser();
    // a process that has not cached the prices yet subscribes at the tagged price
    const before = createStripeProvider({ ...CONFIG, apiBase: fake.url });
    const scale = await before.createSubscription({ customerId: other.customerId, plan: 'scale1', idempotencyKey: `checkout:${randomUUID()}` });
    fake.payInvoice(scale.providerRef, 'pm_card_visa');
    expect(fake.subscription(scale.subscriptionId).items.data[0].price.id).toBe(tagged.id);
    await newScale1Price();
    await stripe.prices.update(tagged.id, { active: false });
    expect((await stripe.prices.retrieve(tagged.id)).lookup_key).toBeNull();
    // a new process: nothing cached
    const after = createStripeProvider({ ...CONFIG, apiBase: fake.url });
    const renewal = fake.event('invoice.paid', fake.renew(scale.subscriptionId));
    const payload = JSON.stringify(renewal);
    const outcome = await after.parseWebhook(payload, Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }));
    expect(outcome).toMatchObject({ event: { type: 'invoice.paid', plan: 'scale1' } });
    await handleBillingEvent(billing, (outcome as { event: BillingEvent }).event);
    expect(await billingState(db, other.id)).toMatchObject({ plan: 'scale1', credits: 120_000 });
  });

  it('should make a failed renewal past due and a later payment of it active again', async () => {
    const user = await stripeUser();
    const { subscriptionId, invoice } = await paidSubscription(user.customerId, 'basic');
    await deliver(fake.event('invoice.paid', invoice));
    const failed = fake.renew(subscriptionId, 'pm_card_chargeDeclined');
    const failedEvent = fake.event('invoice.payment_failed', failed);
    await deliver(failedEvent);
    await deliver(fake.event('customer.subscription.updated', fake.subscription(subscriptionId)));
    expect(await subscriptionRow(user.id)).toMatchObject({ status: 'past_due' });
    expect((await billingState(db, user.id)).credits).toBe(1_000);

    const paid = fake.renew(subscriptionId, 'pm_card_visa');
    await deliver(fake.event('invoice.paid', paid, { created: failedEvent.created + 5 }));
    expect(await subscriptionRow(user.id)).toMatchObject({ status: 'active' });
    expect((await billingState(db, user.id)).credits).toBe(2_000);
    // the failure delivered again, late: stays active
    await deliver({ ...failedEvent, id: `evt_${randomUUID()}` });
    expect(await subscriptionRow(user.id)).toMatchObject({ status: 'active' });
  });

  it('should send cancel_at_period_end=false when switching plan after cancelling', async () => {
    const user = await stripeUser();
    const { clientSecret } = await subscribe(billing, user.account, 'basic');
    expect(clientSecret).toBeTruthy();
    const subs = await stripe.subscriptions.list({ customer: user.customerId, status: 'all' });
    const sub = subs.data[0];
    await deliver(fake.event('invoice.paid', fake.payInvoice(sub.latest_invoice as string, 'pm_card_visa')));
    await cancelSubscription(billing, user.account);
    expect(fake.subscription(sub.id).cancel_at_period_end).toBe(true);

    const before = fake.requests.length;
    await subscribe(billing, user.account, 'growth');
    const resume = fake.requests
      .slice(before)
      .find((r) => r.method === 'POST' && r.path === `/v1/subscriptions/${sub.id}` && r.params.has('cancel_at_period_end'));
    expect(resume?.params.get('cancel_at_period_end')).toBe('false');
    expect(fake.subscription(sub.id).cancel_at_period_end).toBe(false);
  });

  it('should cancel a superseded incomplete subscription and void its invoice at Stripe', async () => {
    const user = await stripeUser();
    await subscribe(billing, user.account, 'basic');
    const [first] = (await stripe.subscriptions.list({ customer: user.customerId, status: 'all' })).data;
    await subscribe(billing, user.account, 'growth');
    expect(fake.subscription(first.id).status).toBe('canceled');
    expect(fake.invoice(first.latest_invoice as string).status).toBe('void');
    const live = (await stripe.subscriptions.list({ customer: user.customerId, status: 'all' })).data.filter((s) => s.status !== 'canceled');
    expect(live.map((s) => s.id).filter((id) => id !== first.id)).toHaveLength(1);
    expect(live.map((s) => s.id)).not.toContain(first.id);
    expect(() => fake.payInvoice(first.latest_invoice as string, 'pm_card_visa')).toThrow(/void/);
  });

  it('should keep one live subscription when two subscribes get paid (two tabs), in either order', async () => {
    for (const order of ['first', 'second'] as const) {
      const user = await stripeUser();
      await subscribe(billing, user.account, 'basic');
      const [a] = (await stripe.subscriptions.list({ customer: user.customerId, status: 'all' })).data;
      const paidA = fake.payInvoice(a.latest_invoice as string, 'pm_card_visa');
      await subscribe(billing, user.account, 'growth');
      const b = (await stripe.subscriptions.list({ customer: user.customerId, status: 'all' })).data.find((s) => s.id !== a.id)!;
      const paidB = fake.payInvoice(b.latest_invoice as string, 'pm_card_visa');
      const [kept, extra] = order === 'first' ? [paidA, paidB] : [paidB, paidA];
      await deliver(fake.event('invoice.paid', kept));
      await deliver(fake.event('invoice.paid', extra));
      await deliver(fake.event('invoice.paid', extra));

      const extraSub = extra.parent.subscription_details.subscription as string;
      const keptSub = kept.parent.subscription_details.subscription as string;
      expect(fake.subscription(extraSub).status, order).toBe('canceled');
      expect(fake.subscription(keptSub).status, order).toBe('active');
      const extraCharge = fake.chargeOf(await invoiceIntentOf(extra.id!));
      expect(extraCharge.amount_refunded, order).toBe(extraCharge.amount);
      const refunds = fake.requests.filter((r) => r.path === '/v1/refunds' && r.idempotencyKey === `duplicate-subscription:${extra.id}`);
      expect(refunds.length, order).toBeGreaterThanOrEqual(1);
      // Stripe's own events of that refund and cancellation change nothing more
      await deliver(fake.event('charge.refunded', extraCharge));
      await deliver(fake.event('customer.subscription.deleted', fake.subscription(extraSub)));
      const state = await billingState(db, user.id);
      expect(state.plan, order).toBe(order === 'first' ? 'basic' : 'growth');
      expect(state.credits, order).toBe(order === 'first' ? 1_000 : 11_000);
      expect(
        (await paymentsOf(db, user.id)).map((p) => p.provider_ref),
        order,
      ).toEqual([`in:${kept.id}`]);
      expect(await subscriptionRow(user.id), order).toMatchObject({ subscription_id: keptSub, status: 'active' });
    }
  });
});
