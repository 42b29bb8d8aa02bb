/**
 * @module The price list (issue 23, part 5): every action's credits (catalog.ts, the table the
 * holds read) and the billing catalog (plans, top-up blocks, trial, auto top-up limits). GET
 * /pricing answers it as is; GET /billing/config, the dashboard's catalog, is built from the
 * same two functions.
 */
import {
  AUTO_TOPUP_DEFAULTS,
  AUTO_TOPUP_THRESHOLDS,
  CREDITS_PER_BLOCK,
  MAX_TOPUP_DOLLARS,
  PLANS,
  TOPUP_BLOCK_DOLLARS,
  TOPUP_PRESETS_DOLLARS,
  TRIAL,
} from '../../billing/catalog.ts';
import { type ActionPrice, actionPrices } from './catalog.ts';

/** Plans, top-up blocks, the trial and the auto top-up limits, prices in dollars. */
export function billingCatalog() {
  return {
    plans: Object.values(PLANS).map((p) => ({ id: p.id, label: p.label, amount: p.amountCents / 100, credits: p.credits })),
    topup: {
      presets: [...TOPUP_PRESETS_DOLLARS],
      block_dollars: TOPUP_BLOCK_DOLLARS,
      credits_per_block: CREDITS_PER_BLOCK,
      max_dollars: MAX_TOPUP_DOLLARS,
    },
    trial: { amount: TRIAL.amountCents / 100, credits: TRIAL.credits, days: TRIAL.days },
    auto_topup: { thresholds: [...AUTO_TOPUP_THRESHOLDS], default_min: AUTO_TOPUP_DEFAULTS.min, default_amount: AUTO_TOPUP_DEFAULTS.amountDollars },
  };
}

export function priceList(): { actions: ActionPrice[] } & ReturnType<typeof billingCatalog> {
  return { actions: actionPrices(), ...billingCatalog() };
}
