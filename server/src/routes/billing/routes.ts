/**
 * @module Billing calls (spec §7) under /auth/*: customer, subscribe, top-up, trial, cancel,
 * cards, invoices and auto top-up settings, all requiring the signed-in dashboard session
 * (the API key alone is refused: docs/decisions/0011-two-credentials.md); and GET /billing/config
 * for the payment UI. The sandbox's own calls are in sandbox-routes.ts.
 */
import { createRoute } from '@hono/zod-openapi';
import { CREDITS_PER_BLOCK, TOPUP_BLOCK_DOLLARS, TRIAL } from '../../billing/catalog.ts';
import { TEST_CARDS } from '../../billing/sandbox/test-cards.ts';
import { isStripeProvider } from '../../billing/stripe/stripe-provider.ts';
import type { MiddlewareHandler } from 'hono';
import type { ApiDeps, AuthedEnv } from '../../context.ts';
import { apiKeyAuth } from '../../middleware/api-key-auth/index.ts';
import { idempotency } from '../../middleware/idempotency/index.ts';
import { sessionAuth } from '../../middleware/session-auth/index.ts';
import { idempotencyKeyParameter } from '../../openapi/idempotency.ts';
import {
  apiKeySecurity,
  authedErrorResponses,
  bodyErrorResponses,
  dashboardErrorResponses,
  dashboardSecurity,
  jsonBody,
  jsonResponse,
} from '../../openapi/schemas.ts';
import { createRouter } from '../../openapi/router.ts';
import { saveAutoTopUpSettings } from '../../services/billing/auto-topup/settings.ts';
import { createBilling, type Billing } from '../../services/billing/billing.ts';
import { cancelSubscription } from '../../services/billing/cancel.ts';
import { createCustomer } from '../../services/billing/customer.ts';
import { generateInvoice } from '../../services/billing/gen-invoice.ts';
import {
  addPaymentMethod,
  createSetupIntent,
  listPaymentMethods,
  makeDefaultPaymentMethod,
  removePaymentMethod,
} from '../../services/billing/payment-methods.ts';
import { subscribe } from '../../services/billing/subscribe.ts';
import { topUp } from '../../services/billing/topup.ts';
import { startTrial } from '../../services/billing/trial.ts';
import { priceList } from '../../services/pricing/price-list.ts';
import {
  AddPaymentMethodRequest,
  AddPaymentMethodResponse,
  AutoTopUpRequest,
  AutoTopUpResponse,
  BillingConfig,
  CancelResponse,
  ClientSecretResponse,
  conflict,
  CustomerResponse,
  GenInvoiceRequest,
  notFound,
  PaymentMethodRequest,
  PaymentMethodsResponse,
  SetupIntentResponse,
  SubscribeRequest,
  TopupRequest,
  TopupResponse,
  TrialResponse,
} from './schemas.ts';

/**
 * @example
 * app.route('/', billingRoutes(deps))
 */
export function billingRoutes(deps: ApiDeps, billing: Billing = createBilling({ ...deps, embedded: deps.config.embedded })) {
  const router = createRouter();
  // every call here moves money or shows cards and invoices: the dashboard session, not the API key alone
  const authed = { tags: ['Billing'], security: dashboardSecurity, middleware: sessionAuth(deps) };
  const keyAuthed = { tags: ['Billing'], security: apiKeySecurity, middleware: apiKeyAuth(deps) };
  // the calls that start a charge also take an Idempotency-Key (middleware/idempotency)
  const charging = {
    middleware: [sessionAuth(deps), idempotency(deps)] as [MiddlewareHandler<AuthedEnv>, MiddlewareHandler<AuthedEnv>],
    parameters: [idempotencyKeyParameter],
  };

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
      ...charging,
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
      ...charging,
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
      ...charging,
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
          // the price list of GET /pricing: the same functions
          ...priceList(),
          test_cards: billing.provider.kind === 'sandbox' ? TEST_CARDS.map((t) => ({ number: t.number, brand: t.brand, description: t.description })) : [],
        },
        200,
      ),
  );

  return router;
}
