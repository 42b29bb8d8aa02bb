import { vi } from 'vitest';
import { ApiError } from '@aim/shared-kit/api';
import type { BillingAccount } from '../../src/gateway/account.ts';
import type { BillingConfig, BillingGateway, PaymentMethod, SandboxConfirmResult } from '../../src/gateway/billing-gateway.ts';
import type { SpendingLimits } from '../../src/gateway/spending-limits.ts';
import type { Notices } from '../../src/notices.ts';

/** The server's catalog as GET /billing/config answers it today (server/src/billing/catalog.ts). */
export const sandboxConfig: BillingConfig = {
  provider: 'sandbox',
  publishable_key: null,
  plans: [
    { id: 'basic', label: 'Basic', amount: 39, credits: 1000 },
    { id: 'starter', label: 'Starter', amount: 199, credits: 5500 },
    { id: 'growth', label: 'Growth', amount: 399, credits: 11000 },
    { id: 'scale1', label: 'Scale 1', amount: 2499, credits: 120000 },
    { id: 'scale2', label: 'Scale 2', amount: 4999, credits: 240000 },
    { id: 'scale3', label: 'Scale 3', amount: 9999, credits: 480000 },
    { id: 'scale-c1', label: 'Scale C1', amount: 3100, credits: 156000 },
  ],
  topup: { presets: [10, 20, 50, 100, 200, 500], block_dollars: 10, credits_per_block: 250, max_dollars: 10000 },
  trial: { amount: 10, credits: 250, days: 7 },
  auto_topup: { thresholds: [250, 500, 1250, 2500], default_min: 250, default_amount: 10 },
  actions: [],
  test_cards: [],
};

export function makeAccount(over: Partial<BillingAccount> = {}): BillingAccount {
  return {
    id: 'user-1',
    email: 'ada@example.com',
    api_key: 'key',
    credits: 1200,
    plan: 'zero',
    customer_id: 'cus_sbx_1',
    auto_topup: false,
    auto_topup_amount: 10,
    auto_topup_min: 250,
    next_billing_date: null,
    integration_webhook_url: null,
    trialed: false,
    onboarded: true,
    referral_id: null,
    portal_token: null,
    ...over,
  };
}

export const card = (over: Partial<PaymentMethod> = {}): PaymentMethod => ({
  id: 'pm_1',
  brand: 'visa',
  last4: '4242',
  exp_month: 12,
  exp_year: 2030,
  name: null,
  default: true,
  ...over,
});

export const confirmed = (status: string, over: Partial<SandboxConfirmResult> = {}): SandboxConfirmResult => ({
  object: 'payment_intent',
  id: 'pi_sbx_1',
  status,
  payment_method: 'pm_sbx_1',
  next_action: status === 'requires_action' ? { type: 'sandbox_three_d_secure' } : null,
  error: null,
  ...over,
});

/** GET /auth/spending-limits as the server answers it for a new account (defaults, nothing spent), with `over` applied. */
export function spendingLimits(over: Partial<SpendingLimits> = {}): SpendingLimits {
  return {
    monthly_spend_limit: null,
    auto_topup_max_per_day: 3,
    auto_topup_monthly_cap: 500,
    low_balance_alert_at: null,
    usage: { month_spend: 0, auto_topup_month: 0, auto_topups_today: 0 },
    last_refusal: { topup: null, auto_topup: null },
    defaults: { monthly_spend_limit: null, auto_topup_max_per_day: 3, auto_topup_monthly_cap: 500, low_balance_alert_at: null },
    ...over,
  };
}

/** An API failure as the client raises it: the server's message, or the default text. */
export const apiError = (message: string, status = 409) => new ApiError(message, status);

/** Every call a vi.fn with a happy default; tests override what they exercise. */
export function fakeGateway(over: Partial<BillingGateway> = {}): BillingGateway {
  return {
    ready: true,
    config: vi.fn(async () => sandboxConfig),
    createCustomer: vi.fn(async () => undefined),
    subscribe: vi.fn(async () => ({ clientSecret: 'pi_sbx_1_secret_x' })),
    topUp: vi.fn(async (usd: number) => ({ clientSecret: 'pi_sbx_2_secret_x', amount: usd, credits: (usd / 10) * 250 })),
    trial: vi.fn(async () => ({ clientSecret: 'pi_sbx_3_secret_x', amount: 10, credits: 250, days: 7 })),
    cancel: vi.fn(async () => undefined),
    paymentMethods: vi.fn(async () => []),
    makeDefaultPaymentMethod: vi.fn(async () => []),
    removePaymentMethod: vi.fn(async () => []),
    createSetupIntent: vi.fn(async () => ({ clientSecret: 'seti_sbx_1_secret_x', setupIntentId: 'seti_sbx_1' })),
    addPaymentMethod: vi.fn(async () => undefined),
    invoices: vi.fn(async () => []),
    invoicePdf: vi.fn(async () => new Blob(['%PDF-'], { type: 'application/pdf' })),
    saveAutoTopUp: vi.fn(async () => undefined),
    spendingLimits: vi.fn(async () => spendingLimits()),
    saveSpendingLimits: vi.fn(async (input) => spendingLimits(input)),
    sandboxConfirm: vi.fn(async () => confirmed('succeeded')),
    ...over,
  };
}

export function fakeNotices() {
  return { error: vi.fn(), success: vi.fn(), alert: vi.fn() } satisfies Notices;
}
