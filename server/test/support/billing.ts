/**
 * Shared pieces of the billing suites: sandbox card confirmations, a subscribed user, the
 * account's billing fields, and the text of an uncompressed PDF.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { asDashboard, createUser, post, type TestUser } from '../helpers.ts';

type App = { request: (path: string, init?: RequestInit) => Response | Promise<Response> };

export const CARDS = {
  visa: '4242 4242 4242 4242',
  mastercard: '5555 5555 5555 4444',
  declined: '4000 0000 0000 0002',
  insufficientFunds: '4000 0000 0000 9995',
  expired: '4000 0000 0000 0069',
  chargeDeclined: '4000 0000 0000 0341',
  threeDS: '4000 0025 0000 3155',
  threeDSAlways: '4000 0027 6000 3184',
  threeDSThenInsufficient: '4000 0082 6000 3178',
} as const;

export function card(number: string) {
  return { number, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '123', name: 'Ada Lovelace' };
}

export interface ConfirmAnswer {
  object: string;
  id: string;
  status: string;
  payment_method: string | null;
  next_action: { type: string } | null;
  error: { code: string; decline_code?: string; message: string } | null;
}

export async function confirm(app: App, user: TestUser, clientSecret: string, body: Record<string, unknown>): Promise<ConfirmAnswer> {
  const res = await post(app as never, '/billing/sandbox/confirm', { ...asDashboard(user), json: { client_secret: clientSecret, ...body } });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as ConfirmAnswer;
}

/** POST as the user's dashboard (API key and session), expecting 200. */
export async function postOk<T>(app: App, path: string, user: TestUser, json?: unknown): Promise<T> {
  const res = await post(app as never, path, { ...asDashboard(user), json });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  return (await res.json()) as T;
}

/** A new user with a paid plan (card 4242 saved as the default). */
export async function subscribedUser(app: App, db: Db, plan = 'basic'): Promise<TestUser> {
  const user = await createUser(db);
  const { clientSecret } = await postOk<{ clientSecret: string }>(app, '/auth/subscribe', user, { plan });
  expect((await confirm(app, user, clientSecret, { card: card(CARDS.visa) })).status).toBe('succeeded');
  return user;
}

/** Saves a card through a setup intent (answering 3-D Secure with approve when asked). */
export async function addCard(app: App, user: TestUser, number: string): Promise<string> {
  const { clientSecret, setupIntentId } = await postOk<{ clientSecret: string; setupIntentId: string }>(app, '/auth/create-setup-intent', user);
  const done = await confirm(app, user, clientSecret, { card: card(number), three_d_secure: 'approve' });
  expect(done.status).toBe('succeeded');
  await postOk(app, '/auth/add-payment-method', user, { setupIntentId, paymentMethodId: done.payment_method });
  return done.payment_method!;
}

export async function billingState(db: Db, userId: string) {
  const { rows } = await db.query<{
    credits: number;
    plan: string;
    next_billing_date: Date | null;
    trialed: boolean;
    customer_id: string | null;
    auto_topup: boolean;
    auto_topup_failures: number;
    auto_topup_disabled_reason: string | null;
  }>(
    `select credits, plan, next_billing_date, trialed, customer_id, auto_topup, auto_topup_failures, auto_topup_disabled_reason
       from public.mdusers where id = $1`,
    [userId],
  );
  return rows[0];
}

export async function paymentsOf(db: Db, userId: string) {
  const { rows } = await db.query<{ invoice_number: string; plan_name: string; amount: string; kind: string; credits: number; provider_ref: string }>(
    'select invoice_number, plan_name, amount, kind, credits, provider_ref from public.payments where user_id = $1 order by payment_date, invoice_number',
    [userId],
  );
  return rows;
}

/** Moves credits through the ledger as a task charge would (negative spends). */
export async function moveCredits(db: Db, userId: string, delta: number): Promise<void> {
  await db.query('select public.apply_credit($1, $2, $3, $4)', [userId, delta, `test:${randomUUID()}`, 'test']);
}

/**
 * The text of a PDF written without stream compression: pdfkit draws each line with one TJ
 * operator whose hex strings, joined, are the line.
 */
export function pdfText(pdf: Uint8Array): string {
  const raw = Buffer.from(pdf).toString('latin1');
  const lines = [...raw.matchAll(/\[([^\]]*)\]\s*TJ/g)].map((m) =>
    [...m[1].matchAll(/<([0-9a-fA-F]*)>/g)].map((h) => Buffer.from(h[1], 'hex').toString('latin1')).join(''),
  );
  return lines.join('\n');
}
