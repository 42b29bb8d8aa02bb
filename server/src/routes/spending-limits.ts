/**
 * @module GET and POST /auth/spending-limits: the account's spending controls (monthly
 * spending limit, auto top-up caps, low-balance alert), the month's usage and the last charge
 * each control refused (docs/decisions/0014-spending-controls.md). A route of its own rather
 * than more fields on /auth/update-auto-topup: the spending limit also bounds manual top-ups
 * and the alert has nothing to do with auto top-up. Dashboard session required, like every
 * money call.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { ApiDeps } from '../context.ts';
import { sessionAuth } from '../middleware/session-auth/index.ts';
import { bodyErrorResponses, dashboardErrorResponses, dashboardSecurity, jsonBody, jsonResponse } from '../openapi/schemas.ts';
import { createRouter } from '../openapi/router.ts';
import type { Billing } from '../services/billing/billing.ts';
import { getSpendingControls, saveSpendingControls, SPENDING_LIMITS } from '../services/billing/spending-controls.ts';

const { monthlySpendLimit, autoTopUpMaxPerDay, autoTopUpMonthlyCap, lowBalanceAlertAt } = SPENDING_LIMITS;
const fmt = (n: number) => n.toLocaleString('en-US');

/** A whole number within [min, max] (null allowed when `nullable`), one clear message for every way it can be wrong. */
function bounded(range: { min: number; max: number }, message: string) {
  return z.number({ error: message }).int(message).min(range.min, message).max(range.max, message);
}

const SPEND_LIMIT_MESSAGE = `Must be whole dollars from $${fmt(monthlySpendLimit.min)} to $${fmt(monthlySpendLimit.max)}, or null for no limit`;
const PER_DAY_MESSAGE = `Must be a whole number from ${autoTopUpMaxPerDay.min} to ${autoTopUpMaxPerDay.max}`;
const MONTHLY_CAP_MESSAGE = `Must be whole dollars from $${fmt(autoTopUpMonthlyCap.min)} to $${fmt(autoTopUpMonthlyCap.max)}`;
const ALERT_MESSAGE = `Must be whole credits from ${fmt(lowBalanceAlertAt.min)} to ${fmt(lowBalanceAlertAt.max)}, or null to turn the alert off`;

const SpendingLimitsRequest = z
  .object({
    monthly_spend_limit: bounded(monthlySpendLimit, SPEND_LIMIT_MESSAGE).nullable().optional().openapi({
      description:
        'Dollars that top-ups and auto top-ups together may charge per calendar month (UTC), counting pending ones; null: no limit (the default). Plan invoices and the trial do not count.',
    }),
    auto_topup_max_per_day: bounded(autoTopUpMaxPerDay, PER_DAY_MESSAGE)
      .optional()
      .openapi({ description: `Auto top-up charges per calendar day (UTC). Default ${autoTopUpMaxPerDay.default}.` }),
    auto_topup_monthly_cap: bounded(autoTopUpMonthlyCap, MONTHLY_CAP_MESSAGE)
      .optional()
      .openapi({ description: `Dollars of auto top-ups per calendar month (UTC). Default $${autoTopUpMonthlyCap.default}.` }),
    low_balance_alert_at: bounded(lowBalanceAlertAt, ALERT_MESSAGE).nullable().optional().openapi({
      description:
        'Credits: one email when a charge takes the balance below this, none again until the balance is back at or above it; null: off (the default).',
    }),
  })
  .openapi('SpendingLimitsRequest', {
    example: { monthly_spend_limit: 1000, auto_topup_max_per_day: 3, auto_topup_monthly_cap: 500, low_balance_alert_at: 500 },
  });

const Refusal = z
  .object({
    amount: z.number().openapi({ description: 'Dollars of the refused charge.' }),
    reason: z.enum(['monthly_spend_limit', 'auto_topup_daily_count', 'auto_topup_monthly_cap']),
    message: z.string(),
    created_at: z.string(),
  })
  .nullable();

const SpendingLimitsResponse = z
  .object({
    monthly_spend_limit: z.number().int().nullable(),
    auto_topup_max_per_day: z.number().int(),
    auto_topup_monthly_cap: z.number().int(),
    low_balance_alert_at: z.number().int().nullable(),
    usage: z
      .object({
        month_spend: z.number().openapi({ description: 'Dollars of top-ups and auto top-ups this month (UTC), charged or pending.' }),
        auto_topup_month: z.number().openapi({ description: 'Dollars of auto top-ups this month (UTC), charged or pending.' }),
        auto_topups_today: z.number().int().openapi({ description: 'Auto top-up charges today (UTC), charged or pending.' }),
      })
      .openapi({ description: 'What the limits count now.' }),
    last_refusal: z.object({ topup: Refusal, auto_topup: Refusal }).openapi({ description: 'The newest charge of each kind a limit refused, if any.' }),
    defaults: z.object({
      monthly_spend_limit: z.null(),
      auto_topup_max_per_day: z.number().int(),
      auto_topup_monthly_cap: z.number().int(),
      low_balance_alert_at: z.null(),
    }),
  })
  .openapi('SpendingLimitsResponse', {
    example: {
      monthly_spend_limit: 1000,
      auto_topup_max_per_day: 3,
      auto_topup_monthly_cap: 500,
      low_balance_alert_at: 500,
      usage: { month_spend: 990, auto_topup_month: 60, auto_topups_today: 1 },
      last_refusal: {
        topup: null,
        auto_topup: {
          amount: 20,
          reason: 'monthly_spend_limit',
          message: 'Monthly spending limit of $1000 reached: $990 already charged or pending this month, so the $20 auto top-up would go over it.',
          created_at: '2026-11-28T10:00:00.000Z',
        },
      },
      defaults: { monthly_spend_limit: null, auto_topup_max_per_day: 3, auto_topup_monthly_cap: 500, low_balance_alert_at: null },
    },
  });

/**
 * @example
 * app.route('/', spendingLimitRoutes(deps, billing))
 */
export function spendingLimitRoutes(deps: ApiDeps, billing: Billing) {
  const router = createRouter();
  const authed = { tags: ['Billing'], security: dashboardSecurity, middleware: sessionAuth(deps) };

  // GET /auth/spending-limits – the controls, this month's usage and the last refusals
  router.openapi(
    createRoute({
      method: 'get',
      path: '/auth/spending-limits',
      summary: 'Read spending controls',
      description: 'The monthly spending limit, auto top-up caps and low-balance alert, what they count this month, and the last charge each refused.',
      ...authed,
      responses: { 200: jsonResponse(SpendingLimitsResponse, 'The controls and usage.'), ...dashboardErrorResponses },
    }),
    async (c) => c.json(await getSpendingControls(billing, c.var.account), 200),
  );

  // POST /auth/spending-limits – saves the fields given (absent: unchanged; null: none/off)
  router.openapi(
    createRoute({
      method: 'post',
      path: '/auth/spending-limits',
      summary: 'Save spending controls',
      description:
        'Saves the fields given; absent fields keep their value, null turns the limit or alert off. The database enforces the limits when a top-up or auto top-up is opened: a top-up over the monthly limit answers 409 with the reason, a refused auto top-up is recorded and shown here. Any change lets a refused auto top-up try again at once.',
      ...authed,
      request: { body: jsonBody(SpendingLimitsRequest) },
      responses: { 200: jsonResponse(SpendingLimitsResponse, 'The saved controls.'), ...bodyErrorResponses, ...dashboardErrorResponses },
    }),
    async (c) => c.json(await saveSpendingControls(billing, c.var.account, c.req.valid('json')), 200),
  );

  return router;
}
