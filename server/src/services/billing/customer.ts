/**
 * @module The provider customer of an account, created when first needed (spec §4: when
 * customer_id is empty). Idempotent, also under concurrent calls: the provider call carries
 * a key per user, and mdusers.customer_id is only ever set while empty.
 */
import { ApiError } from '../../errors.ts';
import type { Account } from '../../repositories/user-repository.ts';
import type { BillingAccount } from '../../repositories/billing/accounts.ts';
import { billingRepository } from '../../repositories/billing/billing-repository.ts';
import { accountGone } from '../account/account-gone.ts';
import type { Billing } from './billing.ts';

export async function billingAccount(billing: Billing, account: Account): Promise<BillingAccount> {
  const row = await billingRepository(billing.db).account(account.id);
  if (!row) throw accountGone();
  return row;
}

/** The caller's customer id, creating the provider customer when there is none yet. */
export async function ensureCustomer(billing: Billing, account: Account): Promise<string> {
  const row = await billingAccount(billing, account);
  if (row.customer_id) return row.customer_id;
  const { customerId } = await billing.provider.createCustomer({ userId: row.id, email: row.email, idempotencyKey: `customer:${row.id}` });
  const stored = await billingRepository(billing.db).setCustomerIdOnce(row.id, customerId);
  if (!stored) throw accountGone();
  return stored;
}

/** POST /auth/createCustomer */
export async function createCustomer(billing: Billing, account: Account): Promise<{ customer_id: string }> {
  return { customer_id: await ensureCustomer(billing, account) };
}

/** The caller's existing customer id, for calls that only make sense once one exists. */
export async function existingCustomer(billing: Billing, account: Account, notFound: string): Promise<string> {
  const row = await billingAccount(billing, account);
  if (!row.customer_id) throw new ApiError('not_found', notFound);
  return row.customer_id;
}
