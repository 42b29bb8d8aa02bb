/**
 * @module Money events in the sandbox (issue 20): what Stripe's dashboard or a bank would do to
 * a payment, as calls, so embedded mode and the journeys exercise every path of the billing
 * event handler: a refund (full or partial), a dispute opened and closed (won or lost), and a
 * renewal that fails. Mounted only when the sandbox provider runs; each call acts on one of the
 * caller's own payments (the newest by default) and needs the signed-in dashboard session.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { SandboxMoneyResult } from '../billing/sandbox/sandbox-provider.ts';
import type { ApiDeps } from '../context.ts';
import { sessionAuth } from '../middleware/session-auth/index.ts';
import { bodyErrorResponses, dashboardErrorResponses, dashboardSecurity, errorExample, jsonBody, jsonResponse } from '../openapi/schemas.ts';
import { createRouter } from '../openapi/router.ts';
import { accountHold } from '../services/billing/account-hold.ts';
import { sandboxOf, type Billing } from '../services/billing/billing.ts';
import { billingAccount, existingCustomer } from '../services/billing/customer.ts';
import { providerCall } from '../services/billing/provider-errors.ts';

const NO_PAYMENT = 'No such payment among yours';

const PaymentRef = z
  .string()
  .min(1, 'Required')
  .max(200, 'At most 200 characters')
  .optional()
  .openapi({ description: 'Which of your payments: pi:<intent>, in:<invoice>, or the bare id (payments.provider_ref). Default: your newest payment.' });

const RefundRequest = z
  .object({
    payment_ref: PaymentRef,
    amount_cents: z
      .number()
      .int()
      .min(1, 'At least 1')
      .max(100_000_000, 'At most 100000000')
      .optional()
      .openapi({ description: 'Cents to refund; default: all that is not refunded yet.' }),
  })
  .openapi('SandboxRefundRequest', { example: { payment_ref: 'in:in_sbx_5f0c2a7d9e1b3c4d6e8f0a1b', amount_cents: 1950 } });

const DisputeRequest = z
  .object({
    payment_ref: PaymentRef,
    amount_cents: z
      .number()
      .int()
      .min(1, 'At least 1')
      .max(100_000_000, 'At most 100000000')
      .optional()
      .openapi({ description: 'Cents disputed; default: the payment less its refunds.' }),
  })
  .openapi('SandboxDisputeRequest', { example: { payment_ref: 'pi:pi_sbx_5f0c2a7d9e1b3c4d6e8f0a1b' } });

const CloseDisputeRequest = z
  .object({
    dispute_id: z.string().min(1, 'Required').max(200, 'At most 200 characters').optional().openapi({ description: 'Default: your newest open dispute.' }),
    outcome: z.enum(['won', 'lost']).openapi({ description: 'won gives the credits back; lost keeps them taken.' }),
  })
  .openapi('SandboxCloseDisputeRequest', { example: { outcome: 'won' } });

const HOLDS = ['dispute', 'negative_balance', 'past_due'] as const;

const MoneyEventResponse = z
  .object({
    payment_ref: z.string().nullable().openapi({ description: 'The payment (its grant’s source key).' }),
    charge_id: z.string(),
    amount_cents: z.number().int().openapi({ description: 'The payment’s amount.' }),
    amount_refunded_cents: z.number().int().openapi({ description: 'Refunded so far, in total.' }),
    dispute_id: z.string().nullable(),
    dispute_status: z.enum(['needs_response', 'won', 'lost']).nullable(),
    credits: z.number().int().openapi({ description: 'Your balance afterwards (it may be negative).' }),
    hold: z.enum(HOLDS).nullable().openapi({ description: 'Why the account is on hold now, if it is.' }),
  })
  .openapi('SandboxMoneyEventResponse', {
    example: {
      payment_ref: 'in:in_sbx_5f0c2a7d9e1b3c4d6e8f0a1b',
      charge_id: 'ch_sbx_5f0c2a7d9e1b3c4d6e8f0a1b',
      amount_cents: 3900,
      amount_refunded_cents: 1950,
      dispute_id: null,
      dispute_status: null,
      credits: 500,
      hold: null,
    },
  });

const FailRenewalResponse = z
  .object({
    subscription_id: z.string(),
    invoice_id: z.string().openapi({ description: 'The renewal invoice left open (the next clock runs retry it with your default card).' }),
    hold: z.enum(HOLDS).nullable(),
  })
  .openapi('SandboxFailRenewalResponse', {
    example: { subscription_id: 'sub_sbx_5f0c2a7d9e1b3c4d6e8f0a1b', invoice_id: 'in_sbx_0a1b2c3d4e5f6a7b8c9d0e1f', hold: 'past_due' },
  });

function notFound(msg: string) {
  return {
    description: 'No such object among yours.',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' }, example: errorExample({ msg, code: 'not_found' }) } },
  };
}

/**
 * @example
 * app.route('/', billingSandboxEventRoutes(deps, billing))   // no routes unless the sandbox runs
 */
export function billingSandboxEventRoutes(deps: ApiDeps, billing: Billing) {
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
