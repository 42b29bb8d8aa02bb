// Everything the billing screens ask of the outside world, behind one interface so they can be
// tested with a fake. The real one goes through shared-kit's API client (the provider API, spec
// §7 and /billing/*) and the page's supabase-js client (the payments table). Every call leaves
// the error to its caller: billing has its own texts for failures (spec §8).
import { useMemo } from 'react';
import { ApiError, type ApiSchema, DEFAULT_API_ERROR, type TypedApi, useApi } from '@aim/shared-kit/api';
import { useUserRow } from '@aim/shared-kit/session';
import { getSupabaseClient } from '@aim/shared-kit/supabase';
import type { SpendingLimits, SpendingLimitsInput } from './spending-limits.ts';

/** A plan of the server's catalog (server/src/billing/catalog.ts), its price in dollars. */
export type CatalogPlan = ApiSchema<'BillingConfig'>['plans'][number];

/**
 * GET /billing/config: which payment form to show, and the server's catalog. The one source of
 * plans, prices, top-up amounts, auto top-up limits and the trial: read it with useBillingConfig().
 */
export type BillingConfig = ApiSchema<'BillingConfig'>;

export type PaymentMethod = ApiSchema<'PaymentMethod'>;

/** A row of public.payments: one paid invoice. */
export type Invoice = { id: string; invoice_number: string; payment_date: string; plan_name: string; amount: number | string };

type AutoTopUpInput = ApiSchema<'AutoTopUpRequest'>;

/** What a payment or card setup asks the payment form to confirm. */
export type Intent = { kind: 'payment' | 'setup'; clientSecret: string };

/** POST /billing/sandbox/confirm: the intent after the sandbox form's confirmation (Stripe.js-shaped). */
export type SandboxConfirmResult = ApiSchema<'SandboxConfirmResponse'>;

export type SandboxCard = NonNullable<ApiSchema<'SandboxConfirmRequest'>['card']>;

type SandboxConfirmInput = { clientSecret: string; card?: SandboxCard; threeDSecure?: 'approve' | 'fail' };

/**
 * A charge's one random key per user action (`crypto.randomUUID()`), reused when that action is
 * retried: the server answers a retry with the first answer instead of charging twice.
 */
type Action = { idempotencyKey: string };

export type BillingGateway = {
  /** False until the user's API key is known: every call needs it. */
  ready: boolean;
  config(): Promise<BillingConfig>;
  createCustomer(): Promise<void>;
  subscribe(plan: string, action: Action): Promise<{ clientSecret: string }>;
  topUp(amountUsd: number, action: Action): Promise<{ clientSecret: string; amount: number; credits: number }>;
  trial(action: Action): Promise<{ clientSecret: string; amount: number; credits: number; days: number }>;
  cancel(): Promise<void>;
  paymentMethods(): Promise<PaymentMethod[]>;
  makeDefaultPaymentMethod(id: string): Promise<PaymentMethod[]>;
  removePaymentMethod(id: string): Promise<PaymentMethod[]>;
  createSetupIntent(): Promise<{ clientSecret: string; setupIntentId: string }>;
  addPaymentMethod(setupIntentId: string, paymentMethodId: string): Promise<void>;
  invoices(email: string): Promise<Invoice[]>;
  invoicePdf(invoiceNumber: string): Promise<Blob>;
  /** Saves the settings; turning it on may charge at once, so it is an action with its key. */
  saveAutoTopUp(input: AutoTopUpInput, action: Action): Promise<void>;
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

function createBillingGateway(api: TypedApi, supabase: SupabaseClient, apiKey: string | null): BillingGateway {
  // billing has its own texts for failures (spec §8), not the client's toast
  const quiet = { toastOnError: false } as const;
  return {
    ready: !!apiKey,
    // cached by the page's QueryClient (billing-queries.ts): it only changes with a deploy
    config: () => api.get('/billing/config', quiet),
    createCustomer: async () => void (await api.post('/auth/createCustomer', quiet)),
    // a plan id of the catalog the server sent (it refuses any other)
    subscribe: (plan, { idempotencyKey }) =>
      api.post('/auth/subscribe', { ...quiet, body: { plan: plan as ApiSchema<'SubscribeRequest'>['plan'] }, idempotencyKey }),
    topUp: (amountUsd, { idempotencyKey }) => api.post('/auth/topup', { ...quiet, body: { amount: amountUsd }, idempotencyKey }),
    trial: ({ idempotencyKey }) => api.post('/auth/trial', { ...quiet, idempotencyKey }),
    cancel: async () => void (await api.post('/auth/cancel', quiet)),
    paymentMethods: async () => (await api.get('/auth/payment-methods', quiet)).paymentMethods,
    makeDefaultPaymentMethod: async (id) => (await api.post('/auth/make-default-payment-method', { ...quiet, body: { paymentMethodId: id } })).paymentMethods,
    removePaymentMethod: async (id) => (await api.post('/auth/remove-payment-method', { ...quiet, body: { paymentMethodId: id } })).paymentMethods,
    createSetupIntent: () => api.post('/auth/create-setup-intent', quiet),
    addPaymentMethod: async (setupIntentId, paymentMethodId) =>
      void (await api.post('/auth/add-payment-method', { ...quiet, body: { setupIntentId, paymentMethodId } })),
    async invoices(email) {
      const { data, error } = await supabase.from('payments').select('*').eq('email', email).order('payment_date', { ascending: false });
      if (error) throw new Error(error.message);
      return data as Invoice[];
    },
    invoicePdf: (invoiceNumber) => api.postBlob('/auth/gen-invoice', { ...quiet, body: { invoiceId: invoiceNumber } }),
    saveAutoTopUp: async (input, { idempotencyKey }) => void (await api.post('/auth/update-auto-topup', { ...quiet, body: input, idempotencyKey })),
    spendingLimits: () => api.get('/auth/spending-limits', quiet),
    saveSpendingLimits: (input) => api.post('/auth/spending-limits', { ...quiet, body: input }),
    sandboxConfirm: ({ clientSecret, card, threeDSecure }) =>
      api.post('/billing/sandbox/confirm', {
        ...quiet,
        body: { client_secret: clientSecret, ...(card ? { card } : {}), ...(threeDSecure ? { three_d_secure: threeDSecure } : {}) },
      }),
  };
}

/** The gateway for the signed-in user. */
export function useBillingGateway(): BillingGateway {
  const api = useApi();
  const { row } = useUserRow();
  const apiKey = row?.api_key ?? null;
  return useMemo(() => createBillingGateway(api, getSupabaseClient(), apiKey), [api, apiKey]);
}
