/**
 * @module The billing fields of mdusers: the account as billing sees it (plan, provider
 * customer, trial), and the auto top-up settings with their failure count. Credits move only
 * through public.apply_credit (payments.ts), never here.
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

export interface AutoTopUpSettings {
  auto_topup: boolean;
  auto_topup_min: number;
  auto_topup_amount: number;
  auto_topup_failures: number;
  auto_topup_disabled_reason: string | null;
}

const ACCOUNT_COLUMNS = `id, email, credits, plan, customer_id, next_billing_date, trialed, auto_topup, auto_topup_min,
  auto_topup_amount, auto_topup_failures, auto_topup_disabled_reason, auto_topup_refused_until`;
const SETTINGS_COLUMNS = 'auto_topup, auto_topup_min, auto_topup_amount, auto_topup_failures, auto_topup_disabled_reason';

/** One more failure in a row; auto top-up turns off (reason stored) at `maxFailures` or when `disable`. */
export async function countAutoTopUpFailure(
  q: Queryable,
  userId: string,
  a: { message: string; maxFailures: number; disable: boolean },
): Promise<AutoTopUpSettings | undefined> {
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

export function billingAccountsRepository(q: Queryable) {
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

    async markTrialed(userId: string): Promise<void> {
      await q.query('update public.mdusers set trialed = true where id = $1', [userId]);
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

    /** Mirrors "has a default card" from the provider, for the database's own check on direct auto top-up writes. */
    async setHasDefaultCard(userId: string, has: boolean): Promise<void> {
      await q.query('update public.mdusers set has_default_card = $2 where id = $1 and has_default_card <> $2', [userId, has]);
    },

    async disableAutoTopUp(userId: string, reason: string): Promise<void> {
      await q.query('update public.mdusers set auto_topup = false, auto_topup_disabled_reason = $2 where id = $1', [userId, reason]);
    },
  };
}
