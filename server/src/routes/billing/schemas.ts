/**
 * @module The zod/OpenAPI schemas of the billing calls (routes.ts) and of the sandbox's
 * calls (sandbox-routes.ts), and their documented error answers.
 */
import { z } from '@hono/zod-openapi';
import { AUTO_TOPUP_THRESHOLDS, CREDITS_PER_BLOCK, MAX_TOPUP_DOLLARS, PLAN_IDS, TOPUP_BLOCK_DOLLARS, TOPUP_PRESETS_DOLLARS } from '../../billing/catalog.ts';
import { errorExample } from '../../openapi/schemas.ts';

const SECRET_EXAMPLE = 'pi_sbx_5f0c2a7d9e1b3c4d6e8f0a1b_secret_0123456789abcdef0123456789abcdef';

function errorAnswer(description: string, msg: string, code: string) {
  return {
    description,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' }, example: errorExample({ msg, code }) } },
  };
}

/** 409: the call is not possible in the account's current state. */
export const conflict = (msg: string) => errorAnswer('Not possible in the account’s current state.', msg, 'conflict');
/** 404: the object named is not among the caller's. */
export const notFound = (msg: string) => errorAnswer('No such object among yours.', msg, 'not_found');

export const CustomerResponse = z
  .object({ customer_id: z.string().openapi({ description: "The payment provider's customer id." }) })
  .openapi('CustomerResponse', { example: { customer_id: 'cus_sbx_9a8b7c6d5e4f3a2b1c0d9e8f' } });

export const ClientSecretResponse = z
  .object({ clientSecret: z.string().openapi({ description: 'Confirm it with the payment form (Stripe.js, or the sandbox card form).' }) })
  .openapi('ClientSecretResponse', { example: { clientSecret: SECRET_EXAMPLE } });

export const SubscribeRequest = z
  .object({ plan: z.enum(PLAN_IDS).openapi({ description: 'The plan to subscribe or switch to; prices and credits come from the server catalog.' }) })
  .openapi('SubscribeRequest', { example: { plan: 'growth' } });

export const TopupRequest = z
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

export const TopupResponse = z
  .object({ clientSecret: z.string(), amount: z.number().int().openapi({ description: 'Dollars.' }), credits: z.number().int() })
  .openapi('TopupResponse', { example: { clientSecret: SECRET_EXAMPLE, amount: 50, credits: 1250 } });

export const TrialResponse = z
  .object({ clientSecret: z.string(), amount: z.number().openapi({ description: 'Dollars.' }), credits: z.number().int(), days: z.number().int() })
  .openapi('TrialResponse', { example: { clientSecret: SECRET_EXAMPLE, amount: 10, credits: 250, days: 7 } });

export const CancelResponse = z
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

export const PaymentMethodsResponse = z.object({ paymentMethods: z.array(PaymentMethod) }).openapi('PaymentMethodsResponse', {
  example: {
    paymentMethods: [
      { id: 'pm_sbx_1a2b3c4d5e6f7a8b9c0d1e2f', brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030, name: 'Ada Lovelace', default: true },
    ],
  },
});

const id = (description: string) => z.string().trim().min(1, 'Required').max(255, 'At most 255 characters').openapi({ description });

export const PaymentMethodRequest = z
  .object({ paymentMethodId: id('One of your saved cards.') })
  .openapi('PaymentMethodRequest', { example: { paymentMethodId: 'pm_sbx_1a2b3c4d5e6f7a8b9c0d1e2f' } });

export const SetupIntentResponse = z.object({ clientSecret: z.string(), setupIntentId: z.string() }).openapi('SetupIntentResponse', {
  example: { clientSecret: 'seti_sbx_0f1e2d3c4b5a69788796a5b4_secret_fedcba9876543210fedcba9876543210', setupIntentId: 'seti_sbx_0f1e2d3c4b5a69788796a5b4' },
});

export const AddPaymentMethodRequest = z
  .object({ setupIntentId: id('The setup intent the card was confirmed with.'), paymentMethodId: id('The card it saved.') })
  .openapi('AddPaymentMethodRequest', { example: { setupIntentId: 'seti_sbx_0f1e2d3c4b5a69788796a5b4', paymentMethodId: 'pm_sbx_1a2b3c4d5e6f7a8b9c0d1e2f' } });

export const AddPaymentMethodResponse = z.object({ paymentMethod: PaymentMethod }).openapi('AddPaymentMethodResponse', {
  example: { paymentMethod: { id: 'pm_sbx_1a2b3c4d5e6f7a8b9c0d1e2f', brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030, name: null, default: true } },
});

