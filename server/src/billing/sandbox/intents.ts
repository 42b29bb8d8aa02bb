/**
 * @module Payment and setup intents in the sandbox: creating them, the card form's confirmation
 * (test cards decide the outcome, including declines and 3-D Secure) and off-session charges of
 * a saved card (auto top-up, renewals).
 */
import type { Queryable } from '@aim/supabase/db';
import type { PlanId } from '../catalog.ts';
import { ProviderError, type OffSessionResult, type PaymentCheckout, type PaymentIntentState } from '../payment-provider.ts';
import type { RecordEvent, SandboxContext } from './events.ts';
import type { SandboxProvider } from './sandbox-provider.ts';
import {
  clientSecretFor,
  declineError,
  insertIntent,
  intentByKey,
  missing,
  newId,
  ownedMethod,
  requireCustomer,
  S,
  type IntentRow,
  type MethodRow,
  type SandboxCardInput,
  type SandboxConfirmInput,
  type SandboxConfirmResult,
  type SetupRow,
} from './store.ts';
import { AUTHENTICATION_FAILED, AUTHENTICATION_REQUIRED, findTestCard, testCardByProfile, type Decline, type Outcome } from './test-cards.ts';

/**
 * Applies a card outcome to a payment intent: success pays it (and its invoice, activating
 * the subscription), a decline sends it back to requires_payment_method. Emits the events.
 */
async function settleIntent(
  tx: Queryable,
  record: RecordEvent,
  pi: IntentRow,
  method: MethodRow,
  outcome: 'ok' | Decline,
  at: Date,
): Promise<SandboxConfirmResult> {
  if (outcome !== 'ok') {
    const error = declineError(outcome);
    await tx.query(
      `update ${S}.payment_intents set status = 'requires_payment_method', payment_method = null, last_error = $2, updated_at = $3 where id = $1`,
      [pi.id, JSON.stringify(error), at],
    );
    if (pi.kind) {
      await record(
        {
          type: 'payment_intent.payment_failed',
          customerId: pi.customer_id,
          intentId: pi.id,
          kind: pi.kind,
          code: outcome.code,
          declineCode: outcome.declineCode,
          message: outcome.message,
          metadata: pi.metadata,
        },
        at,
      );
    }
    return { object: 'payment_intent', id: pi.id, status: 'requires_payment_method', payment_method: null, next_action: null, error };
  }

  await tx.query(`update ${S}.payment_intents set status = 'succeeded', payment_method = $2, last_error = null, updated_at = $3 where id = $1`, [
    pi.id,
    method.id,
    at,
  ]);
  if (pi.setup_future_usage && method.customer_id === null) {
    await tx.query(`update ${S}.payment_methods set customer_id = $2, set_up = true where id = $1`, [method.id, pi.customer_id]);
  }
  if (pi.invoice_id) {
    const { rows } = await tx.query<{
      subscription_id: string;
      plan: PlanId;
      billing_reason: 'subscription_create' | 'subscription_update' | 'subscription_cycle';
      current_period_end: Date;
    }>(
      `with paid as (
         update ${S}.invoices set status = 'paid', paid_at = $2 where id = $1 returning subscription_id, plan, billing_reason
       )
       update ${S}.subscriptions s
          set status = 'active', plan = paid.plan, cancel_at_period_end = false, default_payment_method = $3,
              current_period_end = case when paid.billing_reason = 'subscription_cycle' then s.current_period_end else $2::timestamptz end
                                   + interval '1 month'
         from paid where s.id = paid.subscription_id
       returning s.id as subscription_id, s.plan, paid.billing_reason, s.current_period_end`,
      [pi.invoice_id, at, method.id],
    );
    const paid = rows[0];
    await record(
      {
        type: 'invoice.paid',
        customerId: pi.customer_id,
        invoiceId: pi.invoice_id,
        subscriptionId: paid.subscription_id,
        plan: paid.plan,
        amountCents: pi.amount_cents,
        billingReason: paid.billing_reason,
        periodEnd: paid.current_period_end,
        paymentMethodId: method.id,
      },
      at,
    );
  } else if (pi.kind) {
    await record(
      {
        type: 'payment_intent.succeeded',
        customerId: pi.customer_id,
        intentId: pi.id,
        kind: pi.kind,
        amountCents: pi.amount_cents,
        currency: pi.currency,
        paymentMethodId: method.id,
        savedPaymentMethod: pi.setup_future_usage,
        metadata: pi.metadata,
      },
      at,
    );
  }
  return { object: 'payment_intent', id: pi.id, status: 'succeeded', payment_method: method.id, next_action: null, error: null };
}

