/**
 * @module Plans ↔ Stripe Prices. Prices are found by lookup key (`plan_<plan>_monthly`, set by
 * whoever creates the products) rather than hard-coded ids, so test and live accounts differ
 * only in data. The catalog stays the source of credits: a paid invoice is worth the credits
 * of the plan its price maps to, never an amount from metadata.
 */
import type Stripe from 'stripe';
import { PLAN_IDS, type PlanId } from '../catalog.ts';

/** @example lookupKeyOf('scale-c1') // 'plan_scale_c1_monthly' */
export function lookupKeyOf(plan: PlanId): string {
  return `plan_${plan.replace(/-/g, '_')}_monthly`;
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
    planOf(priceId) {
      return find((map) => [...map].find(([, id]) => id === priceId)?.[0]);
    },
  };
}
