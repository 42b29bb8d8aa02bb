/**
 * @module Auto top-up attempts (public.billing_auto_topup_attempts): at most one pending per
 * user, opened by public.billing_open_charge, closed once; and the sweep's bookkeeping
 * (public.billing_auto_topup_sweep).
 */
import type { Queryable } from '@aim/supabase/db';
import { type AutoTopUpSettings, countAutoTopUpFailure } from './accounts.ts';
import { type ChargeRefusal, openCharge } from './open-charge.ts';

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

const ATTEMPT_COLUMNS = 'id, user_id, amount_cents, credits, intent_id, payment_method_id, created_at';

export function autoTopUpAttemptsRepository(q: Queryable) {
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
      return countAutoTopUpFailure(q, rows[0].user_id, a);
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
      return countAutoTopUpFailure(q, rows[0].user_id, { ...a, disable: false });
    },
  };
}
