/**
 * @module The sandbox payment provider: Stripe test mode without Stripe. Its objects
 * (customers, payment methods, subscriptions, invoices, payment and setup intents) live in
 * the billing_sandbox schema and follow Stripe's statuses; test cards (test-cards.ts) decide
 * every outcome, including declines and 3-D Secure. The browser confirms a client secret
 * through `confirm` (the sandbox card form's POST /billing/sandbox/confirm), and each state
 * change emits a provider event, stored like Stripe's event log and delivered after commit
 * to the billing event handler: the only place credits are granted.
 *
 * This adapter owns the SQL of its own schema (it stands in for the provider's database).
 * It refuses to exist in production (see select-provider.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Db, Queryable } from '@aim/supabase/db';
import { isPlanId, PLANS, type PlanId } from '../catalog.ts';
import {
  ProviderError,
  type BillingEvent,
  type BillingEventSink,
  type Card,
  type OffSessionResult,
  type PaymentCheckout,
  type PaymentIntentState,
  type PaymentKind,
  type PaymentProvider,
  type SetupIntentState,
  type SubscriptionCheckout,
} from '../payment-provider.ts';
import { AUTHENTICATION_FAILED, AUTHENTICATION_REQUIRED, findTestCard, testCardByProfile, type Decline, type Outcome } from './test-cards.ts';

const S = 'billing_sandbox';

interface SandboxCardInput {
  number: string;
  exp_month: number;
  exp_year: number;
  cvc: string;
  name?: string | null;
}

/** What the sandbox card form sends: a new card, a saved one, and/or the 3-D Secure decision. */
interface SandboxConfirmInput {
  clientSecret: string;
  card?: SandboxCardInput;
  paymentMethodId?: string;
  threeDSecure?: 'approve' | 'fail';
}

/** Shaped like the intent Stripe.js hands back from confirmPayment / confirmSetup. */
interface SandboxConfirmResult {
  object: 'payment_intent' | 'setup_intent';
  id: string;
  status: string;
  payment_method: string | null;
  next_action: { type: 'sandbox_three_d_secure' } | null;
  error: { code: string; decline_code?: string; message: string } | null;
}

export interface SandboxProvider extends PaymentProvider {
  readonly kind: 'sandbox';
  confirm(customerId: string, input: SandboxConfirmInput): Promise<SandboxConfirmResult>;
  /** Runs the customer's billing clock up to `to`: renewals and cancellations at period end. */
  advanceClock(customerId: string, to: Date): Promise<void>;
  /** Every event emitted for the customer, oldest first. */
  events(customerId: string): Promise<BillingEvent[]>;
  /**
   * Money events, as Stripe's dashboard (or a bank) would cause them, on one of the customer's
   * succeeded payments (`paymentRef`: pi:<intent> / in:<invoice>, or its bare id; default the
   * newest). A refund without an amount refunds what is left; a dispute without one disputes it.
   */
  refund(customerId: string, input: { paymentRef?: string; amountCents?: number }): Promise<SandboxMoneyResult>;
  openDispute(customerId: string, input: { paymentRef?: string; amountCents?: number }): Promise<SandboxMoneyResult>;
  /** Closes the customer's dispute (`disputeId`, default the newest open one) as won or lost. */
  closeDispute(customerId: string, input: { disputeId?: string; outcome: 'won' | 'lost' }): Promise<SandboxMoneyResult>;
  /** The next renewal of the live subscription fails now: invoice.payment_failed, subscription past_due. */
  failRenewal(customerId: string): Promise<{ subscriptionId: string; invoiceId: string }>;
}

export interface SandboxMoneyResult {
  paymentRef: string | null;
  chargeId: string;
  amountCents: number;
  amountRefundedCents: number;
  disputeId: string | null;
  disputeStatus: 'needs_response' | 'won' | 'lost' | null;
}

interface IntentRow {
  id: string;
  customer_id: string;
  amount_cents: number;
  currency: string;
  kind: PaymentKind | null;
  invoice_id: string | null;
  metadata: Record<string, string>;
  status: string;
  client_secret: string;
  setup_future_usage: boolean;
  payment_method: string | null;
  last_error: SandboxConfirmResult['error'];
  amount_refunded: number;
}

interface SetupRow {
  id: string;
  customer_id: string;
  status: SetupIntentState['status'];
  payment_method: string | null;
  last_error: SandboxConfirmResult['error'];
}

