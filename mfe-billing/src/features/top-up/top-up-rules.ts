// Spec §5 (custom top-up) and §9 (top-up table, auto top-up): what the top-up dialog accepts.
import { CREDITS_PER_BLOCK, CUSTOM_TOP_UP_BLOCK_USD, TOP_UPS } from '@aim/shared-kit/domain';
import { digitsOnly, parseCustomTopUp } from '@aim/shared-kit/validate';

export const CUSTOM = 'custom';
/** A preset's dollars as the select's value, or 'custom'. */
export type AmountChoice = string;

export const AMOUNT_CHOICES: readonly { value: AmountChoice; label: string }[] = [
  ...TOP_UPS.map((t) => ({ value: String(t.usd), label: `$${t.usd} → ${new Intl.NumberFormat('en-US').format(t.credits)} credits` })),
  { value: CUSTOM, label: 'Custom amount' },
];

export function creditsForUsd(usd: number): number {
  return (usd / CUSTOM_TOP_UP_BLOCK_USD) * CREDITS_PER_BLOCK;
}

/** Only digits are kept as the user types a custom amount. */
export const cleanAmountInput = digitsOnly;

export type TopUpAmount = { ok: true; usd: number; credits: number } | { ok: false; message: string };

/** The dollars a choice buys: a preset as is, a custom amount in whole $10 blocks. */
export function resolveTopUp(choice: AmountChoice, customInput: string): TopUpAmount {
  if (choice !== CUSTOM) {
    const preset = TOP_UPS.find((t) => String(t.usd) === choice);
    if (preset) return { ok: true, usd: preset.usd, credits: preset.credits };
  }
  const parsed = parseCustomTopUp(customInput);
  return parsed.ok ? { ok: true, usd: parsed.usd, credits: creditsForUsd(parsed.usd) } : parsed;
}
