/**
 * @module Billing calls (spec §7) under /auth/*: customer, subscribe, top-up, trial, cancel,
 * cards, invoices and auto top-up settings, all requiring the signed-in dashboard session
 * (the API key alone is refused: docs/decisions/0011-two-credentials.md); GET /billing/config
 * for the payment UI; and, with the sandbox provider only, /billing/sandbox/* (the sandbox
 * card form's confirmation and a billing clock for trying renewals).
 */
import { createRoute, z } from '@hono/zod-openapi';
import {
  AUTO_TOPUP_DEFAULTS,
  AUTO_TOPUP_THRESHOLDS,
  CREDITS_PER_BLOCK,
  MAX_TOPUP_DOLLARS,
  PLAN_IDS,
  PLANS,
  TOPUP_BLOCK_DOLLARS,
  TOPUP_PRESETS_DOLLARS,
  TRIAL,
} from '../billing/catalog.ts';
import { TEST_CARDS } from '../billing/sandbox/test-cards.ts';
import { isStripeProvider } from '../billing/stripe/stripe-provider.ts';
import type { ApiDeps } from '../context.ts';
import { apiKeyAuth } from '../middleware/api-key-auth/index.ts';
import { sessionAuth } from '../middleware/session-auth/index.ts';
import {
  apiKeySecurity,
  authedErrorResponses,
  bodyErrorResponses,
  dashboardErrorResponses,
  dashboardSecurity,
  errorExample,
  jsonBody,
  jsonResponse,
} from '../openapi/schemas.ts';
import { createRouter } from '../openapi/router.ts';
import { saveAutoTopUpSettings } from '../services/billing/auto-topup.ts';
import { createBilling, sandboxOf, type Billing } from '../services/billing/billing.ts';
import { cancelSubscription } from '../services/billing/cancel.ts';
import { billingAccount, createCustomer, existingCustomer } from '../services/billing/customer.ts';
import { generateInvoice } from '../services/billing/gen-invoice.ts';
import { addPaymentMethod, createSetupIntent, listPaymentMethods, makeDefaultPaymentMethod, removePaymentMethod } from '../services/billing/payment-methods.ts';
import { providerCall } from '../services/billing/provider-errors.ts';
import { subscribe } from '../services/billing/subscribe.ts';
import { topUp } from '../services/billing/topup.ts';
import { startTrial } from '../services/billing/trial.ts';

const SECRET_EXAMPLE = 'pi_sbx_5f0c2a7d9e1b3c4d6e8f0a1b_secret_0123456789abcdef0123456789abcdef';

function errorAnswer(description: string, msg: string, code: string) {
  return {
    description,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' }, example: errorExample({ msg, code }) } },
  };
}

const CustomerResponse = z
  .object({ customer_id: z.string().openapi({ description: "The payment provider's customer id." }) })
  .openapi('CustomerResponse', { example: { customer_id: 'cus_sbx_9a8b7c6d5e4f3a2b1c0d9e8f' } });

const ClientSecretResponse = z
  .object({ clientSecret: z.string().openapi({ description: 'Confirm it with the payment form (Stripe.js, or the sandbox card form).' }) })
  .openapi('ClientSecretResponse', { example: { clientSecret: SECRET_EXAMPLE } });

const SubscribeRequest = z
  .object({ plan: z.enum(PLAN_IDS).openapi({ description: 'The plan to subscribe or switch to; prices and credits come from the server catalog.' }) })
  .openapi('SubscribeRequest', { example: { plan: 'growth' } });

const TopupRequest = z
  .object({
    amount: z
      .unknown()
      .optional()
      .openapi({
        type: 'integer',
        description: `Dollars: ${TOPUP_PRESETS_DOLLARS.join(', ')} or any multiple of $${TOPUP_BLOCK_DOLLARS} up to ${MAX_TOPUP_DOLLARS} (a digit string is accepted too). $${TOPUP_BLOCK_DOLLARS} = ${CREDITS_PER_BLOCK} credits.`,
      }),
  })
  .openapi('TopupRequest', { example: { amount: 50 } });

