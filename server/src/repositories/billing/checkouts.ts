/** @module Checkouts (public.billing_checkouts): at most one open per user and kind. */
import type { Queryable } from '@aim/supabase/db';

export interface Checkout {
  id: string;
  kind: 'subscription' | 'trial';
  plan: string | null;
  provider_ref: string | null;
  client_secret: string | null;
  status: 'open' | 'completed' | 'superseded';
}

export function checkoutsRepository(q: Queryable) {
  return {
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
  };
}
