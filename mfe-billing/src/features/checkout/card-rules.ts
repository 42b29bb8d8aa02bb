// The sandbox card form's input handling. Card data goes only to the sandbox confirmation and
// is never stored in the browser.
import type { SandboxCard } from '../../gateway/billing-gateway.ts';

/** The cards the sandbox form names (Stripe test-mode numbers, design billing-stripe.md §8). */
export const SANDBOX_HINTS: readonly { number: string; outcome: string }[] = [
  { number: '4242 4242 4242 4242', outcome: 'succeeds' },
  { number: '4000 0000 0000 0002', outcome: 'is declined' },
  { number: '4000 0025 0000 3155', outcome: 'asks for 3-D Secure' },
];

/** Digits in groups of four, at most 19 digits. */
export function formatCardNumber(input: string): string {
  return input
    .replace(/\D+/g, '')
    .slice(0, 19)
    .replace(/(\d{4})(?=\d)/g, '$1 ');
}

/** 'MM / YY' as the user types: digits only, the separator added after the month. */
export function formatExpiry(input: string): string {
  const digits = input.replace(/\D+/g, '').slice(0, 4);
  return digits.length > 2 ? `${digits.slice(0, 2)} / ${digits.slice(2)}` : digits;
}

export function parseExpiry(input: string): { month: number; year: number } | null {
  const match = /^(\d{2})\s*\/\s*(\d{2})$/.exec(input.trim());
  if (!match) return null;
  const month = Number(match[1]);
  if (month < 1 || month > 12) return null;
  return { month, year: 2000 + Number(match[2]) };
}

export type CardFields = { number: string; expiry: string; cvc: string; name: string };
export type CardErrors = Partial<Record<'number' | 'expiry' | 'cvc', string>>;

export const CARD_MESSAGES = {
  number: 'Enter a complete card number',
  expiry: 'Enter a valid expiry date (MM / YY)',
  expired: "The card's expiry date is in the past",
  cvc: 'Enter the 3 or 4 digit security code',
} as const;

/** The card to confirm with, or what to fix first. */
export function readCard(fields: CardFields, now: Date = new Date()): { ok: true; card: SandboxCard } | { ok: false; errors: CardErrors } {
  const errors: CardErrors = {};
  const number = fields.number.replace(/\D+/g, '');
  if (number.length < 12) errors.number = CARD_MESSAGES.number;
  const expiry = parseExpiry(fields.expiry);
  if (!expiry) errors.expiry = CARD_MESSAGES.expiry;
  else if (expiry.year * 12 + expiry.month < now.getFullYear() * 12 + now.getMonth() + 1) errors.expiry = CARD_MESSAGES.expired;
  if (!/^\d{3,4}$/.test(fields.cvc)) errors.cvc = CARD_MESSAGES.cvc;
  if (Object.keys(errors).length || !expiry) return { ok: false, errors };
  const name = fields.name.trim();
  return { ok: true, card: { number, exp_month: expiry.month, exp_year: expiry.year, cvc: fields.cvc, name: name || null } };
}
