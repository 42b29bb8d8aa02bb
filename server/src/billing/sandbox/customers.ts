/**
 * @module Customers and their saved cards in the sandbox: creating a customer, listing its
 * cards, choosing the default and detaching one.
 */
import { createHash } from 'node:crypto';
import type { Db } from '@aim/supabase/db';
import type { Card } from '../payment-provider.ts';
import type { SandboxProvider } from './sandbox-provider.ts';
import { newId, ownedMethod, S, type MethodRow } from './store.ts';

/** Stripe's card.fingerprint: the same number, the same value. A sandbox card's number is its test profile. */
function fingerprintOf(profile: string): string {
  return `fp_sbx_${createHash('sha256').update(profile).digest('hex').slice(0, 16)}`;
}

/**
 * @example
 * const { listPaymentMethods } = sandboxCustomers(db)
 */
export function sandboxCustomers(
  db: Db,
): Pick<SandboxProvider, 'createCustomer' | 'listPaymentMethods' | 'setDefaultPaymentMethod' | 'ensureDefaultPaymentMethod' | 'detachPaymentMethod'> {
  return {
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
  };
}
