/**
 * @module The sandbox's calls under /billing/sandbox/*, mounted only when the sandbox provider
 * runs, each for the signed-in dashboard session and on the caller's own objects: the sandbox
 * card form's confirmation, a billing clock for trying renewals, and the money events (issue 20)
 * Stripe's dashboard or a bank would cause, so embedded mode and the journeys exercise every
 * path of the billing event handler: a refund (full or partial), a dispute opened and closed
 * (won or lost), and a renewal that fails. Each money event acts on one of the caller's
 * payments (the newest by default).
 */
import { createRoute } from '@hono/zod-openapi';
import type { SandboxMoneyResult } from '../../billing/sandbox/sandbox-provider.ts';
import type { ApiDeps } from '../../context.ts';
import { sessionAuth } from '../../middleware/session-auth/index.ts';
import { bodyErrorResponses, dashboardErrorResponses, dashboardSecurity, jsonBody, jsonResponse } from '../../openapi/schemas.ts';
import { createRouter } from '../../openapi/router.ts';
import { accountHold } from '../../services/billing/account-hold.ts';
import { sandboxOf, type Billing } from '../../services/billing/billing.ts';
import { billingAccount, existingCustomer } from '../../services/billing/customer.ts';
import { providerCall } from '../../services/billing/provider-errors.ts';
import {
  AdvanceClockRequest,
  BillingStateResponse,
  CloseDisputeRequest,
  DisputeRequest,
  FailRenewalResponse,
  MoneyEventResponse,
  notFound,
  RefundRequest,
  SandboxConfirmRequest,
  SandboxConfirmResponse,
} from './schemas.ts';

const NO_PAYMENT = 'No such payment among yours';

/**
 * @example
 * app.route('/', billingSandboxRoutes(deps, billing))   // no routes unless the sandbox runs
 */
export function billingSandboxRoutes(deps: ApiDeps, billing: Billing) {
  const router = createRouter();
  const sandbox = sandboxOf(billing);
  if (!sandbox) return router;
  const authed = { tags: ['Billing sandbox'], security: dashboardSecurity, middleware: sessionAuth(deps) };
  const errors = { 404: notFound(NO_PAYMENT), ...bodyErrorResponses, ...dashboardErrorResponses };

  async function answer(account: Parameters<typeof billingAccount>[1], result: SandboxMoneyResult) {
    const row = await billingAccount(billing, account);
    return {
      payment_ref: result.paymentRef,
      charge_id: result.chargeId,
      amount_cents: result.amountCents,
      amount_refunded_cents: result.amountRefundedCents,
      dispute_id: result.disputeId,
      dispute_status: result.disputeStatus,
      credits: row.credits,
      hold: (await accountHold(billing.db, account.id)) ?? null,
    };
  }

  router.openapi(
    createRoute({
      method: 'post',
      path: '/billing/sandbox/confirm',
      summary: 'Confirm a payment or card setup (sandbox)',
      description:
        'What the sandbox card form calls with a client secret from /auth/subscribe, /auth/topup, /auth/trial or /auth/create-setup-intent: Stripe test cards decide the outcome. requires_action: ask the user for the 3-D Secure step and call again with three_d_secure. Declines answer 200 with requires_payment_method and the error, as Stripe.js does. Only your own intents.',
      ...authed,
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
      ...authed,
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

  router.openapi(
    createRoute({
      method: 'post',
      path: '/billing/sandbox/refund',
      summary: 'Refund one of your payments (sandbox)',
      description:
        'As a refund from Stripe’s dashboard: charge.refunded with the total refunded. The payment’s credits are taken back in proportion (all of them for a full refund), even below zero.',
      ...authed,
      request: { body: jsonBody(RefundRequest, false) },
      responses: { 200: jsonResponse(MoneyEventResponse, 'The payment and your balance after the refund.'), ...errors },
    }),
    async (c) => {
      const body = c.req.valid('json') ?? {};
      const customerId = await existingCustomer(billing, c.var.account, NO_PAYMENT);
      const result = await providerCall(() => sandbox.refund(customerId, { paymentRef: body.payment_ref, amountCents: body.amount_cents }), NO_PAYMENT);
      return c.json(await answer(c.var.account, result), 200);
    },
  );

  router.openapi(
    createRoute({
      method: 'post',
      path: '/billing/sandbox/dispute',
      summary: 'Dispute one of your payments (sandbox)',
      description:
        'As a card holder’s bank opening a chargeback: charge.dispute.created. The disputed share of the payment’s credits is taken back and the account is on hold (no new tasks, no auto top-up) until the dispute closes.',
      ...authed,
      request: { body: jsonBody(DisputeRequest, false) },
      responses: { 200: jsonResponse(MoneyEventResponse, 'The payment, the open dispute and your balance.'), ...errors },
    }),
    async (c) => {
      const body = c.req.valid('json') ?? {};
      const customerId = await existingCustomer(billing, c.var.account, NO_PAYMENT);
      const result = await providerCall(() => sandbox.openDispute(customerId, { paymentRef: body.payment_ref, amountCents: body.amount_cents }), NO_PAYMENT);
      return c.json(await answer(c.var.account, result), 200);
    },
  );

  router.openapi(
    createRoute({
      method: 'post',
      path: '/billing/sandbox/dispute/close',
      summary: 'Close your open dispute as won or lost (sandbox)',
      description: 'charge.dispute.closed: won gives the disputed credits back (once); lost keeps them taken. Either way the dispute hold ends.',
      ...authed,
      request: { body: jsonBody(CloseDisputeRequest) },
      responses: { 200: jsonResponse(MoneyEventResponse, 'The payment, the closed dispute and your balance.'), ...errors },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const customerId = await existingCustomer(billing, c.var.account, NO_PAYMENT);
      const result = await providerCall(
        () => sandbox.closeDispute(customerId, { disputeId: body.dispute_id, outcome: body.outcome }),
        'No such open dispute among yours',
      );
      return c.json(await answer(c.var.account, result), 200);
    },
  );

  router.openapi(
    createRoute({
      method: 'post',
      path: '/billing/sandbox/fail-renewal',
      summary: 'Make your next renewal payment fail (sandbox)',
      description:
        'Renews your subscription now with a declined card: invoice.payment_failed, and the subscription is past due (no plan credits, auto top-up paused, top-ups refused) until a later run of the billing clock pays it with your default card.',
      ...authed,
      responses: {
        200: jsonResponse(FailRenewalResponse, 'The subscription and its unpaid renewal.'),
        404: notFound('No active subscription'),
        ...dashboardErrorResponses,
      },
    }),
    async (c) => {
      const customerId = await existingCustomer(billing, c.var.account, 'No active subscription');
      const failed = await providerCall(() => sandbox.failRenewal(customerId), 'No active subscription');
      return c.json(
        { subscription_id: failed.subscriptionId, invoice_id: failed.invoiceId, hold: (await accountHold(billing.db, c.var.account.id)) ?? null },
        200,
      );
    },
  );

  return router;
}
