/**
 * @module The server's billing catalog (spec §9): plan prices and credits, the top-up rate,
 * the trial and the auto top-up limits. The single source of truth for money and credits:
 * clients only ever send a plan id or a dollar amount, never a price or a credit count.
 */

export const PLAN_IDS = ['basic', 'starter', 'growth', 'scale1', 'scale2', 'scale3', 'scale-c1'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export interface Plan {
  id: PlanId;
  label: string;
  amountCents: number;
  /** Granted on every paid invoice of the plan (first payment, plan change, renewal). */
  credits: number;
}

export const PLANS: Readonly<Record<PlanId, Plan>> = {
  basic: { id: 'basic', label: 'Basic', amountCents: 3_900, credits: 1_000 },
  starter: { id: 'starter', label: 'Starter', amountCents: 19_900, credits: 5_500 },
  growth: { id: 'growth', label: 'Growth', amountCents: 39_900, credits: 11_000 },
  scale1: { id: 'scale1', label: 'Scale 1', amountCents: 249_900, credits: 120_000 },
  scale2: { id: 'scale2', label: 'Scale 2', amountCents: 499_900, credits: 240_000 },
  scale3: { id: 'scale3', label: 'Scale 3', amountCents: 999_900, credits: 480_000 },
  'scale-c1': { id: 'scale-c1', label: 'Scale C1', amountCents: 310_000, credits: 156_000 },
};

export function isPlanId(value: unknown): value is PlanId {
  return typeof value === 'string' && (PLAN_IDS as readonly string[]).includes(value);
}

/** One top-up block: $10 buys 250 credits. */
export const TOPUP_BLOCK_DOLLARS = 10;
export const CREDITS_PER_BLOCK = 250;
export const TOPUP_PRESETS_DOLLARS = [10, 20, 50, 100, 200, 500] as const;
/** A cap on one top-up (and one auto top-up), so a typo cannot charge a fortune. */
export const MAX_TOPUP_DOLLARS = 10_000;
export const INVALID_TOPUP_AMOUNT_MESSAGE = 'Enter a valid custom amount (multiples of $10)';

/**
 * The dollars of a top-up request when they are a whole number of $10 blocks within the cap
 * (a number, or a string of digits as the custom field keeps), else undefined.
 *
 * @example
 * parseTopupDollars(50) // 50
 * parseTopupDollars('120') // 120
 * parseTopupDollars(15) // undefined
 */
export function parseTopupDollars(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^[0-9]{1,7}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n)) return undefined;
  if (n < TOPUP_BLOCK_DOLLARS || n > MAX_TOPUP_DOLLARS || n % TOPUP_BLOCK_DOLLARS !== 0) return undefined;
  return n;
}

/**
 * Credits bought by a payment of `amountCents` (what the provider says it received), in
 * whole blocks: a payment is never worth more than its blocks.
 *
 * @example
 * creditsForCents(5_000) // 1250
 */
export function creditsForCents(amountCents: number): number {
  return Math.floor(amountCents / (TOPUP_BLOCK_DOLLARS * 100)) * CREDITS_PER_BLOCK;
}

/**
 * The trial (spec §1, §9): $10 for 7 days, offered to users with no plan who never trialed.
 * It buys the credits of one top-up block; it does not start a plan [product decision].
 */
export const TRIAL = { amountCents: 1_000, credits: CREDITS_PER_BLOCK, days: 7 } as const;

export const AUTO_TOPUP_THRESHOLDS = [250, 500, 1250, 2500] as const;
export const AUTO_TOPUP_DEFAULTS = { min: 250, amountDollars: 10 } as const;
/** Consecutive failed auto top-up charges after which auto top-up turns itself off. */
export const AUTO_TOPUP_MAX_FAILURES = 3;

export function dollars(amountCents: number): string {
  return `$${(amountCents / 100).toFixed(2)}`;
}
