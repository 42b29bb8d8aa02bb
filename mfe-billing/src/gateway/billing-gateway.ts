// Everything the billing screens ask of the outside world, behind one interface so they can be
// tested with a fake. The real one goes through shared-kit's API client (the provider API, spec
// §7 and /billing/*) and the page's supabase-js client (the payments table). Every call leaves
// the error to its caller: billing has its own texts for failures (spec §8).
import { useMemo } from 'react';
import { ApiError, DEFAULT_API_ERROR, useApiClient, type ApiClient } from '@aim/shared-kit/api';
import { useUserRow } from '@aim/shared-kit/session';
import { getSupabaseClient } from '@aim/shared-kit/supabase';
import type { SpendingLimits, SpendingLimitsInput } from './spending-limits.ts';

type ProviderKind = 'sandbox' | 'stripe';

/** A plan of the server's catalog (server/src/billing/catalog.ts), its price in dollars. */
export type CatalogPlan = { id: string; label: string; amount: number; credits: number };

/**
 * GET /billing/config: which payment form to show, and the server's catalog. The one source of
 * plans, prices, top-up amounts, auto top-up limits and the trial: read it with useBillingConfig().
 */
export type BillingConfig = {
  provider: ProviderKind;
  /** Stripe only: the publishable key Stripe.js is initialised with. */
  publishable_key?: string | null;
  plans: CatalogPlan[];
  topup: { presets: number[]; block_dollars: number; credits_per_block: number; max_dollars: number };
  trial: { amount: number; credits: number; days: number };
  auto_topup: { thresholds: number[]; default_min: number; default_amount: number };
  test_cards: { number: string; brand: string; description: string }[];
};

export type PaymentMethod = { id: string; brand: string; last4: string; exp_month: number; exp_year: number; name: string | null; default: boolean };

/** A row of public.payments: one paid invoice. */
export type Invoice = { id: string; invoice_number: string; payment_date: string; plan_name: string; amount: number | string };

type AutoTopUpInput = { auto_topup: boolean; auto_topup_min: number; auto_topup_amount: number };

/** What a payment or card setup asks the payment form to confirm. */
export type Intent = { kind: 'payment' | 'setup'; clientSecret: string };

/** POST /billing/sandbox/confirm: the intent after the sandbox form's confirmation (Stripe.js-shaped). */
export type SandboxConfirmResult = {
  object: 'payment_intent' | 'setup_intent';
  id: string;
  status: string;
  payment_method: string | null;
  next_action: { type: string } | null;
  error: { code: string; decline_code?: string; message: string } | null;
};

export type SandboxCard = { number: string; exp_month: number; exp_year: number; cvc: string; name?: string | null };

type SandboxConfirmInput = { clientSecret: string; card?: SandboxCard; threeDSecure?: 'approve' | 'fail' };

export type BillingGateway = {
  /** False until the user's API key is known: every call needs it. */
  ready: boolean;
  config(): Promise<BillingConfig>;
  createCustomer(): Promise<void>;
  subscribe(plan: string): Promise<{ clientSecret: string }>;
  topUp(amountUsd: number): Promise<{ clientSecret: string; amount: number; credits: number }>;
  trial(): Promise<{ clientSecret: string; amount: number; credits: number; days: number }>;
  cancel(): Promise<void>;
  paymentMethods(): Promise<PaymentMethod[]>;
  makeDefaultPaymentMethod(id: string): Promise<PaymentMethod[]>;
  removePaymentMethod(id: string): Promise<PaymentMethod[]>;
  createSetupIntent(): Promise<{ clientSecret: string; setupIntentId: string }>;
  addPaymentMethod(setupIntentId: string, paymentMethodId: string): Promise<void>;
  invoices(email: string): Promise<Invoice[]>;
  invoicePdf(invoiceNumber: string): Promise<Blob>;
  saveAutoTopUp(input: AutoTopUpInput): Promise<void>;
  /** GET /auth/spending-limits: the spending controls, this month's usage and the last refusals. */
  spendingLimits(): Promise<SpendingLimits>;
  /** POST /auth/spending-limits: saves the fields given; answers the controls as saved. */
  saveSpendingLimits(input: SpendingLimitsInput): Promise<SpendingLimits>;
  sandboxConfirm(input: SandboxConfirmInput): Promise<SandboxConfirmResult>;
};

/** The server's own words for a failure, or null when it gave none (network, 5xx without a body). */
export function serverMessage(error: unknown): string | null {
  return error instanceof ApiError && error.message !== DEFAULT_API_ERROR ? error.message : null;
}

type SupabaseClient = ReturnType<typeof getSupabaseClient>;

// One config request per API key and page: it only changes with a deploy.
const configs = new Map<string, Promise<BillingConfig>>();

function createBillingGateway(api: ApiClient, supabase: SupabaseClient, apiKey: string | null): BillingGateway {
  const quiet = { toastOnError: false } as const;
  const post = <T>(path: string, body?: unknown) => api.post<T>(path, body, quiet);
  const cards = async (path: string, paymentMethodId: string) => (await post<{ paymentMethods: PaymentMethod[] }>(path, { paymentMethodId })).paymentMethods;

  return {
    ready: !!apiKey,
    config() {
      const key = apiKey ?? '';
      let pending = configs.get(key);
      if (!pending) {
        pending = api.get<BillingConfig>('/billing/config', quiet);
        configs.set(key, pending);
        pending.catch(() => configs.delete(key));
      }
      return pending;
    },
    createCustomer: async () => void (await post('/auth/createCustomer')),
    subscribe: (plan) => post('/auth/subscribe', { plan }),
    topUp: (amountUsd) => post('/auth/topup', { amount: amountUsd }),
    trial: () => post('/auth/trial'),
    cancel: async () => void (await post('/auth/cancel')),
    paymentMethods: async () => (await api.get<{ paymentMethods: PaymentMethod[] }>('/auth/payment-methods', quiet)).paymentMethods,
    makeDefaultPaymentMethod: (id) => cards('/auth/make-default-payment-method', id),
    removePaymentMethod: (id) => cards('/auth/remove-payment-method', id),
    createSetupIntent: () => post('/auth/create-setup-intent'),
    addPaymentMethod: async (setupIntentId, paymentMethodId) => void (await post('/auth/add-payment-method', { setupIntentId, paymentMethodId })),
    async invoices(email) {
      const { data, error } = await supabase.from('payments').select('*').eq('email', email).order('payment_date', { ascending: false });
      if (error) throw new Error(error.message);
      return data as Invoice[];
    },
    invoicePdf: (invoiceNumber) => api.blob('POST', '/auth/gen-invoice', { ...quiet, body: { invoiceId: invoiceNumber } }),
    saveAutoTopUp: async (input) => void (await post('/auth/update-auto-topup', input)),
    spendingLimits: () => api.get<SpendingLimits>('/auth/spending-limits', quiet),
    saveSpendingLimits: (input) => post('/auth/spending-limits', input),
    sandboxConfirm: ({ clientSecret, card, threeDSecure }) =>
      post('/billing/sandbox/confirm', { client_secret: clientSecret, ...(card ? { card } : {}), ...(threeDSecure ? { three_d_secure: threeDSecure } : {}) }),
  };
}

/** The gateway for the signed-in user. */
export function useBillingGateway(): BillingGateway {
  const api = useApiClient();
  const { row } = useUserRow();
  const apiKey = row?.api_key ?? null;
  return useMemo(() => createBillingGateway(api, getSupabaseClient(), apiKey), [api, apiKey]);
}