const TopupResponse = z
  .object({ clientSecret: z.string(), amount: z.number().int().openapi({ description: 'Dollars.' }), credits: z.number().int() })
  .openapi('TopupResponse', { example: { clientSecret: SECRET_EXAMPLE, amount: 50, credits: 1250 } });

const TrialResponse = z
  .object({ clientSecret: z.string(), amount: z.number().openapi({ description: 'Dollars.' }), credits: z.number().int(), days: z.number().int() })
  .openapi('TrialResponse', { example: { clientSecret: SECRET_EXAMPLE, amount: 10, credits: 250, days: 7 } });

const CancelResponse = z
  .object({
    plan: z.string().openapi({ description: 'Kept until the paid period ends.' }),
    next_billing_date: z.null(),
    access_until: z.string().nullable().openapi({ description: 'When the plan ends (ISO 8601).' }),
  })
  .openapi('CancelResponse', { example: { plan: 'growth', next_billing_date: null, access_until: '2026-12-22T10:00:00.000Z' } });

const PaymentMethod = z
  .object({
    id: z.string(),
    brand: z.string(),
    last4: z.string(),
    exp_month: z.number().int(),
    exp_year: z.number().int(),
    name: z.string().nullable(),
    default: z.boolean(),
  })
  .openapi('PaymentMethod', {
    example: { id: 'pm_sbx_1a2b3c4d5e6f7a8b9c0d1e2f', brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030, name: 'Ada Lovelace', default: true },
  });

const PaymentMethodsResponse = z.object({ paymentMethods: z.array(PaymentMethod) }).openapi('PaymentMethodsResponse', {
  example: {
    paymentMethods: [
      { id: 'pm_sbx_1a2b3c4d5e6f7a8b9c0d1e2f', brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030, name: 'Ada Lovelace', default: true },
    ],
  },
});

const id = (description: string) => z.string().trim().min(1, 'Required').max(255, 'At most 255 characters').openapi({ description });

const PaymentMethodRequest = z
  .object({ paymentMethodId: id('One of your saved cards.') })
  .openapi('PaymentMethodRequest', { example: { paymentMethodId: 'pm_sbx_1a2b3c4d5e6f7a8b9c0d1e2f' } });

const SetupIntentResponse = z.object({ clientSecret: z.string(), setupIntentId: z.string() }).openapi('SetupIntentResponse', {
  example: { clientSecret: 'seti_sbx_0f1e2d3c4b5a69788796a5b4_secret_fedcba9876543210fedcba9876543210', setupIntentId: 'seti_sbx_0f1e2d3c4b5a69788796a5b4' },
});

const AddPaymentMethodRequest = z
  .object({ setupIntentId: id('The setup intent the card was confirmed with.'), paymentMethodId: id('The card it saved.') })
  .openapi('AddPaymentMethodRequest', { example: { setupIntentId: 'seti_sbx_0f1e2d3c4b5a69788796a5b4', paymentMethodId: 'pm_sbx_1a2b3c4d5e6f7a8b9c0d1e2f' } });

const AddPaymentMethodResponse = z.object({ paymentMethod: PaymentMethod }).openapi('AddPaymentMethodResponse', {
  example: { paymentMethod: { id: 'pm_sbx_1a2b3c4d5e6f7a8b9c0d1e2f', brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030, name: null, default: true } },
});

const GenInvoiceRequest = z
  .object({
    invoiceId: z
      .string()
      .trim()
      .min(1, 'Required')
      .max(100, 'At most 100 characters')
      .openapi({ description: 'Invoice number (INV-…), payment id or provider reference.' }),
  })
  .openapi('GenInvoiceRequest', { example: { invoiceId: 'INV-1001' } });

const AutoTopUpRequest = z
  .object({
    auto_topup: z.boolean(),
    auto_topup_min: z
      .number()
      .int()
      .openapi({ description: `Threshold in credits: ${AUTO_TOPUP_THRESHOLDS.join(', ')}.` }),
    auto_topup_amount: z
      .unknown()
      .optional()
      .openapi({ type: 'integer', description: `Dollars to buy, a multiple of $${TOPUP_BLOCK_DOLLARS}.` }),
  })
  .openapi('AutoTopUpRequest', { example: { auto_topup: true, auto_topup_min: 500, auto_topup_amount: 20 } });

