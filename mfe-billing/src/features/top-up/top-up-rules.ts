// Spec §5 (custom top-up) and §9 (top-up table, auto top-up): what the top-up dialog accepts.
// The amounts, the block and the cap come from the server's catalog (GET /billing/config).
import { digitsOnly } from '@aim/shared-kit/validate';
import type { BillingConfig } from '../../gateway/billing-gateway.ts';

/** The top-up part of the server's catalog: presets, the custom block and its credits, the cap. */
export type TopUpCatalog = BillingConfig['topup'];

export const CUSTOM = 'custom';
/** A preset's dollars as the select's value, or 'custom'. */
export type AmountChoice = string;

/** Credits bought by a number of dollars, in whole blocks (as the server grants them). */
export function creditsForUsd(usd: number, topup: TopUpCatalog): number {
  return Math.floor(usd / topup.block_dollars) * topup.credits_per_block;
}

/** The amount select: every preset with the credits it buys, then 'Custom amount'. */
export function amountChoices(topup: TopUpCatalog): { value: AmountChoice; label: string }[] {
  const credits = new Intl.NumberFormat('en-US');
  return [
    ...topup.presets.map((usd) => ({ value: String(usd), label: `$${usd} → ${credits.format(creditsForUsd(usd, topup))} credits` })),
    { value: CUSTOM, label: 'Custom amount' },
  ];
}

/** Spec §5's message, for the catalog's block ('Enter a valid custom amount (multiples of $10)'). */
function customAmountMessage(topup: TopUpCatalog): string {
  return `Enter a valid custom amount (multiples of $${topup.block_dollars})`;
}

/** Only digits are kept as the user types a custom amount. */
export const cleanAmountInput = digitsOnly;

/** A custom amount: a whole number of blocks, at least one, within the server's cap. */
export function parseCustomAmount(input: string, topup: TopUpCatalog): { ok: true; usd: number } | { ok: false; message: string } {
  const digits = digitsOnly(input);
  const usd = digits ? Number(digits) : 0;
  if (usd >= topup.block_dollars && usd <= topup.max_dollars && usd % topup.block_dollars === 0) return { ok: true, usd };
  return { ok: false, message: customAmountMessage(topup) };
}

export type TopUpAmount = { ok: true; usd: number; credits: number } | { ok: false; message: string };

/** The dollars a choice buys: a preset as is, a custom amount in whole blocks. */
export function resolveTopUp(choice: AmountChoice, customInput: string, topup: TopUpCatalog): TopUpAmount {
  if (choice !== CUSTOM) {
    const preset = topup.presets.find((usd) => String(usd) === choice);
    if (preset !== undefined) return { ok: true, usd: preset, credits: creditsForUsd(preset, topup) };
  }
  const parsed = parseCustomAmount(customInput, topup);
  return parsed.ok ? { ok: true, usd: parsed.usd, credits: creditsForUsd(parsed.usd, topup) } : parsed;
}