async function settleSetup(
  tx: Queryable,
  record: RecordEvent,
  si: SetupRow,
  method: MethodRow,
  outcome: 'ok' | Decline,
  at: Date,
): Promise<SandboxConfirmResult> {
  if (outcome !== 'ok') {
    const error = declineError(outcome);
    await tx.query(`update ${S}.setup_intents set status = 'requires_payment_method', payment_method = null, last_error = $2, updated_at = $3 where id = $1`, [
      si.id,
      JSON.stringify(error),
      at,
    ]);
    return { object: 'setup_intent', id: si.id, status: 'requires_payment_method', payment_method: null, next_action: null, error };
  }
  await tx.query(`update ${S}.payment_methods set customer_id = $2, set_up = true where id = $1`, [method.id, si.customer_id]);
  await tx.query(`update ${S}.setup_intents set status = 'succeeded', payment_method = $2, last_error = null, updated_at = $3 where id = $1`, [
    si.id,
    method.id,
    at,
  ]);
  await record({ type: 'setup_intent.succeeded', customerId: si.customer_id, setupIntentId: si.id, paymentMethodId: method.id }, at);
  return { object: 'setup_intent', id: si.id, status: 'succeeded', payment_method: method.id, next_action: null, error: null };
}

async function createMethod(tx: Queryable, card: SandboxCardInput, at: Date): Promise<MethodRow> {
  const test = findTestCard(card.number);
  if (!test) throw new ProviderError('invalid_request', 'The sandbox accepts test cards only (for example 4242 4242 4242 4242)');
  const year = card.exp_year < 100 ? 2000 + card.exp_year : card.exp_year;
  if (!Number.isInteger(card.exp_month) || card.exp_month < 1 || card.exp_month > 12 || !Number.isInteger(year)) {
    throw new ProviderError('invalid_request', "Your card's expiration date is incomplete.");
  }
  // a card is valid through the last day of its expiry month
  if (Date.UTC(year, card.exp_month, 1) <= at.getTime()) throw new ProviderError('invalid_request', "Your card's expiration date is in the past.");
  if (!/^[0-9]{3,4}$/.test(card.cvc)) throw new ProviderError('invalid_request', "Your card's security code is incomplete.");
  const { rows } = await tx.query<MethodRow>(
    `insert into ${S}.payment_methods (id, profile, brand, last4, exp_month, exp_year, name) values ($1, $2, $3, $4, $5, $6, $7) returning *`,
    [newId('pm'), test.profile, test.brand, test.number.slice(-4), card.exp_month, year, card.name?.trim() || null],
  );
  return rows[0];
}

/** The payment method a confirmation uses: a new card, a saved one, or the one awaiting 3-D Secure. */
async function methodFor(tx: Queryable, customerId: string, input: SandboxConfirmInput, pending: string | null, at: Date): Promise<MethodRow> {
  if (input.card) return createMethod(tx, input.card, at);
  if (input.paymentMethodId) return ownedMethod(tx, customerId, input.paymentMethodId);
  if (pending) {
    const { rows } = await tx.query<MethodRow>(`select * from ${S}.payment_methods where id = $1`, [pending]);
    return rows[0];
  }
  throw new ProviderError('invalid_request', 'Provide a card to confirm with');
}

/**
 * The outcome of a step that may ask for 3-D Secure: without a decision the intent waits in
 * requires_action; 'approve' continues with `afterChallenge`, 'fail' declines.
 */
function decide(step: Outcome, decision: SandboxConfirmInput['threeDSecure'], afterChallenge: 'ok' | Decline): 'ok' | Decline | 'requires_action' {
  if (step !== '3ds') return step;
  if (!decision) return 'requires_action';
  return decision === 'fail' ? AUTHENTICATION_FAILED : afterChallenge;
}

/** An off-session charge of a saved card inside a transaction (auto top-up, renewals). */
export async function chargeSaved(tx: Queryable, record: RecordEvent, pi: IntentRow, method: MethodRow, at: Date): Promise<SandboxConfirmResult> {
  const rule = testCardByProfile(method.profile).offSession;
  const outcome: 'ok' | Decline = rule === 'if_set_up' ? (method.set_up ? 'ok' : AUTHENTICATION_REQUIRED) : rule;
  return settleIntent(tx, record, pi, method, outcome, at);
}

/**
 * @example
 * const { confirm } = sandboxIntents(ctx)
 */
