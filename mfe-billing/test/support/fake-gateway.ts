import { vi } from 'vitest';
import { ApiError } from '@aim/shared-kit/api';
import type { BillingAccount } from '../../src/gateway/account.ts';
import type { BillingConfig, BillingGateway, PaymentMethod, SandboxConfirmResult } from '../../src/gateway/billing-gateway.ts';
import type { Notices } from '../../src/notices.ts';

export const sandboxConfig: BillingConfig = {
  provider: 'sandbox',
  topup: { presets: [10, 20, 50, 100, 200, 500], block_dollars: 10, credits_per_block: 250, max_dollars: 10000 },
  trial: { amount: 10, credits: 250, days: 7 },
  auto_topup: { thresholds: [250, 500, 1250, 2500], default_min: 250, default_amount: 10 },
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
    sandboxConfirm: vi.fn(async () => confirmed('succeeded')),
    ...over,
  };
}

export function fakeNotices() {
  return { error: vi.fn(), success: vi.fn(), alert: vi.fn() } satisfies Notices;
}