interface MethodRow {
  id: string;
  customer_id: string | null;
  profile: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  name: string | null;
  set_up: boolean;
}

interface SubscriptionRow {
  id: string;
  customer_id: string;
  plan: PlanId;
  status: string;
  cancel_at_period_end: boolean;
  current_period_end: Date | null;
  default_payment_method: string | null;
}

/** A renewal charged without a usable card (sandbox failRenewal, or no default card). */
const DECLINED_RENEWAL: Decline = { code: 'card_declined', declineCode: 'generic_decline', message: 'Your card was declined.' };
/** Days a past-due subscription is retried before it ends (Stripe's Smart Retries default to weeks). */
const PAST_DUE_GRACE_DAYS = 14;

function newId(prefix: string): string {
  return `${prefix}_sbx_${randomBytes(12).toString('hex')}`;
}

function clientSecretFor(id: string): string {
  return `${id}_secret_${randomBytes(16).toString('hex')}`;
}

/** Stripe's card.fingerprint: the same number, the same value. A sandbox card's number is its test profile. */
function fingerprintOf(profile: string): string {
  return `fp_sbx_${createHash('sha256').update(profile).digest('hex').slice(0, 16)}`;
}

function missing(what: string): ProviderError {
  return new ProviderError('resource_missing', `No such ${what}`);
}

function declineError(d: Decline): NonNullable<SandboxConfirmResult['error']> {
  return d.declineCode ? { code: d.code, decline_code: d.declineCode, message: d.message } : { code: d.code, message: d.message };
}

/** An event as stored: dates become ISO strings in JSON and come back as Dates. */
function reviveEvent(payload: Record<string, unknown>): BillingEvent {
  const event = { ...payload, created: new Date(payload.created as string) } as Record<string, unknown>;
  if (typeof payload.periodEnd === 'string') event.periodEnd = new Date(payload.periodEnd);
  if (typeof payload.currentPeriodEnd === 'string') event.currentPeriodEnd = new Date(payload.currentPeriodEnd);
  return event as unknown as BillingEvent;
}

function objectIdOf(event: BillingEvent): string {
  switch (event.type) {
    case 'payment_intent.succeeded':
    case 'payment_intent.payment_failed':
      return event.intentId;
    case 'invoice.paid':
      return event.invoiceId;
    case 'setup_intent.succeeded':
      return event.setupIntentId;
    case 'customer.subscription.deleted':
    case 'customer.subscription.updated':
      return event.subscriptionId;
    case 'invoice.payment_failed':
      return event.invoiceId;
    case 'charge.refunded':
      return event.chargeId;
    case 'charge.dispute.created':
    case 'charge.dispute.closed':
      return event.disputeId;
  }
}

/** A payment intent's charge (Stripe: latest_charge): ch_sbx_<the intent's suffix>. */
function chargeIdOf(intentId: string): string {
  return intentId.replace(/^pi_/, 'ch_');
}

/** The grant a sandbox payment intent paid for (handle-event.ts source keys). */
function paymentRefOfIntent(pi: Pick<IntentRow, 'id' | 'kind' | 'invoice_id'>): string | null {
  if (pi.invoice_id) return `in:${pi.invoice_id}`;
  return pi.kind ? `pi:${pi.id}` : null;
}

type NewEvent = BillingEvent extends infer E ? (E extends BillingEvent ? Omit<E, 'id' | 'created'> : never) : never;

/**
 * @example
 * const provider = createSandboxProvider({ db, emit: (event) => handleBillingEvent(deps, event) })
 */
