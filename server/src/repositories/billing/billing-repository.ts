/**
 * @module Billing's SQL, one file per table (accounts: the billing fields of mdusers;
 * subscriptions, checkouts, payments, auto top-up attempts), composed here so a service (or a
 * transaction: `billingRepository(tx)`) reaches them all through one object on one
 * connection. Credits move only through public.apply_credit. Every statement is scoped by the
 * caller's user id or by a provider object id the provider reported, never by an id from a
 * request body alone.
 */
import type { Queryable } from '@aim/supabase/db';
import { billingAccountsRepository } from './accounts.ts';
import { autoTopUpAttemptsRepository } from './auto-topup-attempts.ts';
import { checkoutsRepository } from './checkouts.ts';
import { paymentsRepository } from './payments.ts';
import { subscriptionsRepository } from './subscriptions.ts';

export function billingRepository(q: Queryable) {
  return {
    ...billingAccountsRepository(q),
    ...subscriptionsRepository(q),
    ...checkoutsRepository(q),
    ...paymentsRepository(q),
    ...autoTopUpAttemptsRepository(q),
  };
}
