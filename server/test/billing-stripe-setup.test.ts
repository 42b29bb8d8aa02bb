// `stripe:setup`: the real `stripe` SDK against the local fake Stripe, preparing an account
// for this server (a Price per plan under its lookup key, the webhook endpoint), and running
// again without changing what already matches.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { PLAN_IDS, PLANS } from '../src/billing/catalog.ts';
import { createStripeClient, STRIPE_API_VERSION } from '../src/billing/stripe/client.ts';
import { createPriceBook, lookupKeyOf } from '../src/billing/stripe/prices.ts';
import { setUpStripe } from '../src/billing/stripe/setup.ts';
import { STRIPE_WEBHOOK_EVENTS } from '../src/billing/stripe/webhook.ts';
import { type FakeStripe, type FakeStripeOptions, startFakeStripe } from './support/fake-stripe.ts';

let fake: FakeStripe | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function account(options: FakeStripeOptions): Promise<Stripe> {
  fake = await startFakeStripe(options);
  return createStripeClient({ secretKey: 'sk_test_fake', publishableKey: '', webhookSecret: '', apiBase: fake.url, maxNetworkRetries: 2, timeoutMs: 5_000 });
}

async function activePrices(stripe: Stripe) {
  return (await stripe.prices.list({ lookup_keys: PLAN_IDS.map(lookupKeyOf), active: true, limit: 100 })).data;
}

describe('stripe:setup', () => {
  it('creates a monthly USD price per plan under its lookup key on an empty account, which the price book then finds', async () => {
    const stripe = await account({ seedPrices: false });
    const report = await setUpStripe(stripe);
    expect(report.livemode).toBe(false);
    expect(report.prices.map((p) => [p.plan, p.action])).toEqual(PLAN_IDS.map((plan) => [plan, 'created']));

    const prices = await activePrices(stripe);
    expect(prices).toHaveLength(PLAN_IDS.length);
    for (const plan of PLAN_IDS) {
      const price = prices.find((p) => p.lookup_key === lookupKeyOf(plan))!;
      expect(price).toMatchObject({
        currency: 'usd',
        unit_amount: PLANS[plan].amountCents,
        type: 'recurring',
        recurring: { interval: 'month', interval_count: 1 },
      });
      expect(await createPriceBook(stripe).priceOf(plan)).toBe(price.id);
    }
    const creates = fake!.requests.filter((r) => r.method === 'POST' && r.path === '/v1/prices');
    expect(creates.every((r) => r.idempotencyKey?.startsWith('aim-setup:price:') && r.params.get('product_data[name]')?.startsWith('AI Media '))).toBe(true);
  });

  it('keeps everything on a second run: no new price, nothing replaced', async () => {
    const stripe = await account({ seedPrices: false });
    const first = await setUpStripe(stripe);
    fake!.requests.length = 0;
    const second = await setUpStripe(stripe);
    expect(second.prices.every((p) => p.action === 'kept')).toBe(true);
    expect(second.prices.map((p) => p.priceId)).toEqual(first.prices.map((p) => p.priceId));
    expect(fake!.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('replaces a price whose amount drifted from the catalog: the new one takes over the lookup key on the same product', async () => {
    const stripe = await account({ priceAmounts: { growth: 12_345 } });
    const oldId = fake!.priceOf('growth');
    const oldProduct = (await stripe.prices.retrieve(oldId)).product;
    const report = await setUpStripe(stripe);
    expect(report.prices.filter((p) => p.action !== 'kept').map((p) => [p.plan, p.action])).toEqual([['growth', 'replaced']]);

    const growth = (await activePrices(stripe)).find((p) => p.lookup_key === lookupKeyOf('growth'))!;
    expect(growth.id).not.toBe(oldId);
    expect(growth).toMatchObject({ unit_amount: PLANS.growth.amountCents, product: oldProduct });
    expect((await stripe.prices.retrieve(oldId)).lookup_key).toBeNull();
    const create = fake!.requests.find((r) => r.method === 'POST' && r.path === '/v1/prices')!;
    expect(create.params.get('transfer_lookup_key')).toBe('true');
  });

  it('creates the webhook endpoint with the handled events and the pinned API version, and shows its secret once', async () => {
    const stripe = await account({});
    const url = 'https://api.example.com/webhooks/stripe';
    const { webhook } = await setUpStripe(stripe, { webhookUrl: url });
    expect(webhook).toMatchObject({ url, action: 'created', secret: expect.stringMatching(/^whsec_/) });
    const [endpoint] = (await stripe.webhookEndpoints.list()).data;
    expect(endpoint).toMatchObject({ id: webhook!.id, url, api_version: STRIPE_API_VERSION, status: 'enabled' });
    expect([...endpoint.enabled_events].sort()).toEqual([...STRIPE_WEBHOOK_EVENTS].sort());

    const again = await setUpStripe(stripe, { webhookUrl: url });
    expect(again.webhook).toEqual({ id: webhook!.id, url, action: 'kept' });
  });

  it('adds missing events to an existing endpoint for the URL and enables it, keeping its other events', async () => {
    const stripe = await account({});
    const url = 'https://api.example.com/webhooks/stripe';
    const existing = await stripe.webhookEndpoints.create({ url, enabled_events: ['invoice.paid', 'charge.refunded'] });
    await stripe.webhookEndpoints.update(existing.id, { disabled: true });
    const { webhook } = await setUpStripe(stripe, { webhookUrl: url });
    expect(webhook).toEqual({ id: existing.id, url, action: 'updated' });
    const endpoint = await stripe.webhookEndpoints.list().then((l) => l.data[0]);
    expect(endpoint.status).toBe('enabled');
    expect([...endpoint.enabled_events].sort()).toEqual([...new Set(['charge.refunded', ...STRIPE_WEBHOOK_EVENTS])].sort());
  });
});

describe('stripe:setup command', () => {
  const run = (env: Record<string, string>, args: string[] = []) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, '../scripts/stripe-setup.ts'), ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      cwd: path.join(import.meta.dirname, '..'),
    }).then(
      (r) => ({ code: 0, out: r.stdout, err: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout, err: e.stderr }),
    );

  it('refuses to run without a key, and on a live key without --live', async () => {
    expect(await run({})).toMatchObject({ code: 2, err: expect.stringContaining('needs STRIPE_SECRET_KEY') });
    expect(await run({ STRIPE_SECRET_KEY: 'sk_live_x' })).toMatchObject({ code: 2, err: expect.stringContaining('add --live') });
  });

  it('prints each plan’s price and the webhook secret to set', async () => {
    fake = await startFakeStripe({ seedPrices: false });
    const r = await run({ STRIPE_SECRET_KEY: 'sk_test_fake', STRIPE_API_BASE: fake.url }, ['--webhook-url', 'https://api.example.com/webhooks/stripe']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Stripe test account');
    expect(r.out).toMatch(/created\s+plan_scale_c1_monthly\s+price_\S+\s+\$3100\.00\/month/);
    expect(r.out).toMatch(/Set STRIPE_WEBHOOK_SECRET=whsec_/);
  });
});
