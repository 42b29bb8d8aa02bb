/**
 * @module Billing's SQL: the billing fields of mdusers, the subscription state, checkouts,
 * auto top-up attempts, and payments (the invoices). Credits move only through
 * public.apply_credit. Every statement is scoped by the caller's user id or by a provider
 * object id the provider reported, never by an id from a request body alone.
 */
import type { Queryable } from '@aim/supabase/db';

export interface BillingAccount {
  id: string;
  email: string;
  credits: number;
  plan: string;
  customer_id: string | null;
  next_billing_date: Date | null;
  trialed: boolean;
  auto_topup: boolean;
  auto_topup_min: number;
  auto_topup_amount: number;
  auto_topup_failures: number;
  auto_topup_disabled_reason: string | null;
  /** A spending control refused the last auto top-up: not tried again before this. */
  auto_topup_refused_until: Date | null;
}

export interface SubscriptionState {
  subscription_id: string;
  plan: string;
  status: 'active' | 'past_due' | 'canceled';
  current_period_end: Date | null;
  cancel_at_period_end: boolean;
}

export interface Checkout {
  id: string;
  kind: 'subscription' | 'trial';
  plan: string | null;
  provider_ref: string | null;
  client_secret: string | null;
  status: 'open' | 'completed' | 'superseded';
}

export interface PaymentRecord {
  id: string;
  email: string;
  invoice_number: string;
  payment_date: Date;
  plan_name: string;
  amount: string;
  currency: string;
  kind: 'subscription' | 'topup' | 'trial' | 'auto_topup';
  credits: number;
  provider_ref: string | null;
}

/** An off-session charge: one attempt, one idempotency key (`auto-topup:<id>`), one card. */
export interface AutoTopUpAttempt {
  id: string;
  user_id: string;
  amount_cents: number;
  credits: number;
  intent_id: string | null;
  payment_method_id: string | null;
  created_at: Date;
}

export interface AutoTopUpSettings {
  auto_topup: boolean;
  auto_topup_min: number;
  auto_topup_amount: number;
  auto_topup_failures: number;
  auto_topup_disabled_reason: string | null;
}

const ACCOUNT_COLUMNS = `id, email, credits, plan, customer_id, next_billing_date, trialed, auto_topup, auto_topup_min,
  auto_topup_amount, auto_topup_failures, auto_topup_disabled_reason, auto_topup_refused_until`;
const ATTEMPT_COLUMNS = 'id, user_id, amount_cents, credits, intent_id, payment_method_id, created_at';
const SETTINGS_COLUMNS = 'auto_topup, auto_topup_min, auto_topup_amount, auto_topup_failures, auto_topup_disabled_reason';

/** A charge a spending control refused (recorded in billing_charge_refusals). */
export interface ChargeRefusal {
  refused: true;
  reason: RefusalReason;
  message: string;
}

export type RefusalReason = 'monthly_spend_limit' | 'auto_topup_daily_count' | 'auto_topup_monthly_cap';

type OpenedCharge =
  | { outcome: 'opened'; chargeId: string }
  | { outcome: 'refused'; reason: RefusalReason; message: string }
  | { outcome: 'not_due' | 'in_progress' | 'gone' };

/**
 * public.billing_open_charge: the limits checked and the charge (auto top-up attempt, or
 * top-up) opened or its refusal recorded, in one statement under the user's row lock.
 */
export async function openCharge(
  q: Queryable,
  c: { userId: string; kind: 'topup' | 'auto_topup'; amountCents: number; credits: number; paymentMethodId: string | null; at: Date },
): Promise<OpenedCharge> {
  const { rows } = await q.query<{ outcome: string; charge_id: string | null; reason: RefusalReason | null; message: string | null }>(
    'select outcome, charge_id, reason, message from public.billing_open_charge($1, $2, $3, $4, $5, $6)',
    [c.userId, c.kind, c.amountCents, c.credits, c.paymentMethodId, c.at],
  );
  const row = rows[0];
  if (row?.outcome === 'opened' && row.charge_id) return { outcome: 'opened', chargeId: row.charge_id };
  if (row?.outcome === 'refused' && row.reason && row.message) return { outcome: 'refused', reason: row.reason, message: row.message };
  return { outcome: (row?.outcome ?? 'gone') as 'not_due' | 'in_progress' | 'gone' };
}

