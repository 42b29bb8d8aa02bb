// Billing steps the journeys share: the sandbox provider's test cards, a subscription paid
// through the API the way the sandbox card form pays it, and the account as the server holds it.
import { expect, type Locator, type Page } from '@playwright/test';
import { API_URL } from './platform.ts';
import { serviceClient, type TestUser } from './users.ts';

export const CARDS = {
  visa: '4242 4242 4242 4242',
  mastercard: '5555 5555 5555 4444',
  declined: '4000 0000 0000 0002',
  threeDS: '4000 0025 0000 3155',
} as const;

export type BillingRow = {
  credits: number;
  plan: string;
  next_billing_date: string | null;
  trialed: boolean;
  customer_id: string | null;
  auto_topup: boolean;
  auto_topup_min: number;
  auto_topup_amount: number;
};

/** The user's billing fields as the server holds them (service role). */
export async function readBilling(userId: string): Promise<BillingRow> {
  const { data, error } = await serviceClient()
    .from('mdusers')
    .select('credits, plan, next_billing_date, trialed, customer_id, auto_topup, auto_topup_min, auto_topup_amount')
    .eq('id', userId)
    .single();
  if (error) throw new Error(`GET /rest/v1/mdusers?id=eq.${userId}: ${error.message}`);
  return data as BillingRow;
}

async function post<T>(user: TestUser, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${API_URL}${path}`, {
    method: 'POST',
    // as the dashboard sends them: the API key, and the session that money calls need
    headers: { authorization: user.row.api_key, 'x-session-token': user.session.access_token, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${path} → HTTP ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

/** Subscribes through the API and pays with 4242 (saved as the default card). */
export async function subscribeViaApi(user: TestUser, plan: string): Promise<void> {
  const { clientSecret } = await post<{ clientSecret: string }>(user, '/auth/subscribe', { plan });
  const card = { number: CARDS.visa, exp_month: 12, exp_year: new Date().getFullYear() + 3, cvc: '123' };
  const done = await post<{ status: string }>(user, '/billing/sandbox/confirm', { client_secret: clientSecret, card });
  expect(done.status, 'the subscription payment succeeded').toBe('succeeded');
}

/** Types a test card into the sandbox card form inside `scope` and submits it with `submit`. */
export async function payWithCard(scope: Locator, number: string, submit: string | RegExp): Promise<void> {
  const form = scope.getByTestId('sandbox-card-form');
  await expect(form.getByTestId('sandbox-badge')).toHaveText('SANDBOX');
  await form.getByLabel('Card number').fill(number);
  await form.getByLabel('Expiry').fill(`12 / ${String((new Date().getFullYear() + 3) % 100).padStart(2, '0')}`);
  await form.getByLabel('CVC').fill('123');
  await form.getByRole('button', { name: submit }).click();
}

/** Records every request that leaves loopback (the sandbox must not load anything from the network). */
export function recordExternalRequests(page: Page): string[] {
  const external: string[] = [];
  page.on('request', (req) => {
    const { hostname, protocol } = new URL(req.url());
    if (!['localhost', '127.0.0.1'].includes(hostname) && protocol !== 'data:' && protocol !== 'blob:') external.push(req.url());
  });
  return external;
}

export const formatCredits = (n: number) => new Intl.NumberFormat('en-US').format(n);

/** The Subscription screen, once the account row is shown. */
export async function openSubscription(page: Page): Promise<void> {
  await page.goto('/dashboard/billing/subscription');
  await expect(page.getByTestId('subscription-summary')).toBeVisible();
}