export const GenInvoiceRequest = z
  .object({
    invoiceId: z
      .string()
      .trim()
      .min(1, 'Required')
      .max(100, 'At most 100 characters')
      .openapi({ description: 'Invoice number (INV-…), payment id or provider reference.' }),
  })
  .openapi('GenInvoiceRequest', { example: { invoiceId: 'INV-1001' } });

export const AutoTopUpRequest = z
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

export const AutoTopUpResponse = z
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

/** One action's price (GET /pricing, GET /billing/config). */
export const ActionPrice = z
  .object({
    type: z.string().openapi({ description: 'The task type (`imagine`, `upscale#1`, `faceswap`, …), as POST /fetch shows it.' }),
    credits: z.number().int().openapi({ description: 'Credits held when the task is created, refunded if it fails.' }),
    per: z.enum(['photo', 'second']).nullable().openapi({
      description: 'For the types priced by quantity: credits per photo (AI photo training and generation) or per second of video; null: per task.',
    }),
  })
  .openapi('ActionPrice', { example: { type: 'imagine', credits: 4, per: null } });

export const BillingConfig = z
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
    actions: z.array(ActionPrice).openapi({ description: 'Credits per action (task type), as GET /pricing lists them.' }),
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
      actions: [
        { type: 'imagine', credits: 4, per: null },
        { type: 'upscale#1', credits: 2, per: null },
      ],
      test_cards: [{ number: '4242424242424242', brand: 'visa', description: 'Succeeds' }],
    },
  });

// the sandbox's calls (sandbox-routes.ts)

export const SandboxConfirmRequest = z
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

export const SandboxConfirmResponse = z
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

export const AdvanceClockRequest = z
  .object({ days: z.number().int().min(1, 'At least 1').max(400, 'At most 400') })
  .openapi('AdvanceClockRequest', { example: { days: 31 } });

export const BillingStateResponse = z
  .object({ plan: z.string(), next_billing_date: z.string().nullable(), credits: z.number().int() })
  .openapi('BillingStateResponse', { example: { plan: 'growth', next_billing_date: '2027-01-22T10:00:00.000Z', credits: 22000 } });

const PaymentRef = z
  .string()
  .min(1, 'Required')
  .max(200, 'At most 200 characters')
  .optional()
  .openapi({ description: 'Which of your payments: pi:<intent>, in:<invoice>, or the bare id (payments.provider_ref). Default: your newest payment.' });

const optionalCents = (description: string) => z.number().int().min(1, 'At least 1').max(100_000_000, 'At most 100000000').optional().openapi({ description });

export const RefundRequest = z
  .object({
    payment_ref: PaymentRef,
    amount_cents: optionalCents('Cents to refund; default: all that is not refunded yet.'),
  })
  .openapi('SandboxRefundRequest', { example: { payment_ref: 'in:in_sbx_5f0c2a7d9e1b3c4d6e8f0a1b', amount_cents: 1950 } });

export const DisputeRequest = z
  .object({
    payment_ref: PaymentRef,
    amount_cents: optionalCents('Cents disputed; default: the payment less its refunds.'),
  })
  .openapi('SandboxDisputeRequest', { example: { payment_ref: 'pi:pi_sbx_5f0c2a7d9e1b3c4d6e8f0a1b' } });

export const CloseDisputeRequest = z
  .object({
    dispute_id: z.string().min(1, 'Required').max(200, 'At most 200 characters').optional().openapi({ description: 'Default: your newest open dispute.' }),
    outcome: z.enum(['won', 'lost']).openapi({ description: 'won gives the credits back; lost keeps them taken.' }),
  })
  .openapi('SandboxCloseDisputeRequest', { example: { outcome: 'won' } });

const HOLDS = ['dispute', 'negative_balance', 'past_due'] as const;

export const MoneyEventResponse = z
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

export const FailRenewalResponse = z
  .object({
    subscription_id: z.string(),
    invoice_id: z.string().openapi({ description: 'The renewal invoice left open (the next clock runs retry it with your default card).' }),
    hold: z.enum(HOLDS).nullable(),
  })
  .openapi('SandboxFailRenewalResponse', {
    example: { subscription_id: 'sub_sbx_5f0c2a7d9e1b3c4d6e8f0a1b', invoice_id: 'in_sbx_0a1b2c3d4e5f6a7b8c9d0e1f', hold: 'past_due' },
  });