export function billingRepository(q: Queryable) {
  /** One more failure in a row; auto top-up turns off (reason stored) at `maxFailures` or when `disable`. */
  async function countFailure(userId: string, a: { message: string; maxFailures: number; disable: boolean }): Promise<AutoTopUpSettings | undefined> {
    const updated = await q.query<AutoTopUpSettings>(
      `update public.mdusers
          set auto_topup_failures = auto_topup_failures + 1,
              auto_topup = case when $2 or auto_topup_failures + 1 >= $3 then false else auto_topup end,
              auto_topup_disabled_reason = case when $2 or auto_topup_failures + 1 >= $3
                then left('Auto top-up was turned off after ' || (auto_topup_failures + 1) || ' failed payment'
                          || case when auto_topup_failures = 0 then '' else 's' end || ': ' || $4, 500)
                else auto_topup_disabled_reason end
        where id = $1 returning ${SETTINGS_COLUMNS}`,
      [userId, a.disable, a.maxFailures, a.message],
    );
    return updated.rows[0];
  }

  async function openAutoTopUpCharge(a: {
    userId: string;
    amountCents: number;
    credits: number;
    paymentMethodId: string;
    at: Date;
  }): Promise<AutoTopUpAttempt | ChargeRefusal | undefined> {
    const opened = await openCharge(q, { ...a, kind: 'auto_topup' });
    if (opened.outcome === 'refused') return { refused: true, reason: opened.reason, message: opened.message };
    if (opened.outcome !== 'opened') return undefined;
    const { rows } = await q.query<AutoTopUpAttempt>(`select ${ATTEMPT_COLUMNS} from public.billing_auto_topup_attempts where id = $1`, [opened.chargeId]);
    return rows[0];
  }

  return {
    async account(userId: string): Promise<BillingAccount | undefined> {
      const { rows } = await q.query<BillingAccount>(`select ${ACCOUNT_COLUMNS} from public.mdusers where id = $1`, [userId]);
      return rows[0];
    },

    /** The account under a row lock: serialises a user's checkouts (inside a transaction). */
    async lockAccount(userId: string): Promise<BillingAccount | undefined> {
      const { rows } = await q.query<BillingAccount>(`select ${ACCOUNT_COLUMNS} from public.mdusers where id = $1 for update`, [userId]);
      return rows[0];
    },

    async accountByCustomerId(customerId: string): Promise<BillingAccount | undefined> {
      const { rows } = await q.query<BillingAccount>(`select ${ACCOUNT_COLUMNS} from public.mdusers where customer_id = $1`, [customerId]);
      return rows[0];
    },

    /** Stores the provider customer only while none is stored; answers the stored one. */
    async setCustomerIdOnce(userId: string, customerId: string): Promise<string | undefined> {
      const { rows } = await q.query<{ customer_id: string }>(
        'update public.mdusers set customer_id = $2 where id = $1 and customer_id is null returning customer_id',
        [userId, customerId],
      );
      if (rows[0]) return rows[0].customer_id;
      // set concurrently: a new statement sees the committed value
      const stored = await q.query<{ customer_id: string | null }>('select customer_id from public.mdusers where id = $1', [userId]);
      return stored.rows[0]?.customer_id ?? undefined;
    },

    async subscription(userId: string): Promise<SubscriptionState | undefined> {
      const { rows } = await q.query<SubscriptionState>(
        'select subscription_id, plan, status, current_period_end, cancel_at_period_end from public.billing_subscriptions where user_id = $1',
        [userId],
      );
      return rows[0];
    },

    /**
     * Records a paid subscription period and projects it onto mdusers (plan,
     * next_billing_date). Events of one subscription apply in event time, so an older one
     * arriving late never wins; a subscription the provider reported ended never becomes
     * active again; a different subscription paid after the current one ended is the new
     * plan, whatever the two events' times (a provider's test clock may put the end later).
     * Answers whether it applied.
     */
    async applyPaidPeriod(s: { userId: string; subscriptionId: string; plan: string; periodEnd: Date; at: Date }): Promise<boolean> {
      const { rows } = await q.query(
        `insert into public.billing_subscriptions as b (user_id, subscription_id, plan, status, current_period_end, cancel_at_period_end, state_at)
         select $1, $2, $3, 'active', $4, false, $5
          where not exists (select 1 from public.billing_ended_subscriptions where subscription_id = $2)
         on conflict (user_id) do update
           set subscription_id = excluded.subscription_id, plan = excluded.plan, status = 'active',
               current_period_end = excluded.current_period_end, cancel_at_period_end = false,
               state_at = greatest(b.state_at, excluded.state_at)
           where b.state_at <= excluded.state_at or (b.subscription_id <> excluded.subscription_id and b.status = 'canceled')
         returning 1`,
        [s.userId, s.subscriptionId, s.plan, s.periodEnd, s.at],
      );
      if (!rows[0]) return false;
      await q.query('update public.mdusers set plan = $2, next_billing_date = $3 where id = $1', [s.userId, s.plan, s.periodEnd]);
      return true;
    },

    /** Renewal stops at the period end: the plan stays, the next billing date goes (the dashboard shows Cancelled). */
    async markCancelAtPeriodEnd(userId: string, at: Date): Promise<void> {
      await q.query(
        `update public.billing_subscriptions set cancel_at_period_end = true, state_at = greatest(state_at, $2) where user_id = $1 and status <> 'canceled'`,
        [userId, at],
      );
      await q.query('update public.mdusers set next_billing_date = null where id = $1', [userId]);
    },

    /**
     * The subscription ended (period end after a cancel, or a renewal that failed). When it is
     * the current one (and no newer event of it was applied) the plan goes back to zero; a
     * subscription that is not the current one is remembered as ended, so a late event of it
     * can never make it the plan again. Answers whether the plan ended.
     */
    async endSubscription(userId: string, subscriptionId: string, at: Date): Promise<boolean> {
      const { rows } = await q.query(
        `update public.billing_subscriptions set status = 'canceled', cancel_at_period_end = false, state_at = $3
          where user_id = $1 and subscription_id = $2 and state_at <= $3 returning 1`,
        [userId, subscriptionId, at],
      );
      const current = await q.query('select 1 from public.billing_subscriptions where user_id = $1 and subscription_id = $2', [userId, subscriptionId]);
      if (rows[0] || !current.rows[0]) {
        await q.query(
          `insert into public.billing_ended_subscriptions (subscription_id, user_id, ended_at) values ($1, $2, $3) on conflict (subscription_id) do nothing`,
          [subscriptionId, userId, at],
        );
      }
      if (!rows[0]) return false;
      await q.query(`update public.mdusers set plan = 'zero', next_billing_date = null where id = $1`, [userId]);
      return true;
    },

    /**
     * A renewal payment failed: the current subscription is past due (no plan credits, auto
     * top-up and top-ups paused) until a later invoice.paid of it. Only moves forward in event
     * time; another subscription's failure changes nothing. Answers whether it applied.
     */
    async markPastDue(userId: string, subscriptionId: string, at: Date): Promise<boolean> {
      const { rows } = await q.query(
        `update public.billing_subscriptions set status = 'past_due', state_at = $3
          where user_id = $1 and subscription_id = $2 and status = 'active' and state_at <= $3 returning 1`,
        [userId, subscriptionId, at],
      );
      return rows.length > 0;
    },

    /**
     * customer.subscription.updated of the current subscription: plan (when its price maps to
     * one), status, period end and cancel_at_period_end as the provider has them, projected
     * onto mdusers. Older events than the state we hold change nothing. Answers whether it applied.
     */
    async applySubscriptionUpdate(s: {
      userId: string;
      subscriptionId: string;
      plan: string | null;
      status: 'active' | 'past_due';
      currentPeriodEnd: Date | null;
      cancelAtPeriodEnd: boolean;
      at: Date;
    }): Promise<boolean> {
      const { rows } = await q.query<{ plan: string; current_period_end: Date | null; cancel_at_period_end: boolean }>(
        `update public.billing_subscriptions
            set plan = coalesce($3, plan), status = $4, current_period_end = coalesce($5, current_period_end),
                cancel_at_period_end = $6, state_at = $7
          where user_id = $1 and subscription_id = $2 and status <> 'canceled' and state_at <= $7
          returning plan, current_period_end, cancel_at_period_end`,
        [s.userId, s.subscriptionId, s.plan, s.status, s.currentPeriodEnd, s.cancelAtPeriodEnd, s.at],
      );
      const row = rows[0];
      if (!row) return false;
      await q.query('update public.mdusers set plan = $2, next_billing_date = $3 where id = $1', [
        s.userId,
        row.plan,
        row.cancel_at_period_end ? null : row.current_period_end,
      ]);
      return true;
    },

    async isEndedSubscription(subscriptionId: string): Promise<boolean> {
      const { rows } = await q.query('select 1 from public.billing_ended_subscriptions where subscription_id = $1', [subscriptionId]);
      return rows.length > 0;
    },

    /** Remembers a subscription as ended (one we cancelled as a duplicate): a late event of it never makes it the plan. */
    async rememberEnded(userId: string, subscriptionId: string, at: Date): Promise<void> {
      await q.query(
        `insert into public.billing_ended_subscriptions (subscription_id, user_id, ended_at) values ($1, $2, $3) on conflict (subscription_id) do nothing`,
        [subscriptionId, userId, at],
      );
    },

    async openCheckout(userId: string, kind: Checkout['kind']): Promise<Checkout | undefined> {
      const { rows } = await q.query<Checkout>(
        `select id, kind, plan, provider_ref, client_secret, status from public.billing_checkouts where user_id = $1 and kind = $2 and status = 'open'`,
        [userId, kind],
      );
      return rows[0];
    },

    async trialCheckout(userId: string): Promise<Checkout | undefined> {
      const { rows } = await q.query<Checkout>(
        `select id, kind, plan, provider_ref, client_secret, status from public.billing_checkouts where user_id = $1 and kind = 'trial'`,
        [userId],
      );
      return rows[0];
    },

    async insertCheckout(userId: string, kind: Checkout['kind'], plan: string | null): Promise<Checkout> {
      const { rows } = await q.query<Checkout>(
        `insert into public.billing_checkouts (user_id, kind, plan) values ($1, $2, $3)
         returning id, kind, plan, provider_ref, client_secret, status`,
        [userId, kind, plan],
      );
      return rows[0];
    },

    async supersedeCheckout(id: string): Promise<void> {
      await q.query(`update public.billing_checkouts set status = 'superseded' where id = $1 and status = 'open'`, [id]);
    },

    async setCheckoutProvider(id: string, providerRef: string, clientSecret: string): Promise<void> {
      await q.query('update public.billing_checkouts set provider_ref = $2, client_secret = $3 where id = $1', [id, providerRef, clientSecret]);
    },

    async completeCheckout(providerRef: string, at: Date): Promise<void> {
      await q.query(`update public.billing_checkouts set status = 'completed', completed_at = $2 where provider_ref = $1 and status <> 'completed'`, [
        providerRef,
        at,
      ]);
    },

    /**
     * Grants a payment's credits through apply_credit and records its payments row (the
     * invoice), both keyed by the provider object: replays and concurrent deliveries grant
     * once. Answers whether this call granted.
     */
    async grantPayment(p: {
      userId: string;
      email: string;
      sourceKey: string;
      credits: number;
      reason: string;
      kind: PaymentRecord['kind'];
      planName: string;
      amountCents: number;
      currency: string;
      paidAt: Date;
    }): Promise<boolean> {
      // apply_credit takes the user's row lock and grants once per key: a replayed or
      // concurrent event waits here and gets null, so only the granting call writes the
      // payments row and takes an invoice number (numbers stay gapless)
      const { rows } = await q.query<{ balance: number | null }>('select public.apply_credit($1, $2, $3, $4) as balance', [
        p.userId,
        p.credits,
        p.sourceKey,
        p.reason,
      ]);
      const granted = rows[0]?.balance !== null && rows[0]?.balance !== undefined;
      if (!granted) return false;
      await q.query(
        `insert into public.payments (user_id, email, payment_date, plan_name, amount, currency, kind, credits, provider_ref)
         select $1, $2, $3, $4, $5, $6, $7, $8, $9
          where not exists (select 1 from public.payments where provider_ref = $9)`,
        [p.userId, p.email, p.paidAt, p.planName, (p.amountCents / 100).toFixed(2), p.currency, p.kind, p.credits, p.sourceKey],
      );
      return true;
    },

    async markTrialed(userId: string): Promise<void> {
      await q.query('update public.mdusers set trialed = true where id = $1', [userId]);
    },

    /** One of the caller's payments by invoice number (INV-…), payment id, or provider reference. */
    async findPayment(userId: string, invoiceId: string): Promise<PaymentRecord | undefined> {
      const { rows } = await q.query<PaymentRecord>(
        `select id, email, invoice_number, payment_date, plan_name, amount, currency, kind, credits, provider_ref
           from public.payments
          where user_id = $1 and (invoice_number = $2 or id::text = $2 or provider_ref = $2)
          limit 1`,
        [userId, invoiceId],
      );
      return rows[0];
    },

    async autoTopUpSettings(userId: string): Promise<AutoTopUpSettings | undefined> {
      const { rows } = await q.query<AutoTopUpSettings>(`select ${SETTINGS_COLUMNS} from public.mdusers where id = $1`, [userId]);
      return rows[0];
    },

    async saveAutoTopUpSettings(userId: string, s: { enabled: boolean; min: number; amountDollars: number }): Promise<AutoTopUpSettings | undefined> {
      const { rows } = await q.query<AutoTopUpSettings>(
        `update public.mdusers set auto_topup = $2, auto_topup_min = $3, auto_topup_amount = $4 where id = $1 returning ${SETTINGS_COLUMNS}`,
        [userId, s.enabled, s.min, s.amountDollars],
      );
      return rows[0];
    },

    /**
     * Opens an auto top-up attempt when the balance is below the threshold, none is open and
     * the spending controls allow it, all decided by public.billing_open_charge under the
     * user's row lock: a concurrent grant closing the previous attempt, or a concurrent charge
     * taking the last room under a limit, is waited for and seen. A refusal is recorded there
     * (billing_charge_refusals) and answered here. Undefined: nothing to do.
     */
    openAutoTopUpCharge,

    /** openAutoTopUpCharge's attempt, when it opened one. */
    async openAutoTopUpAttempt(a: Parameters<typeof openAutoTopUpCharge>[0]): Promise<AutoTopUpAttempt | undefined> {
      const opened = await openAutoTopUpCharge(a);
      return opened && !('refused' in opened) ? opened : undefined;
    },

    /** The user's attempt whose outcome is not known yet, if any. */
    async pendingAttempt(userId: string): Promise<AutoTopUpAttempt | undefined> {
      const { rows } = await q.query<AutoTopUpAttempt>(
        `select ${ATTEMPT_COLUMNS} from public.billing_auto_topup_attempts where user_id = $1 and status = 'pending'`,
        [userId],
      );
      return rows[0];
    },

    /**
     * The sweep's next batch of users whose auto top-up is due (on, subscribed, below their
     * threshold), those it looked at longest ago first (never first of all), marked as looked
     * at now: repeated sweeps go round every due account, however many there are. Accounts
     * that cannot be charged now take no slot: an attempt pending (finishAbandonedAttempts
     * settles it), a failure's backoff (`backoffMs`, doubling per failure in a row, as in
     * maybeAutoTopUp) not over, a spending control's refusal not expired.
     */
    async dueAutoTopUpUsers(limit: number, o: { now: Date; backoffMs: number }): Promise<string[]> {
      const { rows } = await q.query<{ user_id: string }>(
        `with due as (
           select u.id from public.mdusers u
             left join public.billing_auto_topup_sweep s on s.user_id = u.id
            where u.auto_topup and u.plan <> 'zero' and u.credits < u.auto_topup_min
              and (u.auto_topup_refused_until is null or u.auto_topup_refused_until <= $2)
              and not exists (select 1 from public.billing_auto_topup_attempts a where a.user_id = u.id and a.status = 'pending')
              and (u.auto_topup_failures = 0 or coalesce(
                    (select max(a.finished_at) from public.billing_auto_topup_attempts a where a.user_id = u.id and a.status <> 'pending')
                      + make_interval(secs => $3::double precision / 1000 * power(2, least(u.auto_topup_failures - 1, 20))) <= $2,
                    true))
            order by s.checked_at asc nulls first, u.id
            limit $1
         )
         insert into public.billing_auto_topup_sweep (user_id, checked_at) select id, $2 from due
         on conflict (user_id) do update set checked_at = excluded.checked_at
         returning user_id`,
        [limit, o.now, o.backoffMs],
      );
      return rows.map((r) => r.user_id);
    },

    /** Every user's pending attempt opened before `before` (oldest first), for the reconciling sweep. */
    async pendingAttemptsBefore(before: Date, limit: number): Promise<AutoTopUpAttempt[]> {
      const { rows } = await q.query<AutoTopUpAttempt>(
        `select ${ATTEMPT_COLUMNS} from public.billing_auto_topup_attempts where status = 'pending' and created_at < $1 order by created_at limit $2`,
        [before, limit],
      );
      return rows;
    },

    async lastFinishedAttempt(userId: string): Promise<{ status: string; finished_at: Date } | undefined> {
      const { rows } = await q.query<{ status: string; finished_at: Date }>(
        `select status, finished_at from public.billing_auto_topup_attempts
          where user_id = $1 and status <> 'pending' order by finished_at desc limit 1`,
        [userId],
      );
      return rows[0];
    },

    async setAttemptIntent(attemptId: string, intentId: string): Promise<void> {
      await q.query('update public.billing_auto_topup_attempts set intent_id = coalesce(intent_id, $2) where id = $1', [attemptId, intentId]);
    },

    /**
     * Closes an attempt as succeeded and clears the failure count (once). A success reported
     * after the attempt was given up as failed still wins: the money did move.
     */
    async attemptSucceeded(attemptId: string, intentId: string, at: Date): Promise<void> {
      const { rows } = await q.query<{ user_id: string }>(
        `update public.billing_auto_topup_attempts
            set status = 'succeeded', intent_id = coalesce(intent_id, $2), error_code = null, error_message = null, finished_at = $3
          where id = $1 and status <> 'succeeded' returning user_id`,
        [attemptId, intentId, at],
      );
      if (rows[0]) await q.query('update public.mdusers set auto_topup_failures = 0 where id = $1', [rows[0].user_id]);
    },

    /**
     * Closes a pending attempt as failed (once) and counts the failure; after `maxFailures`
     * in a row, or when `disable` says retrying cannot help, auto top-up turns off with the
     * reason stored for the dashboard.
     */
    async attemptFailed(a: {
      attemptId: string;
      intentId: string | null;
      code: string;
      message: string;
      at: Date;
      maxFailures: number;
      disable: boolean;
    }): Promise<AutoTopUpSettings | undefined> {
      const { rows } = await q.query<{ user_id: string }>(
        `update public.billing_auto_topup_attempts
            set status = 'failed', intent_id = coalesce(intent_id, $2), error_code = $3, error_message = $4, finished_at = $5
          where id = $1 and status = 'pending' returning user_id`,
        [a.attemptId, a.intentId, a.code, a.message.slice(0, 300), a.at],
      );
      if (!rows[0]) return undefined;
      return countFailure(rows[0].user_id, a);
    },

    /**
     * Counts a charge whose outcome is unknown (the provider could not be reached) as a
     * failure without closing its attempt, which is finished later with the same key.
     */
    async attemptOutcomeUnknown(a: { attemptId: string; message: string; maxFailures: number }): Promise<AutoTopUpSettings | undefined> {
      const { rows } = await q.query<{ user_id: string }>(
        `update public.billing_auto_topup_attempts set error_code = 'provider_unreachable', error_message = $2
          where id = $1 and status = 'pending' returning user_id`,
        [a.attemptId, a.message.slice(0, 300)],
      );
      if (!rows[0]) return undefined;
      return countFailure(rows[0].user_id, { ...a, disable: false });
    },

    /** Mirrors "has a default card" from the provider, for the database's own check on direct auto top-up writes. */
    async setHasDefaultCard(userId: string, has: boolean): Promise<void> {
      await q.query('update public.mdusers set has_default_card = $2 where id = $1 and has_default_card <> $2', [userId, has]);
    },

    async disableAutoTopUp(userId: string, reason: string): Promise<void> {
      await q.query('update public.mdusers set auto_topup = false, auto_topup_disabled_reason = $2 where id = $1', [userId, reason]);
    },
  };
}
