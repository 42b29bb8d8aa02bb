// Spec §4 (Subscription) and §9 (plans, the Scale slider): what the Subscription page shows.
import { NO_PLAN, PLANS, scaleImagesDaily, scalePlanForSlider, type Plan } from '@aim/shared-kit/domain';

export type Account = { plan: string | null; next_billing_date: string | null; trialed?: boolean | null };

export type PlanButton = { label: 'Current Plan' | 'Subscribe' | 'Switch plan'; disabled: boolean };

const hasPlan = (account: Account) => !!account.plan && account.plan !== NO_PLAN;

/**
 * The current plan reads Current Plan (disabled). With no plan or no billing date (cancelled)
 * another plan is a new subscription, otherwise a plan change.
 */
export function planButton(cardPlan: string, account: Account): PlanButton {
  if (hasPlan(account) && account.plan === cardPlan) return { label: 'Current Plan', disabled: true };
  if (!hasPlan(account) || !account.next_billing_date) return { label: 'Subscribe', disabled: false };
  return { label: 'Switch plan', disabled: false };
}

/** Plan zero has no subscription to cancel; a billing date means it renews; none means it was cancelled. */
export function cancelButton(account: Account): { label: 'Cancel' | 'Cancelled'; disabled: boolean } | null {
  if (!hasPlan(account)) return null;
  return account.next_billing_date ? { label: 'Cancel', disabled: false } : { label: 'Cancelled', disabled: true };
}

/** The 7-day trial is offered to users with no plan who never trialed. */
export function isTrialEligible(account: Account): boolean {
  return !hasPlan(account) && !account.trialed;
}

const plan = (id: Plan['id']) => PLANS.find((p) => p.id === id)!;

/** The fixed cards before Scale; Growth is marked Most Popular. */
export const FIXED_PLANS: readonly (Plan & { popular: boolean })[] = (['basic', 'starter', 'growth'] as const).map((id) => ({
  ...plan(id),
  popular: id === 'growth',
}));

export const SCALE_DEFAULT = 1;

/** The Scale card at a slider value: which tier it buys, its price and credits, and images per day. */
export function scaleOffer(value: number): Plan & { imagesDaily: number } {
  return { ...plan(scalePlanForSlider(value)), imagesDaily: scaleImagesDaily(value) };
}

export function formatUsd(amount: number | string): string {
  const n = typeof amount === 'string' ? Number(amount) : amount;
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: Number.isInteger(n) ? 0 : 2 }).format(n);
}

/** A date (ISO string) as the dashboard shows it, e.g. 'Dec 22, 2026'; '—' when there is none. */
export function formatDate(value: string | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? '—' : new Intl.DateTimeFormat('en-US', { dateStyle: 'medium' }).format(date);
}

/** An invoice amount: always with cents ('$39.00'). */
export function formatMoney(amount: number | string): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(Number(amount));
}