const AutoTopUpResponse = z
  .object({
    auto_topup: z.boolean(),
    auto_topup_min: z.number().int(),
    auto_topup_amount: z.number().int(),
    auto_topup_failures: z.number().int().openapi({ description: 'Failed charges in a row.' }),
    auto_topup_disabled_reason: z.string().nullable().openapi({ description: 'Why auto top-up turned itself off, if it did.' }),
  })
  .openapi('AutoTopUpResponse', {
    example: { auto_topup: true, auto_topup_min: 500, auto_topup_amount: 20, auto_topup_failures: 0, auto_topup_disabled_reason: null },
  });

const BillingConfig = z
  .object({
    provider: z.enum(['sandbox', 'stripe']),
    publishable_key: z.string().nullable().openapi({ description: 'Stripe only: the publishable key for Stripe.js; null with the sandbox.' }),
    plans: z.array(z.object({ id: z.string(), label: z.string(), amount: z.number(), credits: z.number().int() })),
    topup: z.object({
      presets: z.array(z.number().int()),
      block_dollars: z.number().int(),
      credits_per_block: z.number().int(),
      max_dollars: z.number().int(),
    }),
    trial: z.object({ amount: z.number(), credits: z.number().int(), days: z.number().int() }),
    auto_topup: z.object({ thresholds: z.array(z.number().int()), default_min: z.number().int(), default_amount: z.number().int() }),
    test_cards: z
      .array(z.object({ number: z.string(), brand: z.string(), description: z.string() }))
      .openapi({ description: 'Sandbox only: the accepted test cards.' }),
  })
  .openapi('BillingConfig', {
    example: {
      provider: 'sandbox',
      publishable_key: null,
      plans: [{ id: 'basic', label: 'Basic', amount: 39, credits: 1000 }],
      topup: { presets: [10, 20, 50, 100, 200, 500], block_dollars: 10, credits_per_block: 250, max_dollars: 10000 },
      trial: { amount: 10, credits: 250, days: 7 },
      auto_topup: { thresholds: [250, 500, 1250, 2500], default_min: 250, default_amount: 10 },
      test_cards: [{ number: '4242424242424242', brand: 'visa', description: 'Succeeds' }],
    },
  });

const SandboxConfirmRequest = z
  .object({
    client_secret: z.string().min(1, 'Required').max(300, 'At most 300 characters'),
    card: z
      .object({
        number: z.string().max(40, 'At most 40 characters'),
        exp_month: z.number().int(),
        exp_year: z.number().int(),
        cvc: z.string().max(8, 'At most 8 characters'),
        name: z.string().max(200, 'At most 200 characters').nullish(),
      })
      .optional()
      .openapi({ description: 'A test card (never a real one).' }),
    payment_method: z.string().max(255, 'At most 255 characters').optional().openapi({ description: 'Or one of your saved cards.' }),
    three_d_secure: z.enum(['approve', 'fail']).optional().openapi({ description: 'The answer to the 3-D Secure step, when the intent requires_action.' }),
  })
  .openapi('SandboxConfirmRequest', {
    example: { client_secret: SECRET_EXAMPLE, card: { number: '4242 4242 4242 4242', exp_month: 12, exp_year: 2030, cvc: '123', name: 'Ada Lovelace' } },
  });

const SandboxConfirmResponse = z
  .object({
    object: z.enum(['payment_intent', 'setup_intent']),
    id: z.string(),
    status: z.string().openapi({ description: 'succeeded, requires_action (answer the 3-D Secure step) or requires_payment_method (see error).' }),
    payment_method: z.string().nullable(),
    next_action: z.object({ type: z.literal('sandbox_three_d_secure') }).nullable(),
    error: z.object({ code: z.string(), decline_code: z.string().optional(), message: z.string() }).nullable(),
  })
  .openapi('SandboxConfirmResponse', {
    example: {
      object: 'payment_intent',
      id: 'pi_sbx_5f0c2a7d9e1b3c4d6e8f0a1b',
      status: 'succeeded',
      payment_method: 'pm_sbx_1a2b3c4d5e6f7a8b9c0d1e2f',
      next_action: null,
      error: null,
    },
  });