export function createSandboxProvider(deps: { db: Db; emit: BillingEventSink; now?: () => Date }): SandboxProvider {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  /** Runs fn in a transaction that may record events, and delivers them after commit. */
  async function withEvents<T>(fn: (tx: Queryable, record: (e: NewEvent, at: Date) => Promise<void>) => Promise<T>): Promise<T> {
    const recorded: BillingEvent[] = [];
    const result = await db.transaction((tx) =>
      fn(tx, async (e, at) => {
        const event = { ...e, id: newId('evt'), created: at } as BillingEvent;
        await tx.query(`insert into ${S}.events (id, type, customer_id, object_id, payload, created_at) values ($1, $2, $3, $4, $5, $6)`, [
          event.id,
          event.type,
          event.customerId,
          objectIdOf(event),
          JSON.stringify(event),
          at,
        ]);
        recorded.push(event);
      }),
    );
    await deliver(recorded);
    return result;
  }

  async function deliver(events: BillingEvent[]): Promise<void> {
    for (const event of events) {
      await deps.emit(event);
      await db.query(`update ${S}.events set delivered_at = now() where id = $1`, [event.id]);
    }
  }

  /** Delivers the events of an object again, as a provider retries a webhook. */
  async function redeliver(objectId: string): Promise<void> {
    const { rows } = await db.query<{ payload: Record<string, unknown> }>(`select payload from ${S}.events where object_id = $1 order by seq`, [objectId]);
    await deliver(rows.map((r) => reviveEvent(r.payload)));
  }

  async function requireCustomer(q: Queryable, customerId: string): Promise<void> {
    const { rows } = await q.query(`select 1 from ${S}.customers where id = $1`, [customerId]);
    if (!rows[0]) throw missing(`customer: '${customerId}'`);
  }

  async function ownedMethod(q: Queryable, customerId: string, paymentMethodId: string): Promise<MethodRow> {
    const { rows } = await q.query<MethodRow>(`select * from ${S}.payment_methods where id = $1 and customer_id = $2`, [paymentMethodId, customerId]);
    if (!rows[0]) throw missing(`payment_method: '${paymentMethodId}'`);
    return rows[0];
  }

  async function insertIntent(
    tx: Queryable,
    i: {
      customerId: string;
      amountCents: number;
      kind: PaymentKind | null;
      invoiceId?: string;
      metadata?: Record<string, string>;
      offSession?: boolean;
      paymentMethod?: string;
      idempotencyKey?: string;
    },
  ): Promise<IntentRow | undefined> {
    const id = newId('pi');
    const { rows } = await tx.query<IntentRow>(
      `insert into ${S}.payment_intents
         (id, customer_id, amount_cents, kind, invoice_id, metadata, status, client_secret, setup_future_usage, off_session, payment_method, idempotency_key)
       values ($1, $2, $3, $4, $5, $6, 'requires_payment_method', $7, $8, $9, $10, $11)
       on conflict (idempotency_key) do nothing returning *`,
      [
        id,
        i.customerId,
        i.amountCents,
        i.kind,
        i.invoiceId ?? null,
        JSON.stringify(i.metadata ?? {}),
        clientSecretFor(id),
        !i.offSession,
        Boolean(i.offSession),
        i.paymentMethod ?? null,
        i.idempotencyKey ?? null,
      ],
    );
    return rows[0];
  }

  async function intentByKey(q: Queryable, key: string): Promise<IntentRow> {
    const { rows } = await q.query<IntentRow>(`select * from ${S}.payment_intents where idempotency_key = $1`, [key]);
    return rows[0];
  }

  /** An open invoice with its payment intent, in one transaction. */
  async function openInvoice(
    tx: Queryable,
    i: {
      customerId: string;
      subscriptionId: string;
      plan: PlanId;
      reason: 'subscription_create' | 'subscription_update' | 'subscription_cycle';
      idempotencyKey: string | null;
      at: Date;
    },
  ): Promise<{ invoiceId: string; intent: IntentRow } | undefined> {
    const invoiceId = newId('in');
    const { rows } = await tx.query(
      `insert into ${S}.invoices (id, customer_id, subscription_id, plan, amount_cents, billing_reason, status, idempotency_key, created_at)
       values ($1, $2, $3, $4, $5, $6, 'open', $7, $8) on conflict (idempotency_key) do nothing returning id`,
      [invoiceId, i.customerId, i.subscriptionId, i.plan, PLANS[i.plan].amountCents, i.reason, i.idempotencyKey, i.at],
    );
    if (!rows[0]) return undefined;
    const intent = await insertIntent(tx, {
      customerId: i.customerId,
      amountCents: PLANS[i.plan].amountCents,
      kind: null,
      invoiceId,
      offSession: i.reason === 'subscription_cycle',
    });
    await tx.query(`update ${S}.invoices set payment_intent_id = $2 where id = $1`, [invoiceId, intent!.id]);
    return { invoiceId, intent: intent! };
  }

  async function invoiceCheckoutByKey(q: Queryable, key: string): Promise<SubscriptionCheckout> {
    const { rows } = await q.query<{ id: string; subscription_id: string; client_secret: string }>(
      `select i.id, i.subscription_id, p.client_secret from ${S}.invoices i join ${S}.payment_intents p on p.id = i.payment_intent_id
        where i.idempotency_key = $1`,
      [key],
    );
    return { subscriptionId: rows[0].subscription_id, providerRef: rows[0].id, clientSecret: rows[0].client_secret };
  }

  /**
   * Applies a card outcome to a payment intent: success pays it (and its invoice, activating
   * the subscription), a decline sends it back to requires_payment_method. Emits the events.
   */
  async function settleIntent(
    tx: Queryable,
    record: (e: NewEvent, at: Date) => Promise<void>,
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
    record: (e: NewEvent, at: Date) => Promise<void>,
    si: SetupRow,
    method: MethodRow,
    outcome: 'ok' | Decline,
    at: Date,
  ): Promise<SandboxConfirmResult> {
    if (outcome !== 'ok') {
      const error = declineError(outcome);
      await tx.query(
        `update ${S}.setup_intents set status = 'requires_payment_method', payment_method = null, last_error = $2, updated_at = $3 where id = $1`,
        [si.id, JSON.stringify(error), at],
      );
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

  /** An off-session charge of a saved card inside a transaction (auto top-up, renewals). */
  async function chargeSaved(
    tx: Queryable,
    record: (e: NewEvent, at: Date) => Promise<void>,
    pi: IntentRow,
    method: MethodRow,
    at: Date,
  ): Promise<SandboxConfirmResult> {
    const rule = testCardByProfile(method.profile).offSession;
    const outcome: 'ok' | Decline = rule === 'if_set_up' ? (method.set_up ? 'ok' : AUTHENTICATION_REQUIRED) : rule;
    return settleIntent(tx, record, pi, method, outcome, at);
  }

  /** One of the customer's succeeded payment intents, by payment ref (pi:…, in:…, or a bare id), default the newest. */
  async function paidIntent(q: Queryable, customerId: string, paymentRef: string | undefined): Promise<IntentRow> {
    const ref = paymentRef?.replace(/^(pi|in):(?=(pi|in)_)/, '') ?? null;
    const { rows } = await q.query<IntentRow>(
      `select p.* from ${S}.payment_intents p
        where p.customer_id = $1 and p.status = 'succeeded' and ($2::text is null or p.id = $2 or p.invoice_id = $2)
        order by p.updated_at desc, p.id desc limit 1`,
      [customerId, ref],
    );
    if (!rows[0]) throw missing(paymentRef ? `payment: '${paymentRef}'` : 'succeeded payment');
    return rows[0];
  }

  function moneyResult(pi: IntentRow, dispute: { id: string; status: SandboxMoneyResult['disputeStatus'] } | null): SandboxMoneyResult {
    return {
      paymentRef: paymentRefOfIntent(pi),
      chargeId: chargeIdOf(pi.id),
      amountCents: pi.amount_cents,
      amountRefundedCents: pi.amount_refunded,
      disputeId: dispute?.id ?? null,
      disputeStatus: dispute?.status ?? null,
    };
  }

  /** Refunds `amountCents` of a succeeded intent (default: what is left) and emits charge.refunded with the new total. */
  async function refundIntent(customerId: string, intentId: string, amountCents: number | undefined): Promise<SandboxMoneyResult> {
    return withEvents(async (tx, record) => {
      const { rows } = await tx.query<IntentRow>(`select * from ${S}.payment_intents where id = $1 and customer_id = $2 for update`, [intentId, customerId]);
      const pi = rows[0];
      if (pi?.status !== 'succeeded') throw missing(`payment: '${intentId}'`);
      const left = pi.amount_cents - pi.amount_refunded;
      const amount = amountCents ?? left;
      if (!Number.isInteger(amount) || amount <= 0 || amount > left) {
        throw new ProviderError(
          'invalid_request',
          left > 0 ? `A refund is for a positive amount up to the ${left} cents not refunded yet` : 'This payment is fully refunded',
        );
      }
      const refunded = pi.amount_refunded + amount;
      const at = now();
      await tx.query(`update ${S}.payment_intents set amount_refunded = $2, updated_at = $3 where id = $1`, [pi.id, refunded, at]);
      const paymentRef = paymentRefOfIntent(pi);
      await record(
        { type: 'charge.refunded', customerId, chargeId: chargeIdOf(pi.id), paymentRef, amountCents: pi.amount_cents, amountRefundedCents: refunded },
        at,
      );
      return moneyResult({ ...pi, amount_refunded: refunded }, null);
    });
  }

  /** A renewal that could not be charged: the subscription goes past due (Stripe's dunning), the invoice stays open. */
  async function renewalFailed(
    tx: Queryable,
    record: (e: NewEvent, at: Date) => Promise<void>,
    sub: SubscriptionRow,
    opened: { invoiceId: string; intent: IntentRow },
    decline: Decline,
    at: Date,
  ): Promise<void> {
    await tx.query(`update ${S}.payment_intents set last_error = coalesce(last_error, $2), updated_at = $3 where id = $1 and status <> 'succeeded'`, [
      opened.intent.id,
      JSON.stringify(declineError(decline)),
      at,
    ]);
    await tx.query(`update ${S}.subscriptions set status = 'past_due' where id = $1`, [sub.id]);
    await record(
      { type: 'invoice.payment_failed', customerId: sub.customer_id, invoiceId: opened.invoiceId, subscriptionId: sub.id, billingReason: 'subscription_cycle' },
      at,
    );
  }

  /**
   * Stripe's dunning, shortened: each clock run retries a past-due subscription's open renewal
   * with its (possibly new) default card; paid, it is active again (invoice.paid); still unpaid
   * PAST_DUE_GRACE_DAYS after the failure, it ends.
   */
  async function retryPastDue(customerId: string, to: Date): Promise<void> {
    await withEvents(async (tx, record) => {
      const { rows } = await tx.query<SubscriptionRow & { invoice_id: string; invoice_created: Date }>(
        `select s.*, i.id as invoice_id, i.created_at as invoice_created from ${S}.subscriptions s
           join lateral (select id, created_at from ${S}.invoices where subscription_id = s.id and status = 'open' and billing_reason = 'subscription_cycle'
                          order by created_at desc limit 1) i on true
          where s.customer_id = $1 and s.status = 'past_due' for update of s`,
        [customerId],
      );
      for (const sub of rows) {
        const at = now();
        const intent = (await tx.query<IntentRow>(`select * from ${S}.payment_intents where invoice_id = $1`, [sub.invoice_id])).rows[0];
        const { rows: methods } = await tx.query<MethodRow>(
          `select pm.* from ${S}.payment_methods pm, ${S}.customers c
            where c.id = $1 and pm.customer_id = $1 and pm.id = coalesce($2, c.default_payment_method)`,
          [customerId, sub.default_payment_method],
        );
        const paid = intent && methods[0] ? (await chargeSaved(tx, record, intent, methods[0], at)).status === 'succeeded' : false;
        if (paid || to.getTime() < sub.invoice_created.getTime() + PAST_DUE_GRACE_DAYS * 86_400_000) continue;
        await tx.query(`update ${S}.invoices set status = 'uncollectible' where id = $1`, [sub.invoice_id]);
        await tx.query(`update ${S}.subscriptions set status = 'canceled' where id = $1`, [sub.id]);
        await record({ type: 'customer.subscription.deleted', customerId, subscriptionId: sub.id }, at);
      }
    });
  }

  const provider: SandboxProvider = {
    kind: 'sandbox',

    async createCustomer({ userId, email, idempotencyKey }) {
      const { rows } = await db.query<{ id: string }>(
        `with created as (
           insert into ${S}.customers (id, user_id, email, idempotency_key) values ($1, $2, $3, $4)
           on conflict do nothing returning id
         )
         select id from created union all
         select id from ${S}.customers where user_id = $2 or idempotency_key = $4
         limit 1`,
        [newId('cus'), userId, email, idempotencyKey],
      );
      if (rows[0]) return { customerId: rows[0].id };
      // a concurrent insert of the same key committed between the two halves: read it now
      const again = await db.query<{ id: string }>(`select id from ${S}.customers where user_id = $1`, [userId]);
      return { customerId: again.rows[0].id };
    },

    async createSubscription({ customerId, plan, idempotencyKey }) {
      return db.transaction(async (tx) => {
        await requireCustomer(tx, customerId);
        const subscriptionId = newId('sub');
        const { rows } = await tx.query(
          `insert into ${S}.subscriptions (id, customer_id, plan, status, idempotency_key) values ($1, $2, $3, 'incomplete', $4)
           on conflict (idempotency_key) do nothing returning id`,
          [subscriptionId, customerId, plan, idempotencyKey],
        );
        if (rows[0]) await openInvoice(tx, { customerId, subscriptionId, plan, reason: 'subscription_create', idempotencyKey, at: now() });
        return invoiceCheckoutByKey(tx, idempotencyKey);
      });
    },

    async changeSubscriptionPlan({ customerId, subscriptionId, plan, idempotencyKey }) {
      return db.transaction(async (tx) => {
        const { rows } = await tx.query(`select 1 from ${S}.subscriptions where id = $1 and customer_id = $2 and status in ('active', 'past_due')`, [
          subscriptionId,
          customerId,
        ]);
        if (!rows[0]) throw missing(`subscription: '${subscriptionId}'`);
        await openInvoice(tx, { customerId, subscriptionId, plan, reason: 'subscription_update', idempotencyKey, at: now() });
        return invoiceCheckoutByKey(tx, idempotencyKey);
      });
    },

    async cancelSubscription({ customerId, subscriptionId }) {
      const { rows } = await db.query<{ current_period_end: Date | null }>(
        `update ${S}.subscriptions set cancel_at_period_end = true where id = $1 and customer_id = $2 and status <> 'canceled' returning current_period_end`,
        [subscriptionId, customerId],
      );
      if (!rows[0]) throw missing(`subscription: '${subscriptionId}'`);
      return { currentPeriodEnd: rows[0].current_period_end };
    },

    async resumeSubscription({ customerId, subscriptionId }) {
      const { rows } = await db.query(
        `update ${S}.subscriptions set cancel_at_period_end = false where id = $1 and customer_id = $2 and status <> 'canceled' returning 1`,
        [subscriptionId, customerId],
      );
      if (!rows[0]) throw missing(`subscription: '${subscriptionId}'`);
    },

    async abandonSubscriptionCheckout({ customerId, invoiceId }) {
      await db.transaction(async (tx) => {
        const { rows } = await tx.query<{ subscription_id: string; payment_intent_id: string | null }>(
          `update ${S}.invoices set status = 'void' where id = $1 and customer_id = $2 and status = 'open' returning subscription_id, payment_intent_id`,
          [invoiceId, customerId],
        );
        const voided = rows[0];
        if (!voided) return;
        await tx.query(`update ${S}.payment_intents set status = 'canceled', updated_at = $2 where id = $1 and status <> 'succeeded'`, [
          voided.payment_intent_id,
          now(),
        ]);
        await tx.query(`update ${S}.subscriptions set status = 'canceled' where id = $1 and status = 'incomplete'`, [voided.subscription_id]);
      });
    },

    async subscriptionStatus(customerId, subscriptionId) {
      const { rows } = await db.query<{ status: string }>(`select status from ${S}.subscriptions where id = $1 and customer_id = $2`, [
        subscriptionId,
        customerId,
      ]);
      if (!rows[0]) throw missing(`subscription: '${subscriptionId}'`);
      return rows[0].status;
    },

    async cancelSubscriptionNow({ customerId, subscriptionId }) {
      await withEvents(async (tx, record) => {
        const { rows } = await tx.query(
          `update ${S}.subscriptions set status = 'canceled', cancel_at_period_end = false where id = $1 and customer_id = $2 and status <> 'canceled' returning 1`,
          [subscriptionId, customerId],
        );
        if (rows[0]) await record({ type: 'customer.subscription.deleted', customerId, subscriptionId }, now());
      });
    },

    async refundInvoicePayment({ customerId, invoiceId }) {
      const { rows } = await db.query<{ payment_intent_id: string; amount_cents: number }>(
        `select i.payment_intent_id, p.amount_cents from ${S}.invoices i join ${S}.payment_intents p on p.id = i.payment_intent_id
          where i.id = $1 and i.customer_id = $2 and i.status = 'paid'`,
        [invoiceId, customerId],
      );
      if (!rows[0]) throw new ProviderError('invalid_request', `Invoice ${invoiceId} has no paid payment to refund`);
      // the same invoice refunded again (a retried duplicate): nothing left to refund, same answer
      const left = await db.query<{ amount_refunded: number }>(`select amount_refunded from ${S}.payment_intents where id = $1`, [rows[0].payment_intent_id]);
      if (left.rows[0].amount_refunded < rows[0].amount_cents) await refundIntent(customerId, rows[0].payment_intent_id, undefined);
      return { chargeId: chargeIdOf(rows[0].payment_intent_id), amountCents: rows[0].amount_cents };
    },

    async refund(customerId, { paymentRef, amountCents }) {
      const pi = await paidIntent(db, customerId, paymentRef);
      return refundIntent(customerId, pi.id, amountCents);
    },

    async openDispute(customerId, { paymentRef, amountCents }) {
      const found = await paidIntent(db, customerId, paymentRef);
      return withEvents(async (tx, record) => {
        const { rows } = await tx.query<IntentRow>(`select * from ${S}.payment_intents where id = $1 for update`, [found.id]);
        const pi = rows[0];
        const open = await tx.query(`select 1 from ${S}.disputes where payment_intent_id = $1 and status = 'needs_response'`, [pi.id]);
        if (open.rows[0]) throw new ProviderError('invalid_request', 'This payment already has an open dispute');
        const amount = amountCents ?? pi.amount_cents - pi.amount_refunded;
        if (!Number.isInteger(amount) || amount <= 0 || amount > pi.amount_cents) {
          throw new ProviderError('invalid_request', 'A dispute is for a positive amount up to the payment');
        }
        const disputeId = newId('dp');
        const at = now();
        await tx.query(
          `insert into ${S}.disputes (id, customer_id, payment_intent_id, amount_cents, status, created_at) values ($1, $2, $3, $4, 'needs_response', $5)`,
          [disputeId, customerId, pi.id, amount, at],
        );
        const paymentRef = paymentRefOfIntent(pi);
        await record(
          {
            type: 'charge.dispute.created',
            customerId,
            disputeId,
            chargeId: chargeIdOf(pi.id),
            paymentRef,
            chargeAmountCents: pi.amount_cents,
            amountCents: amount,
            status: 'open',
          },
          at,
        );
        return moneyResult(pi, { id: disputeId, status: 'needs_response' });
      });
    },

    async closeDispute(customerId, { disputeId, outcome }) {
      return withEvents(async (tx, record) => {
        const { rows } = await tx.query<{ id: string; payment_intent_id: string; amount_cents: number }>(
          `select id, payment_intent_id, amount_cents from ${S}.disputes
            where customer_id = $1 and status = 'needs_response' and ($2::text is null or id = $2)
            order by created_at desc, id desc limit 1 for update`,
          [customerId, disputeId ?? null],
        );
        const dispute = rows[0];
        if (!dispute) throw missing(disputeId ? `dispute: '${disputeId}'` : 'open dispute');
        await tx.query(`update ${S}.disputes set status = $2 where id = $1`, [dispute.id, outcome]);
        const pi = (await tx.query<IntentRow>(`select * from ${S}.payment_intents where id = $1`, [dispute.payment_intent_id])).rows[0];
        await record(
          {
            type: 'charge.dispute.closed',
            customerId,
            disputeId: dispute.id,
            chargeId: chargeIdOf(pi.id),
            paymentRef: paymentRefOfIntent(pi),
            chargeAmountCents: pi.amount_cents,
            amountCents: dispute.amount_cents,
            status: outcome,
          },
          now(),
        );
        return moneyResult(pi, { id: dispute.id, status: outcome });
      });
    },

    async failRenewal(customerId) {
      return withEvents(async (tx, record) => {
        const { rows } = await tx.query<SubscriptionRow>(
          `select * from ${S}.subscriptions where customer_id = $1 and status = 'active' order by created_at desc limit 1 for update`,
          [customerId],
        );
        const sub = rows[0];
        if (!sub || !isPlanId(sub.plan)) throw missing('active subscription');
        const at = now();
        const opened = await openInvoice(tx, { customerId, subscriptionId: sub.id, plan: sub.plan, reason: 'subscription_cycle', idempotencyKey: null, at });
        await renewalFailed(tx, record, sub, opened!, DECLINED_RENEWAL, at);
        return { subscriptionId: sub.id, invoiceId: opened!.invoiceId };
      });
    },

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

    async listPaymentMethods(customerId): Promise<Card[]> {
      const { rows } = await db.query<MethodRow & { is_default: boolean }>(
        `select pm.*, pm.id = c.default_payment_method as is_default
           from ${S}.payment_methods pm join ${S}.customers c on c.id = pm.customer_id
          where pm.customer_id = $1 order by pm.created_at, pm.id`,
        [customerId],
      );
      return rows.map((r) => ({
        id: r.id,
        brand: r.brand,
        last4: r.last4,
        exp_month: r.exp_month,
        exp_year: r.exp_year,
        name: r.name,
        default: r.is_default,
        fingerprint: fingerprintOf(r.profile),
      }));
    },

    async setDefaultPaymentMethod(customerId, paymentMethodId) {
      await db.transaction(async (tx) => {
        await ownedMethod(tx, customerId, paymentMethodId);
        await tx.query(`update ${S}.customers set default_payment_method = $2 where id = $1`, [customerId, paymentMethodId]);
        // a subscription's own default beats the customer's (Stripe), so move it too
        await tx.query(`update ${S}.subscriptions set default_payment_method = $2 where customer_id = $1 and status <> 'canceled'`, [
          customerId,
          paymentMethodId,
        ]);
      });
    },

    async ensureDefaultPaymentMethod(customerId, paymentMethodId) {
      await db.query(
        `update ${S}.customers c set default_payment_method = $2
          where c.id = $1 and c.default_payment_method is null
            and exists (select 1 from ${S}.payment_methods pm where pm.id = $2 and pm.customer_id = $1)`,
        [customerId, paymentMethodId],
      );
    },

    async detachPaymentMethod(customerId, paymentMethodId) {
      await db.transaction(async (tx) => {
        await ownedMethod(tx, customerId, paymentMethodId);
        await tx.query(`update ${S}.payment_methods set customer_id = null where id = $1`, [paymentMethodId]);
        await tx.query(
          `update ${S}.customers set default_payment_method =
             (select id from ${S}.payment_methods where customer_id = $1 order by created_at desc, id desc limit 1)
           where id = $1 and default_payment_method = $2`,
          [customerId, paymentMethodId],
        );
        await tx.query(`update ${S}.subscriptions set default_payment_method = null where customer_id = $1 and default_payment_method = $2`, [
          customerId,
          paymentMethodId,
        ]);
      });
    },

    async invoicePdfUrl() {
      return null;
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

    async advanceClock(customerId, to) {
      await retryPastDue(customerId, to);
      // one period at a time, so a long jump renews (or ends) in order
      for (let period = 0; period < 36; period++) {
        const done = await withEvents(async (tx, record) => {
          const { rows } = await tx.query<SubscriptionRow>(
            `select * from ${S}.subscriptions where customer_id = $1 and status = 'active' and current_period_end <= $2
              order by current_period_end limit 1 for update`,
            [customerId, to],
          );
          const sub = rows[0];
          if (!sub || !isPlanId(sub.plan)) return true;
          const at = sub.current_period_end!;
          const end = async () => {
            await tx.query(`update ${S}.subscriptions set status = 'canceled' where id = $1`, [sub.id]);
            await record({ type: 'customer.subscription.deleted', customerId, subscriptionId: sub.id }, at);
          };
          if (sub.cancel_at_period_end) {
            await end();
            return false;
          }
          const opened = await openInvoice(tx, { customerId, subscriptionId: sub.id, plan: sub.plan, reason: 'subscription_cycle', idempotencyKey: null, at });
          const { rows: methods } = await tx.query<MethodRow>(
            `select pm.* from ${S}.payment_methods pm, ${S}.customers c
              where c.id = $1 and pm.customer_id = $1 and pm.id = coalesce($2, c.default_payment_method)`,
            [customerId, sub.default_payment_method],
          );
          const paid = methods[0] ? (await chargeSaved(tx, record, opened!.intent, methods[0], at)).status === 'succeeded' : false;
          // a renewal that cannot be charged: past due, retried by the next clock runs (retryPastDue)
          if (!paid) await renewalFailed(tx, record, sub, opened!, DECLINED_RENEWAL, at);
          return false;
        });
        if (done) return;
      }
    },

    async events(customerId) {
      const { rows } = await db.query<{ payload: Record<string, unknown> }>(`select payload from ${S}.events where customer_id = $1 order by seq`, [
        customerId,
      ]);
      return rows.map((r) => reviveEvent(r.payload));
    },
  };
  return provider;
}
