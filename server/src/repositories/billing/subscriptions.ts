/**
 * @module The subscription state (public.billing_subscriptions, one row per user, applied in
 * event time) and the subscriptions known to have ended (public.billing_ended_subscriptions),
 * projected onto mdusers (plan, next_billing_date).
 */
import type { Queryable } from '@aim/supabase/db';

export interface SubscriptionState {
  subscription_id: string;
  plan: string;
  status: 'active' | 'past_due' | 'canceled';
  current_period_end: Date | null;
  cancel_at_period_end: boolean;
}

export function subscriptionsRepository(q: Queryable) {
  return {
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
  };
}