const AdvanceClockRequest = z
  .object({ days: z.number().int().min(1, 'At least 1').max(400, 'At most 400') })
  .openapi('AdvanceClockRequest', { example: { days: 31 } });

const BillingStateResponse = z
  .object({ plan: z.string(), next_billing_date: z.string().nullable(), credits: z.number().int() })
  .openapi('BillingStateResponse', { example: { plan: 'growth', next_billing_date: '2027-01-22T10:00:00.000Z', credits: 22000 } });

/**
 * @example
 * app.route('/', billingRoutes(deps))
 */
export function billingRoutes(deps: ApiDeps, billing: Billing = createBilling({ ...deps, embedded: deps.config.embedded })) {
  const router = createRouter();
  // every call here moves money or shows cards and invoices: the dashboard session, not the API key alone
  const authed = { tags: ['Billing'], security: dashboardSecurity, middleware: sessionAuth(deps) };
  const keyAuthed = { tags: ['Billing'], security: apiKeySecurity, middleware: apiKeyAuth(deps) };
  const conflict = (msg: string) => errorAnswer('Not possible in the account’s current state.', msg, 'conflict');
  const notFound = (msg: string) => errorAnswer('No such object among yours.', msg, 'not_found');

  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/createCustomer',
      summary: 'Create the payment customer',
      description: 'Creates the provider customer when the account has none (idempotent). The other billing calls do it themselves when needed.',
      ...authed,
      responses: { 200: jsonResponse(CustomerResponse, 'The customer id.'), ...dashboardErrorResponses },
    }),
    async (c) => c.json(await createCustomer(billing, c.var.account), 200),
  );

  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/subscribe',
      summary: 'Subscribe or switch plan',
      description:
        'Starts a monthly subscription (or a plan change when one is active) whose first invoice is paid with the returned client secret. When the provider reports it paid, the plan, next_billing_date (+1 month) and the plan’s credits are applied. A plan change is billed in full and restarts the period.',
      ...authed,
      request: { body: jsonBody(SubscribeRequest) },
      responses: {
        200: jsonResponse(ClientSecretResponse, 'The invoice payment to confirm.'),
        409: conflict('You are already subscribed to this plan'),
        ...bodyErrorResponses,
        ...dashboardErrorResponses,
      },
    }),
    async (c) => c.json(await subscribe(billing, c.var.account, c.req.valid('json').plan), 200),
  );

  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/topup',
      summary: 'Buy credits',
      description: `A one-off payment of whole $${TOPUP_BLOCK_DOLLARS} blocks (${CREDITS_PER_BLOCK} credits each). Needs an active subscription. Credits arrive when the payment succeeds. Over the account’s monthly spending limit (/auth/spending-limits) it answers 409 with the limit’s message.`,
      ...authed,
      request: { body: jsonBody(TopupRequest) },
      responses: {
        200: jsonResponse(TopupResponse, 'The payment to confirm.'),
        409: conflict('Buying credits requires an active subscription. Subscribe to a plan first.'),
        ...bodyErrorResponses,
        ...dashboardErrorResponses,
      },
    }),
    async (c) => c.json(await topUp(billing, c.var.account, c.req.valid('json').amount), 200),
  );

  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/trial',
      summary: 'Start the trial',
      description: `$${TRIAL.amountCents / 100} for ${TRIAL.days} days (${TRIAL.credits} credits), once, for accounts without a plan. Calling again before paying returns the same payment.`,
      ...authed,
      responses: {
        200: jsonResponse(TrialResponse, 'The trial payment to confirm.'),
        409: conflict('The trial is only available once, to accounts without a plan'),
        ...dashboardErrorResponses,
      },
    }),
    async (c) => c.json(await startTrial(billing, c.var.account), 200),
  );

  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/cancel',
      summary: 'Cancel the subscription',
      description: 'Stops renewal. The plan stays until the paid period ends; next_billing_date is cleared now. Idempotent.',
      ...authed,
      responses: {
        200: jsonResponse(CancelResponse, 'The plan and when it ends.'),
        409: conflict('There is no active subscription to cancel'),
        ...dashboardErrorResponses,
      },
    }),
    async (c) => c.json(await cancelSubscription(billing, c.var.account), 200),
  );

  router.openapi(
    createRoute({
      method: 'get',
      path: '/auth/payment-methods',
      summary: 'List saved cards',
      ...authed,
      responses: { 200: jsonResponse(PaymentMethodsResponse, 'The saved cards, oldest first.'), ...dashboardErrorResponses },
    }),
    async (c) => c.json(await listPaymentMethods(billing, c.var.account), 200),
  );

  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/make-default-payment-method',
      summary: 'Set the default card',
      description: 'The default card pays renewals and auto top-ups.',
      ...authed,
      request: { body: jsonBody(PaymentMethodRequest) },
      responses: {
        200: jsonResponse(PaymentMethodsResponse, 'The saved cards after the change.'),
        404: notFound('Payment method not found'),
        ...bodyErrorResponses,
        ...dashboardErrorResponses,
      },
    }),
    async (c) => c.json(await makeDefaultPaymentMethod(billing, c.var.account, c.req.valid('json').paymentMethodId), 200),
  );

  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/remove-payment-method',
      summary: 'Remove a card',
      description:
        'When the default card is removed the newest other card becomes the default. The only card cannot be removed while a subscription renews or auto top-up is on.',
      ...authed,
      request: { body: jsonBody(PaymentMethodRequest) },
      responses: {
        200: jsonResponse(PaymentMethodsResponse, 'The saved cards after the change.'),
        404: notFound('Payment method not found'),
        409: conflict('This is the only card for your subscription or auto top-up. Add another card before removing it.'),
        ...bodyErrorResponses,
        ...dashboardErrorResponses,
      },
    }),
    async (c) => c.json(await removePaymentMethod(billing, c.var.account, c.req.valid('json').paymentMethodId), 200),
  );

  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/create-setup-intent',
      summary: 'Start adding a card',
      description: 'Confirm the client secret with a card, then call /auth/add-payment-method.',
      ...authed,
      responses: { 200: jsonResponse(SetupIntentResponse, 'The setup to confirm.'), ...dashboardErrorResponses },
    }),
    async (c) => c.json(await createSetupIntent(billing, c.var.account), 200),
  );

  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/add-payment-method',
      summary: 'Finish adding a card',
      description: 'Checks that the setup intent is yours, succeeded and saved this card; the first card becomes the default.',
      ...authed,
      request: { body: jsonBody(AddPaymentMethodRequest) },
      responses: {
        200: jsonResponse(AddPaymentMethodResponse, 'The saved card.'),
        404: notFound('Setup intent not found'),
        409: conflict('The card has not been confirmed yet'),
        ...bodyErrorResponses,
        ...dashboardErrorResponses,
      },
    }),
    async (c) => c.json(await addPaymentMethod(billing, c.var.account, c.req.valid('json')), 200),
  );

  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/gen-invoice',
      summary: 'Download an invoice',
      description: 'The PDF of one of your payments (see the payments table): number INV-…, date, plan, amount and status PAID.',
      ...authed,
      request: { body: jsonBody(GenInvoiceRequest) },
      responses: {
        200: { description: 'The invoice PDF.', content: { 'application/pdf': { schema: { type: 'string' as const, format: 'binary' } } } },
        404: notFound('Invoice not found'),
        ...bodyErrorResponses,
        ...dashboardErrorResponses,
      },
    }),
    async (c) => {
      const { filename, pdf } = await generateInvoice(billing, c.var.account, c.req.valid('json').invoiceId);
      return c.body(new Uint8Array(pdf), 200, {
        'Content-Type': 'application/pdf',
        'Content-Disposition': `attachment; filename="${filename}"`,
        'Cache-Control': 'private, no-store',
      });
    },
  );

  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/update-auto-topup',
      summary: 'Save auto top-up settings',
      description:
        'Threshold and amount for buying credits automatically with the default card. Turning it on needs a saved card, clears a previous failure, and tops up at once when the balance is already below the threshold.',
      ...authed,
      request: { body: jsonBody(AutoTopUpRequest) },
      responses: {
        200: jsonResponse(AutoTopUpResponse, 'The saved settings.'),
        409: conflict('Add a payment method before turning on auto top-up'),
        ...bodyErrorResponses,
        ...dashboardErrorResponses,
      },
    }),
    async (c) => c.json(await saveAutoTopUpSettings(billing, c.var.account, c.req.valid('json')), 200),
  );

  router.openapi(
    createRoute({
      method: 'get',
      path: '/billing/config',
      summary: 'Payment UI configuration',
      description: 'Which provider the payment form talks to, and the catalog (prices in dollars).',
      ...keyAuthed,
      responses: { 200: jsonResponse(BillingConfig, 'Provider and catalog.'), ...authedErrorResponses },
    }),
    (c) =>
      c.json(
        {
          provider: billing.provider.kind,
          publishable_key: isStripeProvider(billing.provider) ? billing.provider.publishableKey : null,
          plans: Object.values(PLANS).map((p) => ({ id: p.id, label: p.label, amount: p.amountCents / 100, credits: p.credits })),
          topup: {
            presets: [...TOPUP_PRESETS_DOLLARS],
            block_dollars: TOPUP_BLOCK_DOLLARS,
            credits_per_block: CREDITS_PER_BLOCK,
            max_dollars: MAX_TOPUP_DOLLARS,
          },
          trial: { amount: TRIAL.amountCents / 100, credits: TRIAL.credits, days: TRIAL.days },
          auto_topup: { thresholds: [...AUTO_TOPUP_THRESHOLDS], default_min: AUTO_TOPUP_DEFAULTS.min, default_amount: AUTO_TOPUP_DEFAULTS.amountDollars },
          test_cards: billing.provider.kind === 'sandbox' ? TEST_CARDS.map((t) => ({ number: t.number, brand: t.brand, description: t.description })) : [],
        },
        200,
      ),
  );

  const sandbox = sandboxOf(billing);
  if (!sandbox) return router;
  const sandboxAuthed = { ...authed, tags: ['Billing sandbox'] };

  router.openapi(
    createRoute({
      method: 'post',
      path: '/billing/sandbox/confirm',
      summary: 'Confirm a payment or card setup (sandbox)',
      description:
        'What the sandbox card form calls with a client secret from /auth/subscribe, /auth/topup, /auth/trial or /auth/create-setup-intent: Stripe test cards decide the outcome. requires_action: ask the user for the 3-D Secure step and call again with three_d_secure. Declines answer 200 with requires_payment_method and the error, as Stripe.js does. Only your own intents.',
      ...sandboxAuthed,
      request: { body: jsonBody(SandboxConfirmRequest) },
      responses: {
        200: jsonResponse(SandboxConfirmResponse, 'The intent after confirmation.'),
        404: notFound('No such payment or setup intent for this client secret'),
        ...bodyErrorResponses,
        ...dashboardErrorResponses,
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const customerId = await existingCustomer(billing, c.var.account, 'No such payment or setup intent for this client secret');
      const result = await providerCall(
        () =>
          sandbox.confirm(customerId, {
            clientSecret: body.client_secret,
            card: body.card,
            paymentMethodId: body.payment_method,
            threeDSecure: body.three_d_secure,
          }),
        'No such payment or setup intent for this client secret',
      );
      return c.json(result, 200);
    },
  );

  router.openapi(
    createRoute({
      method: 'post',
      path: '/billing/sandbox/advance-clock',
      summary: 'Move your billing clock forward (sandbox)',
      description:
        'Runs what would happen in the next `days`: renewals charge the default card (and grant the plan credits), a cancelled or unpayable subscription ends.',
      ...sandboxAuthed,
      request: { body: jsonBody(AdvanceClockRequest) },
      responses: { 200: jsonResponse(BillingStateResponse, 'The account after the clock ran.'), ...bodyErrorResponses, ...dashboardErrorResponses },
    }),
    async (c) => {
      const { days } = c.req.valid('json');
      const row = await billingAccount(billing, c.var.account);
      if (row.customer_id) await sandbox.advanceClock(row.customer_id, new Date(billing.now().getTime() + days * 86_400_000));
      const after = await billingAccount(billing, c.var.account);
      return c.json({ plan: after.plan, next_billing_date: after.next_billing_date?.toISOString() ?? null, credits: after.credits }, 200);
    },
  );

  return router;
}
