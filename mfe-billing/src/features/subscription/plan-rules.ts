// Spec §4 (Subscription) and §9 (plans, the Scale slider): what the Subscription page shows.
// Prices and credits come from the server's catalog (GET /billing/config); the rules here only
// pick which of its plans a card shows.
import { NO_PLAN, scalePlanForSlider } from '@aim/shared-kit/domain';
import type { CatalogPlan } from '../../gateway/billing-gateway.ts';

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

/**
 * Spec §4: with a next billing date the button reads Cancel; without one (plan zero, or a
 * subscription already cancelled) it reads Cancelled and is disabled.
 */
export function cancelButton(account: Account): { label: 'Cancel' | 'Cancelled'; disabled: boolean } {
  return hasPlan(account) && account.next_billing_date ? { label: 'Cancel', disabled: false } : { label: 'Cancelled', disabled: true };
}

/** The trial is offered to users with no plan who never trialed. */
export function isTrialEligible(account: Account): boolean {
  return !hasPlan(account) && !account.trialed;
}

/** The fixed cards before Scale, in order; Growth is marked Most Popular. */
const FIXED_PLAN_IDS = ['basic', 'starter', 'growth'] as const;
const POPULAR_PLAN = 'growth';

/** The fixed cards of the catalog's plans (a plan the catalog lacks has no card). */
export function fixedPlans(plans: readonly CatalogPlan[]): (CatalogPlan & { popular: boolean })[] {
  return FIXED_PLAN_IDS.flatMap((id) => {
    const plan = plans.find((p) => p.id === id);
    return plan ? [{ ...plan, popular: id === POPULAR_PLAN }] : [];
  });
}

export const SCALE_DEFAULT = 1;

/** The catalog's Scale tier a slider value buys; null when the catalog lacks it. */
export function scaleOffer(plans: readonly CatalogPlan[], value: number): CatalogPlan | null {
  return plans.find((p) => p.id === scalePlanForSlider(value)) ?? null;
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