export function sandboxIntents(
  ctx: SandboxContext,
): Pick<SandboxProvider, 'createPaymentIntent' | 'chargeOffSession' | 'retrievePaymentIntent' | 'createSetupIntent' | 'getSetupIntent' | 'confirm'> {
  const { db, now, withEvents, redeliver } = ctx;

  async function confirmPayment(customerId: string, pi: IntentRow, input: SandboxConfirmInput): Promise<SandboxConfirmResult> {
    if (pi.status === 'succeeded') {
      await redeliver(pi.invoice_id ?? pi.id);
      return { object: 'payment_intent', id: pi.id, status: pi.status, payment_method: pi.payment_method, next_action: null, error: null };
    }
    if (pi.status !== 'requires_payment_method' && pi.status !== 'requires_action') {
      throw new ProviderError('invalid_request', `This payment is ${pi.status} and cannot be confirmed`);
    }
    return withEvents(async (tx, record) => {
      const at = now();
      // re-read under a row lock: two confirmations of one intent must not both charge
      const { rows } = await tx.query<IntentRow>(`select * from ${S}.payment_intents where id = $1 for update`, [pi.id]);
      const current = rows[0];
      if (current.status !== 'requires_payment_method' && current.status !== 'requires_action') {
        return {
          object: 'payment_intent',
          id: current.id,
          status: current.status,
          payment_method: current.payment_method,
          next_action: null,
          error: current.last_error,
        };
      }
      const awaiting = current.status === 'requires_action' && !input.card && !input.paymentMethodId;
      const method = await methodFor(tx, customerId, input, awaiting ? current.payment_method : null, at);
      const card = testCardByProfile(method.profile);
      const step: Outcome = awaiting ? '3ds' : card.onSession;
      if (awaiting && !input.threeDSecure) throw new ProviderError('invalid_request', 'Complete or fail the 3-D Secure challenge');
      const after = card.afterChallenge ?? 'ok';
      const outcome = decide(step, input.threeDSecure, after === '3ds' ? 'ok' : after);
      if (outcome === 'requires_action') {
        await tx.query(`update ${S}.payment_intents set status = 'requires_action', payment_method = $2, last_error = null, updated_at = $3 where id = $1`, [
          current.id,
          method.id,
          at,
        ]);
        return {
          object: 'payment_intent',
          id: current.id,
          status: 'requires_action',
          payment_method: method.id,
          next_action: { type: 'sandbox_three_d_secure' },
          error: null,
        };
      }
      return settleIntent(tx, record, current, method, outcome, at);
    });
  }

  async function confirmSetup(customerId: string, si: SetupRow, input: SandboxConfirmInput): Promise<SandboxConfirmResult> {
    if (si.status === 'succeeded') {
      await redeliver(si.id);
      return { object: 'setup_intent', id: si.id, status: si.status, payment_method: si.payment_method, next_action: null, error: null };
    }
    if (si.status === 'canceled') throw new ProviderError('invalid_request', 'This setup is canceled and cannot be confirmed');
    return withEvents(async (tx, record) => {
      const at = now();
      const { rows } = await tx.query<SetupRow>(`select * from ${S}.setup_intents where id = $1 for update`, [si.id]);
      const current = rows[0];
      if (current.status === 'succeeded' || current.status === 'canceled') {
        return {
          object: 'setup_intent',
          id: current.id,
          status: current.status,
          payment_method: current.payment_method,
          next_action: null,
          error: current.last_error,
        };
      }
      const awaiting = current.status === 'requires_action' && !input.card && !input.paymentMethodId;
      const method = await methodFor(tx, customerId, input, awaiting ? current.payment_method : null, at);
      if (method.customer_id !== null && method.customer_id !== customerId) throw missing(`payment_method: '${method.id}'`);
      const card = testCardByProfile(method.profile);
      if (awaiting && !input.threeDSecure) throw new ProviderError('invalid_request', 'Complete or fail the 3-D Secure challenge');
      // a setup authorises without charging: a card declined only after its challenge still saves
      const outcome = decide(awaiting ? '3ds' : card.setup, input.threeDSecure, 'ok');
      if (outcome === 'requires_action') {
        await tx.query(`update ${S}.setup_intents set status = 'requires_action', payment_method = $2, last_error = null, updated_at = $3 where id = $1`, [
          current.id,
          method.id,
          at,
        ]);
        return {
          object: 'setup_intent',
          id: current.id,
          status: 'requires_action',
          payment_method: method.id,
          next_action: { type: 'sandbox_three_d_secure' },
          error: null,
        };
      }
      return settleSetup(tx, record, current, method, outcome, at);
    });
  }

  return {
    async createPaymentIntent({ customerId, kind, amountCents, credits, idempotencyKey }): Promise<PaymentCheckout> {
      return db.transaction(async (tx) => {
        await requireCustomer(tx, customerId);
        const pi =
          (await insertIntent(tx, { customerId, amountCents, kind, metadata: { kind, credits: String(credits) }, idempotencyKey })) ??
          (await intentByKey(tx, idempotencyKey));
        return { providerRef: pi.id, clientSecret: pi.client_secret };
      });
    },

    async chargeOffSession({ customerId, paymentMethodId, amountCents, credits, metadata, idempotencyKey }): Promise<OffSessionResult> {
      const result = await withEvents(async (tx, record) => {
        const method = await ownedMethod(tx, customerId, paymentMethodId);
        const pi = await insertIntent(tx, {
          customerId,
          amountCents,
          kind: 'auto_topup',
          metadata: { ...metadata, kind: 'auto_topup', credits: String(credits) },
          offSession: true,
          paymentMethod: paymentMethodId,
          idempotencyKey,
        });
        if (!pi) {
          // the same charge asked again: answer what happened the first time
          const done = await intentByKey(tx, idempotencyKey);
          return {
            object: 'payment_intent' as const,
            id: done.id,
            status: done.status,
            payment_method: done.payment_method,
            next_action: null,
            error: done.last_error,
          };
        }
        return chargeSaved(tx, record, pi, method, now());
      });
      if (result.status === 'succeeded') return { status: 'succeeded', intentId: result.id };
      const error = result.error ?? { code: 'processing_error', message: 'The payment did not complete' };
      return { status: 'failed', intentId: result.id, code: error.code, declineCode: error.decline_code, message: error.message };
    },

    async retrievePaymentIntent(customerId, intentId): Promise<PaymentIntentState> {
      const { rows } = await db.query<IntentRow>(`select * from ${S}.payment_intents where id = $1 and customer_id = $2`, [intentId, customerId]);
      const pi = rows[0];
      if (!pi) throw missing(`payment_intent: '${intentId}'`);
      if (pi.status === 'succeeded') {
        return {
          id: pi.id,
          status: 'succeeded',
          amountCents: pi.amount_cents,
          currency: pi.currency,
          paymentMethodId: pi.payment_method,
          metadata: pi.metadata,
        };
      }
      if (pi.status === 'processing') return { id: pi.id, status: 'processing' };
      // off-session nobody can answer a challenge; an intent never confirmed moved no money either
      const error =
        pi.status === 'requires_action'
          ? declineError(AUTHENTICATION_REQUIRED)
          : (pi.last_error ?? { code: 'payment_intent_unexpected_state', message: `The payment is ${pi.status.replaceAll('_', ' ')}` });
      return { id: pi.id, status: 'failed', code: error.code, declineCode: error.decline_code, message: error.message, metadata: pi.metadata };
    },

    async createSetupIntent({ customerId, idempotencyKey }) {
      return db.transaction(async (tx) => {
        await requireCustomer(tx, customerId);
        const id = newId('seti');
        await tx.query(
          `insert into ${S}.setup_intents (id, customer_id, status, client_secret, idempotency_key) values ($1, $2, 'requires_payment_method', $3, $4)
           on conflict (idempotency_key) do nothing`,
          [id, customerId, clientSecretFor(id), idempotencyKey],
        );
        const { rows } = await tx.query<{ id: string; client_secret: string }>(`select id, client_secret from ${S}.setup_intents where idempotency_key = $1`, [
          idempotencyKey,
        ]);
        return { setupIntentId: rows[0].id, clientSecret: rows[0].client_secret };
      });
    },

    async getSetupIntent(customerId, setupIntentId) {
      const { rows } = await db.query<SetupRow>(`select * from ${S}.setup_intents where id = $1 and customer_id = $2`, [setupIntentId, customerId]);
      if (!rows[0]) throw missing(`setup_intent: '${setupIntentId}'`);
      return { id: rows[0].id, status: rows[0].status, paymentMethodId: rows[0].payment_method };
    },

    async confirm(customerId, input) {
      const pi = await db.query<IntentRow>(`select * from ${S}.payment_intents where client_secret = $1 and customer_id = $2`, [
        input.clientSecret,
        customerId,
      ]);
      if (pi.rows[0]) return confirmPayment(customerId, pi.rows[0], input);
      const si = await db.query<SetupRow>(`select * from ${S}.setup_intents where client_secret = $1 and customer_id = $2`, [input.clientSecret, customerId]);
      if (si.rows[0]) return confirmSetup(customerId, si.rows[0], input);
      throw missing('payment or setup intent for this client secret');
    },
  };
}
