/**
 * @module Plans ↔ Stripe Prices. Prices are found by lookup key (`plan_<plan>_monthly`, set by
 * whoever creates the products) rather than hard-coded ids, so test and live accounts differ
 * only in data. The catalog stays the source of credits: a paid invoice is worth the credits
 * of the plan its price maps to, never an amount from metadata.
 *
 * New subscriptions use the active price of a plan's lookup key; a price already billing a
 * subscription keeps its plan after it is archived or its lookup key moved to a new price
 * (renewals and subscription updates still map): an id not among the active prices is read
 * itself (prices.retrieve), by its metadata.plan (set by stripe:setup) or else its lookup key.
 */
import type Stripe from 'stripe';
import { isPlanId, PLAN_IDS, type PlanId } from '../catalog.ts';

/** @example lookupKeyOf('scale-c1') // 'plan_scale_c1_monthly' */
export function lookupKeyOf(plan: PlanId): string {
  return `plan_${plan.replace(/-/g, '_')}_monthly`;
}

/** The plan a price object says it is for: metadata.plan, else its lookup key. */
export function planOfPrice(price: Pick<Stripe.Price, 'metadata' | 'lookup_key'>): PlanId | undefined {
  const tagged = price.metadata?.plan;
  if (tagged && isPlanId(tagged)) return tagged;
  return PLAN_IDS.find((plan) => lookupKeyOf(plan) === price.lookup_key);
}

export interface PriceBook {
  priceOf(plan: PlanId): Promise<string>;
  planOf(priceId: string): Promise<PlanId | undefined>;
}

/**
 * One prices.list per process (and again when a plan or price is unknown, e.g. after the
 * products were created while the server ran).
 */
export function createPriceBook(stripe: Stripe): PriceBook {
  let loading: Promise<Map<PlanId, string>> | undefined;
  /** Archived or re-keyed prices already looked up. */
  const retired = new Map<string, PlanId>();

  async function fetchPrices(): Promise<Map<PlanId, string>> {
    const byKey = new Map(PLAN_IDS.map((plan) => [lookupKeyOf(plan), plan] as const));
    const prices = await stripe.prices.list({ lookup_keys: [...byKey.keys()], active: true, limit: 100 });
    const map = new Map<PlanId, string>();
    for (const price of prices.data) {
      const plan = price.lookup_key ? byKey.get(price.lookup_key) : undefined;
      if (plan) map.set(plan, price.id);
    }
    return map;
  }

  function load(refresh: boolean): Promise<Map<PlanId, string>> {
    if (!loading || refresh) {
      const started = fetchPrices();
      loading = started;
      // a failed load must not stick: the next call asks Stripe again
      started.catch(() => {
        if (loading === started) loading = undefined;
      });
    }
    return loading;
  }

  async function find<T>(pick: (map: Map<PlanId, string>) => T | undefined): Promise<T | undefined> {
    return pick(await load(false)) ?? pick(await load(true));
  }

  return {
    async priceOf(plan) {
      const price = await find((map) => map.get(plan));
      if (!price) throw new Error(`Stripe has no active price with lookup_key ${lookupKeyOf(plan)}`);
      return price;
    },
    async planOf(priceId) {
      const active = await find((map) => [...map].find(([, id]) => id === priceId)?.[0]);
      if (active) return active;
      const known = retired.get(priceId);
      if (known) return known;
      let price: Stripe.Price;
      try {
        price = await stripe.prices.retrieve(priceId);
      } catch (e) {
        if ((e as { code?: string }).code === 'resource_missing') return undefined;
        throw e;
      }
      const plan = planOfPrice(price);
      // a price's plan never changes (its amount cannot): remember it
      if (plan) retired.set(priceId, plan);
      return plan;
    },
  };
}
