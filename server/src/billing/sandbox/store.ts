/**
 * @module The sandbox's store: the billing_sandbox schema's rows as types, its ids and client
 * secrets, and the SQL several parts of the sandbox share (customers, saved cards, payment
 * intents). This adapter owns the SQL of its own schema (it stands in for the provider's database).
 */
import { randomBytes } from 'node:crypto';
import type { Queryable } from '@aim/supabase/db';
import type { PlanId } from '../catalog.ts';
import { ProviderError, type PaymentKind, type SetupIntentState } from '../payment-provider.ts';
import type { Decline } from './test-cards.ts';

export const S = 'billing_sandbox';

export interface SandboxCardInput {
  number: string;
  exp_month: number;
  exp_year: number;
  cvc: string;
  name?: string | null;
}

/** What the sandbox card form sends: a new card, a saved one, and/or the 3-D Secure decision. */
export interface SandboxConfirmInput {
  clientSecret: string;
  card?: SandboxCardInput;
  paymentMethodId?: string;
  threeDSecure?: 'approve' | 'fail';
}

/** Shaped like the intent Stripe.js hands back from confirmPayment / confirmSetup. */
export interface SandboxConfirmResult {
  object: 'payment_intent' | 'setup_intent';
  id: string;
  status: string;
  payment_method: string | null;
  next_action: { type: 'sandbox_three_d_secure' } | null;
  error: { code: string; decline_code?: string; message: string } | null;
}

export interface IntentRow {
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

export interface SetupRow {
  id: string;
  customer_id: string;
  status: SetupIntentState['status'];
  payment_method: string | null;
  last_error: SandboxConfirmResult['error'];
}

export interface MethodRow {
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

export interface SubscriptionRow {
  id: string;
  customer_id: string;
  plan: PlanId;
  status: string;
  cancel_at_period_end: boolean;
  current_period_end: Date | null;
  default_payment_method: string | null;
}

export function newId(prefix: string): string {
  return `${prefix}_sbx_${randomBytes(12).toString('hex')}`;
}

export function clientSecretFor(id: string): string {
  return `${id}_secret_${randomBytes(16).toString('hex')}`;
}

export function missing(what: string): ProviderError {
  return new ProviderError('resource_missing', `No such ${what}`);
}

export function declineError(d: Decline): NonNullable<SandboxConfirmResult['error']> {
  return d.declineCode ? { code: d.code, decline_code: d.declineCode, message: d.message } : { code: d.code, message: d.message };
}

export async function requireCustomer(q: Queryable, customerId: string): Promise<void> {
  const { rows } = await q.query(`select 1 from ${S}.customers where id = $1`, [customerId]);
  if (!rows[0]) throw missing(`customer: '${customerId}'`);
}

export async function ownedMethod(q: Queryable, customerId: string, paymentMethodId: string): Promise<MethodRow> {
  const { rows } = await q.query<MethodRow>(`select * from ${S}.payment_methods where id = $1 and customer_id = $2`, [paymentMethodId, customerId]);
  if (!rows[0]) throw missing(`payment_method: '${paymentMethodId}'`);
  return rows[0];
}

export async function insertIntent(
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

export async function intentByKey(q: Queryable, key: string): Promise<IntentRow> {
  const { rows } = await q.query<IntentRow>(`select * from ${S}.payment_intents where idempotency_key = $1`, [key]);
  return rows[0];
}
