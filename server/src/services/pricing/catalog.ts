/**
 * @module The server-side price of every task type, in credits (architecture §6, the
 * provider's public table). Clients never send an amount; the hold is always read here.
 * Most types have one price; AI photo training and generation are priced per photo, the
 * quantity coming from the server's own records (the photos an upload kept, the photos asked
 * for), never from a client's amount.
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
  describe: 2,
  shorten: 2,
  inpaint: 4,
  'pan-up': 4,
  'pan-down': 4,
  'pan-left': 4,
  'pan-right': 4,
  'outpaint-1.5x': 4,
  'outpaint-2x': 4,
  'outpaint-custom': 4,
  // one price for every Flux model (the v1 table has one)
  'flux-imagine': 1,
  // the Ideogram family costs what its imagine does, remix, upscale and describe included
  'ideogram-imagine': 1,
  'ideogram-remix': 1,
  'ideogram-upscale': 1,
  'ideogram-describe': 1,
  faceswap: 2,
  'ai-photo-upload': 2,
  'upscale-subtle': UPSCALE_PRICES.subtle,
  'upscale-creative': UPSCALE_PRICES.creative,
  'upscale-2x': UPSCALE_PRICES['2x'],
  'upscale-4x': UPSCALE_PRICES['4x'],
  // videos: a Luma clip (and each extension) is 5 seconds; Midjourney video makes four ~5 s clips, priced like
  // eight imagine jobs as Midjourney bills it; Kling's try-on answers one picture
  luma: 20,
  'luma-ext': 20,
  'imagine-video': 32,
  'imagine-video-extend': 32,
  'kling-tryon': 4,
  // songs: a Suno or Udio call makes two (suno-upload and lyrics are light work)
  suno: 4,
  'suno-ext': 4,
  udio: 4,
  'suno-lyrics': 1,
  'suno-upload': 1,
};

/** Credits per unit of the types priced by quantity: per photo trained on, per photo generated, per second of video. */
const PER_UNIT_PRICES: Readonly<Record<string, number>> = {
  'ai-photo-train': 4,
  'ai-photo-generate': 1,
  // per second of video asked for (5 or 10)
  'kling-video': 3,
  runway: 3,
};

const VARIATION_PRICE = 4;

/**
 * Credits a task of `type` costs, or undefined for a type this server does not sell (or a
 * quantity that is not a whole number of at least 1 for a type priced per unit). `quantity`
 * only matters for types priced per unit; the others ignore it.
 *
 * @example
 * priceOf('imagine') // 4
 * priceOf('upscale#2') // 2
 * priceOf('ai-photo-train', 12) // 48: 4 per photo
 * priceOf('kling-video', 10) // 30: 3 per second
 */
export function priceOf(type: string, quantity = 1): number | undefined {
  if (type in PER_UNIT_PRICES) return Number.isSafeInteger(quantity) && quantity >= 1 ? PER_UNIT_PRICES[type] * quantity : undefined;
  if (type in FIXED_PRICES) return FIXED_PRICES[type];
  // variation-1…4 (V buttons) and variation-strong/-subtle (Vary buttons of an upscaled image)
  if (/^variation-([1-4]|strong|subtle)$/.test(type)) return VARIATION_PRICE;
  if (/^upscale#[1-4]$/.test(type)) return UPSCALE_PRICES['1x'];
  return undefined;
}

/** One line of the public price list: a task type and its credits (per unit for the types priced per unit). */
export interface ActionPrice {
  type: string;
  credits: number;
  /** What `credits` is per, for the types priced by quantity; null: per task. */
  per: 'photo' | 'second' | null;
}

const UNIT_OF: Readonly<Record<string, 'photo' | 'second'>> = {
  'ai-photo-train': 'photo',
  'ai-photo-generate': 'photo',
  'kling-video': 'second',
  runway: 'second',
};

/**
 * Every task type this server sells with its price, each read through priceOf (the function the
 * holds use), in a stable order: GET /pricing and the dashboard's catalog (GET /billing/config).
 */
export function actionPrices(): ActionPrice[] {
  const types = [
    ...Object.keys(FIXED_PRICES),
    ...[1, 2, 3, 4].map((i) => `variation-${i}`),
    'variation-strong',
    'variation-subtle',
    ...[1, 2, 3, 4].map((i) => `upscale#${i}`),
    ...Object.keys(PER_UNIT_PRICES),
  ];
  return types.map((type) => ({ type, credits: priceOf(type) as number, per: UNIT_OF[type] ?? null }));
}
