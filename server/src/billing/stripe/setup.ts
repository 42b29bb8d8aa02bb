/**
 * @module Prepares a Stripe account for this server (`pnpm --filter @aim/server stripe:setup`):
 * one active monthly Price per plan of the catalog, found by its lookup key
 * (`plan_<plan>_monthly`, see prices.ts), and optionally the webhook endpoint with the events
 * the server acts on. Safe to run again: what already matches is kept; a plan whose price
 * changed in the catalog gets a new Price that takes over the lookup key (Stripe Prices are
 * immutable, and existing subscriptions keep the old one).
 */
import type Stripe from 'stripe';
import { PLAN_IDS, PLANS, type PlanId } from '../catalog.ts';
import { STRIPE_API_VERSION } from './client.ts';
import { lookupKeyOf } from './prices.ts';
import { STRIPE_WEBHOOK_EVENTS } from './webhook.ts';

interface PriceSetup {
  plan: PlanId;
  lookupKey: string;
  priceId: string;
  amountCents: number;
  /** kept: an active price already matched; created: none existed; replaced: one existed with other terms. */
  action: 'kept' | 'created' | 'replaced';
}

interface WebhookSetup {
  id: string;
  url: string;
  action: 'kept' | 'created' | 'updated';
  /** The signing secret (STRIPE_WEBHOOK_SECRET): Stripe shows it only when the endpoint is created. */
  secret?: string;
}

export interface StripeSetupReport {
  livemode: boolean;
  prices: PriceSetup[];
  webhook?: WebhookSetup;
}

const matches = (price: Stripe.Price, plan: PlanId) =>
  price.active &&
  price.currency === 'usd' &&
  price.unit_amount === PLANS[plan].amountCents &&
  price.type === 'recurring' &&
  price.recurring?.interval === 'month' &&
  price.recurring.interval_count === 1;

export async function setUpStripe(stripe: Stripe, options: { webhookUrl?: string } = {}): Promise<StripeSetupReport> {
  const byKey = new Map<string, Stripe.Price>();
  let livemode = false;
  // at most 10 lookup keys per list call
  for (let i = 0; i < PLAN_IDS.length; i += 10) {
    const keys = PLAN_IDS.slice(i, i + 10).map(lookupKeyOf);
    for await (const price of stripe.prices.list({ lookup_keys: keys, active: true, limit: 100 })) {
      if (price.lookup_key) byKey.set(price.lookup_key, price);
      livemode = price.livemode;
    }
  }

  const prices: PriceSetup[] = [];
  for (const plan of PLAN_IDS) {
    const lookupKey = lookupKeyOf(plan);
    const { amountCents, label } = PLANS[plan];
    const existing = byKey.get(lookupKey);
    if (existing && matches(existing, plan)) {
      prices.push({ plan, lookupKey, priceId: existing.id, amountCents, action: 'kept' });
      continue;
    }
    const created = await stripe.prices.create(
      {
        currency: 'usd',
        unit_amount: amountCents,
        recurring: { interval: 'month', interval_count: 1 },
        lookup_key: lookupKey,
        ...(existing
          ? { product: typeof existing.product === 'string' ? existing.product : existing.product.id, transfer_lookup_key: true }
          : { product_data: { name: `AI Media ${label}`, metadata: { plan } } }),
        metadata: { plan },
      },
      // the same plan at the same amount is one Price even if two runs overlap
      { idempotencyKey: `aim-setup:price:${plan}:${amountCents}:${existing?.id ?? 'new'}` },
    );
    livemode = created.livemode;
    prices.push({ plan, lookupKey, priceId: created.id, amountCents, action: existing ? 'replaced' : 'created' });
  }

  const report: StripeSetupReport = { livemode, prices };
  if (options.webhookUrl) report.webhook = await setUpWebhook(stripe, options.webhookUrl);
  return report;
}

async function setUpWebhook(stripe: Stripe, url: string): Promise<WebhookSetup> {
  const wanted: string[] = [...STRIPE_WEBHOOK_EVENTS];
  for await (const endpoint of stripe.webhookEndpoints.list({ limit: 100 })) {
    if (endpoint.url !== url) continue;
    const events = endpoint.enabled_events;
    const covered = events.includes('*') || wanted.every((e) => events.includes(e));
    if (covered && endpoint.status === 'enabled') return { id: endpoint.id, url, action: 'kept' };
    await stripe.webhookEndpoints.update(endpoint.id, {
      enabled_events: [...new Set([...events.filter((e) => e !== '*'), ...wanted])] as Stripe.WebhookEndpointUpdateParams.EnabledEvent[],
      disabled: false,
    });
    return { id: endpoint.id, url, action: 'updated' };
  }
  const created = await stripe.webhookEndpoints.create({
    url,
    enabled_events: wanted as Stripe.WebhookEndpointCreateParams.EnabledEvent[],
    // payloads in the shapes the adapter's types describe
    api_version: STRIPE_API_VERSION,
    description: 'AI Media API server: payments, invoices, cards and subscriptions',
  });
  return { id: created.id, url, action: 'created', ...(created.secret ? { secret: created.secret } : {}) };
}
