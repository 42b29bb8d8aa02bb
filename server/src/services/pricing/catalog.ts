/**
 * @module The server-side price of every task type, in credits (architecture §6, the
 * provider's public table). Clients never send an amount; the hold is always read here.
 */
import type { UpscaleType } from '../../engines/engine.ts';

/** Credits per upscale type; `1x` is Midjourney's plain U button. */
const UPSCALE_PRICES: Readonly<Record<UpscaleType, number>> = {
  '1x': 2,
  subtle: 4,
  creative: 4,
  '2x': 1,
  '4x': 2,
};

/** Prices of the task types whose name is fixed (indexed types are priced below). */
const FIXED_PRICES: Readonly<Record<string, number>> = {
  imagine: 4,
  reroll: 4,
  blend: 4,
  seed: 2,
  'flux-imagine': 1,
  'ideogram-imagine': 1,
  faceswap: 2,
  'upscale-subtle': UPSCALE_PRICES.subtle,
  'upscale-creative': UPSCALE_PRICES.creative,
  'upscale-2x': UPSCALE_PRICES['2x'],
  'upscale-4x': UPSCALE_PRICES['4x'],
};

const VARIATION_PRICE = 4;

/**
 * Credits a task of `type` costs, or undefined for a type this server does not sell.
 *
 * @example
 * priceOf('imagine') // 4
 * priceOf('upscale#2') // 2
 */
export function priceOf(type: string): number | undefined {
  if (type in FIXED_PRICES) return FIXED_PRICES[type];
  if (/^variation-[1-4]$/.test(type)) return VARIATION_PRICE;
  if (/^upscale#[1-4]$/.test(type)) return UPSCALE_PRICES['1x'];
  return undefined;
}
