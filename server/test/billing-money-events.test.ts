// Money events (issue 20, docs/decisions/0012-money-events.md) through the sandbox provider and
// the one billing event handler, on both database kinds: refunds (full, partial, cumulative)
// and disputes take a payment's credits back through the ledger, even below zero; a won
// dispute gives them back once; an open dispute or a negative balance holds the account (no
// tasks, no auto top-up); a failed renewal is past due until paid; at most one subscription
// stays live when two get paid; late, duplicated and reordered events end in the same state.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import type { BillingEvent } from '../src/billing/payment-provider.ts';
import { createSandboxProvider, type SandboxProvider } from '../src/billing/sandbox/sandbox-provider.ts';
import { maybeAutoTopUp } from '../src/services/billing/auto-topup/trigger.ts';
import { createBilling, sandboxOf, type Billing } from '../src/services/billing/billing.ts';
import { handleBillingEvent } from '../src/services/billing/handle-event.ts';
import { subscribe } from '../src/services/billing/subscribe.ts';
import type { Account } from '../src/repositories/user-repository.ts';
import { asDashboard, captureLogger, createUser, expectErrorBody, post, type TestUser } from './helpers.ts';
import { billingState, card, CARDS, type ConfirmAnswer, paymentsOf } from './support/billing.ts';
import { openTestDb, taskHarness, type TaskHarness } from './support/tasks.ts';

type App = TaskHarness['app'];

const DISPUTE_MESSAGE = 'Your account is on hold: a payment was disputed. Contact support or resolve the dispute to continue.';
const NEGATIVE_MESSAGE = 'Your balance is negative after a refund. Buy credits to continue.';
const PAST_DUE_MESSAGE = 'Your last renewal payment failed. Update your card to keep your plan.';

async function call<T = Record<string, unknown>>(app: App, path: string, user: TestUser, json?: unknown, status = 200): Promise<T> {
  const res = await post(app, path, { ...asDashboard(user), json });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(status);
  return (await res.json()) as T;
}

async function confirmWith(app: App, user: TestUser, clientSecret: string, number: string = CARDS.visa): Promise<ConfirmAnswer> {
  return call<ConfirmAnswer>(app, '/billing/sandbox/confirm', user, { client_secret: clientSecret, card: card(number) });
}

async function subscribed(app: App, db: Db, plan = 'basic'): Promise<TestUser> {
  const user = await createUser(db);
  const { clientSecret } = await call<{ clientSecret: string }>(app, '/auth/subscribe', user, { plan });
  expect((await confirmWith(app, user, clientSecret)).status).toBe('succeeded');
  return user;
}

async function toppedUp(app: App, user: TestUser, amount: number): Promise<void> {
  const { clientSecret } = await call<{ clientSecret: string }>(app, '/auth/topup', user, { amount });
  expect((await confirmWith(app, user, clientSecret)).status).toBe('succeeded');
}

async function imagine(app: App, user: TestUser): Promise<Response> {
  return post(app, '/pro/imagine', { key: user.apiKey, json: { prompt: 'a lighthouse at dusk', mode: 'turbo' } });
}

describe.each(testDatabaseKinds())('money events on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let app: App;
  let billing: Billing;

  beforeAll(async () => {
    db = await openTestDb(kind);
    h = await taskHarness(db);
    app = h.app;
    billing = createBilling({ db, log: captureLogger(), embedded: true, env: {} });
  });
  afterAll(async () => {
    await h?.cleanup();
    await db?.close();
  });

  async function eventsOf(userId: string): Promise<BillingEvent[]> {
    const { customer_id } = await billingState(db, userId);
    return sandboxOf(billing)!.events(customer_id!);
  }

  async function moneyEvents(userId: string) {
    const { rows } = await db.query<{ kind: string; status: string; credits: number; amount_cents: number; payment_ref: string; reason: string | null }>(
      'select kind, status, credits, amount_cents, payment_ref, reason from public.billing_money_events where user_id = $1 order by created_at, id',
      [userId],
    );
    return rows;
  }

  async function clawbacks(userId: string) {
    const { rows } = await db.query<{ delta: number; source_key: string; balance_after: number }>(
      `select delta, source_key, balance_after from public.credit_ledger where user_id = $1 and source_key like 'clawback:%' order by id`,
      [userId],
    );
    return rows;
  }

  async function ledgerMatches(userId: string): Promise<void> {
    const { rows } = await db.query<{ credits: number; sum: number }>(
      'select u.credits, (select coalesce(sum(delta), 0)::int from public.credit_ledger where user_id = u.id) as sum from public.mdusers u where id = $1',
      [userId],
    );
    expect(rows[0].sum).toBe(rows[0].credits);
  }

  async function subscriptionStatus(userId: string): Promise<string | undefined> {
    const { rows } = await db.query<{ status: string }>('select status from public.billing_subscriptions where user_id = $1', [userId]);
    return rows[0]?.status;
  }

  async function customerOf(user: TestUser): Promise<string> {
    return (await billingState(db, user.id)).customer_id!;
  }

  it('should take back all of a fully refunded top-up, once, whatever the replays', async () => {
    const user = await subscribed(app, db);
    await toppedUp(app, user, 50);
    expect((await billingState(db, user.id)).credits).toBe(1000 + 1250);
    const refunded = await call<{ payment_ref: string; credits: number; amount_refunded_cents: number; hold: string | null }>(
      app,
      '/billing/sandbox/refund',
      user,
      {},
    );
    expect(refunded).toMatchObject({ credits: 1000, amount_refunded_cents: 5000, hold: null });
    expect(refunded.payment_ref).toMatch(/^pi:pi_sbx_/);
    // Stripe delivers at least once: the same event again, and again under a new event id
    const [event] = (await eventsOf(user.id)).filter((e) => e.type === 'charge.refunded');
    await Promise.all(Array.from({ length: 5 }, () => handleBillingEvent(billing, event)));
    await handleBillingEvent(billing, { ...event, id: `evt_${randomUUID()}` });
    expect((await billingState(db, user.id)).credits).toBe(1000);
    expect(await clawbacks(user.id)).toEqual([{ delta: -1250, source_key: `clawback:${refunded.payment_ref}:1`, balance_after: 1000 }]);
    expect(await moneyEvents(user.id)).toEqual([
      { kind: 'refund', status: 'succeeded', credits: 1250, amount_cents: 5000, payment_ref: refunded.payment_ref, reason: null },
    ]);
    // nothing left to refund
    const again = await post(app, '/billing/sandbox/refund', { ...asDashboard(user), json: {} });
    expect(again.status).toBe(400);
    await ledgerMatches(user.id);
  });

  it('should take partial refunds in proportion, cumulatively, and ignore an older total arriving late', async () => {
    const user = await subscribed(app, db); // basic: $39.00, 1000 credits
    const [paid] = await paymentsOf(db, user.id);
    const first = await call<{ credits: number }>(app, '/billing/sandbox/refund', user, { payment_ref: paid.provider_ref, amount_cents: 1950 });
    expect(first.credits).toBe(500);
    const second = await call<{ credits: number; amount_refunded_cents: number }>(app, '/billing/sandbox/refund', user, { amount_cents: 975 });
    expect(second).toMatchObject({ credits: 250, amount_refunded_cents: 2925 });
    const refunds = (await eventsOf(user.id)).filter((e) => e.type === 'charge.refunded');
    expect(refunds.map((e) => (e as { amountRefundedCents: number }).amountRefundedCents)).toEqual([1950, 2925]);
    // reordered and replayed: the older total (1950) after the newer one moves nothing
    await handleBillingEvent(billing, { ...refunds[0], id: `evt_${randomUUID()}` });
    await handleBillingEvent(billing, refunds[1]);
    expect((await billingState(db, user.id)).credits).toBe(250);
    expect((await clawbacks(user.id)).map((r) => r.delta)).toEqual([-500, -250]);
    // the rest: the whole grant is back, not a credit more
    expect((await call<{ credits: number }>(app, '/billing/sandbox/refund', user, {})).credits).toBe(0);
    expect((await moneyEvents(user.id))[0]).toMatchObject({ credits: 1000, amount_cents: 3900 });
    await ledgerMatches(user.id);
  });

  it('should net out a grant that arrives after its own refund (reordered webhooks)', async () => {
    const user = await subscribed(app, db);
    const customerId = await customerOf(user);
    const intentId = `pi_sbx_late_${randomUUID().slice(0, 8)}`;
    const at = new Date();
    const refund: BillingEvent = {
      type: 'charge.refunded',
      id: `evt_${randomUUID()}`,
      created: new Date(at.getTime() + 1000),
      customerId,
      chargeId: intentId.replace('pi_', 'ch_'),
      paymentRef: `pi:${intentId}`,
      amountCents: 10_000,
      amountRefundedCents: 4_000,
    };
    const grant: BillingEvent = {
      type: 'payment_intent.succeeded',
      id: `evt_${randomUUID()}`,
      created: at,
      customerId,
      intentId,
      kind: 'topup',
      amountCents: 10_000,
      currency: 'usd',
      paymentMethodId: null,
      savedPaymentMethod: false,
      metadata: { kind: 'topup', credits: '2500' },
    };
    await handleBillingEvent(billing, refund);
    expect((await billingState(db, user.id)).credits).toBe(1000);
    await handleBillingEvent(billing, grant);
    await handleBillingEvent(billing, grant);
    await handleBillingEvent(billing, refund);
    // 2500 granted, 40% of it (1000) taken back
    expect((await billingState(db, user.id)).credits).toBe(1000 + 1500);
    expect((await clawbacks(user.id)).map((r) => r.delta)).toEqual([-1000]);
    await ledgerMatches(user.id);
  });

  it('should hold the account during a dispute, refuse tasks with its message, and give the credits back once when won', async () => {
    const user = await subscribed(app, db);
    expect((await imagine(app, user)).status).toBe(200);
    const opened = await call<{ credits: number; hold: string; dispute_id: string; dispute_status: string }>(app, '/billing/sandbox/dispute', user, {});
    // the whole payment (1000 credits) disputed: 996 left after the task, so -4
    expect(opened).toMatchObject({ credits: -4, hold: 'dispute', dispute_status: 'needs_response' });

    const refused = await imagine(app, user);
    expect(refused.status).toBe(402);
    expect(await expectErrorBody(refused)).toEqual({ code: 'account_on_hold', msg: DISPUTE_MESSAGE });
    // the trigger holds whatever inserts a task (the dispute is checked even with credits)
    await db.query('select public.apply_credit($1, 100, $2, $3)', [user.id, `test:${randomUUID()}`, 'test']);
    await expect(
      db.query(`insert into public.tasks (user_id, email, type, status) values ($1, $2, 'imagine', 'pending')`, [user.id, user.email]),
    ).rejects.toMatchObject({ code: 'PH403' });
    expect(await maybeAutoTopUp(billing, user.id)).toEqual({ status: 'skipped', reason: 'on_hold' });

    const won = await call<{ credits: number; hold: string | null; dispute_status: string }>(app, '/billing/sandbox/dispute/close', user, { outcome: 'won' });
    expect(won).toMatchObject({ credits: 1096, hold: null, dispute_status: 'won' });
    // late and replayed: the "created" after the "closed" does not reopen it, the "closed" gives back once
    const disputes = (await eventsOf(user.id)).filter((e) => e.type === 'charge.dispute.created' || e.type === 'charge.dispute.closed');
    expect(disputes.map((e) => e.type)).toEqual(['charge.dispute.created', 'charge.dispute.closed']);
    await handleBillingEvent(billing, { ...disputes[0], id: `evt_${randomUUID()}` });
    await handleBillingEvent(billing, disputes[1]);
    await handleBillingEvent(billing, disputes[1]);
    expect((await billingState(db, user.id)).credits).toBe(1096);
    expect(await moneyEvents(user.id)).toMatchObject([{ kind: 'dispute', status: 'won', credits: 0, amount_cents: 3900 }]);
    expect((await clawbacks(user.id)).map((r) => r.delta)).toEqual([-1000, 1000]);
    expect((await imagine(app, user)).status).toBe(200);
    await ledgerMatches(user.id);
  });

  it('should keep the credits taken when a dispute is lost, and then hold only for the negative balance', async () => {
    const user = await subscribed(app, db);
    for (let i = 0; i < 3; i++) expect((await imagine(app, user)).status).toBe(200);
    await call(app, '/billing/sandbox/dispute', user, { amount_cents: 1950 });
    expect((await billingState(db, user.id)).credits).toBe(1000 - 12 - 500);
    const lost = await call<{ credits: number; hold: string | null }>(app, '/billing/sandbox/dispute/close', user, { outcome: 'lost' });
    expect(lost).toMatchObject({ credits: 488, hold: null });
    // a second close of the same dispute is refused; the late "created" changes nothing
    expect((await post(app, '/billing/sandbox/dispute/close', { ...asDashboard(user), json: { outcome: 'won' } })).status).toBe(404);
    const [created] = (await eventsOf(user.id)).filter((e) => e.type === 'charge.dispute.created');
    await handleBillingEvent(billing, { ...created, id: `evt_${randomUUID()}` });
    expect(await moneyEvents(user.id)).toMatchObject([{ kind: 'dispute', status: 'lost', credits: 500 }]);
    expect((await billingState(db, user.id)).credits).toBe(488);

    // refunding the rest on top of the lost dispute: never more than the grant
    await call(app, '/billing/sandbox/refund', user, { amount_cents: 3900 });
    const state = await billingState(db, user.id);
    expect(state.credits).toBe(-12);
    const refused = await imagine(app, user);
    expect(refused.status).toBe(402);
    expect(await expectErrorBody(refused)).toEqual({ code: 'account_on_hold', msg: NEGATIVE_MESSAGE });
    expect(await maybeAutoTopUp(billing, user.id)).toEqual({ status: 'skipped', reason: 'on_hold' });
    // buying credits is how a negative balance is settled: allowed, and it lands on the negative balance
    await toppedUp(app, user, 10);
    expect((await billingState(db, user.id)).credits).toBe(238);
    expect((await imagine(app, user)).status).toBe(200);
    await ledgerMatches(user.id);
  });

  it('should never let the ordinary ledger path go below zero', async () => {
    const user = await createUser(db);
    await expect(db.query('select public.apply_credit($1, -1, $2, $3)', [user.id, `test:${randomUUID()}`, 'test'])).rejects.toMatchObject({ code: 'P0402' });
    await expect(db.query('update public.mdusers set credits = -5 where id = $1', [user.id])).rejects.toMatchObject({ code: '23514' });
    expect(
      await db.query('select public.apply_clawback($1, -5, $2, $3) as b', [user.id, `clawback:test:${randomUUID()}`, 'test']).then((r) => r.rows[0]),
    ).toEqual({
      b: -5,
    });
    // and the guard is back on after the clawback, in the same transaction too
    await db
      .transaction(async (tx) => {
        await tx.query('select public.apply_clawback($1, -1, $2, $3)', [user.id, `clawback:test:${randomUUID()}`, 'test']);
        await expect(tx.query('update public.mdusers set credits = credits - 1 where id = $1', [user.id])).rejects.toMatchObject({ code: '23514' });
      })
      .catch(() => undefined);
    expect((await billingState(db, user.id)).credits).toBe(-5);
  });

  it('should make a failed renewal past due (no top-ups, no auto top-up) until a later payment of it', async () => {
    const user = await subscribed(app, db);
    const failed = await call<{ subscription_id: string; invoice_id: string; hold: string }>(app, '/billing/sandbox/fail-renewal', user);
    expect(failed.hold).toBe('past_due');
    expect(await subscriptionStatus(user.id)).toBe('past_due');
    expect((await billingState(db, user.id)).credits).toBe(1000);
    const topup = await post(app, '/auth/topup', { ...asDashboard(user), json: { amount: 10 } });
    expect(topup.status).toBe(402);
    expect(await expectErrorBody(topup)).toEqual({ code: 'account_on_hold', msg: PAST_DUE_MESSAGE });
    expect(await maybeAutoTopUp(billing, user.id)).toEqual({ status: 'skipped', reason: 'on_hold' });
    // a past-due plan still runs tasks (the plan's credits were paid)
    expect((await imagine(app, user)).status).toBe(200);

    const failedEvent = (await eventsOf(user.id)).find((e) => e.type === 'invoice.payment_failed')!;
    expect(failedEvent).toMatchObject({ invoiceId: failed.invoice_id, subscriptionId: failed.subscription_id, billingReason: 'subscription_cycle' });
    // the next clock run retries with the default card: paid, active again, the plan's credits granted
    await call(app, '/billing/sandbox/advance-clock', user, { days: 1 });
    expect(await subscriptionStatus(user.id)).toBe('active');
    expect((await billingState(db, user.id)).credits).toBe(1000 - 4 + 1000);
    // the failure delivered late (older than the payment) does not make it past due again
    await handleBillingEvent(billing, { ...failedEvent, id: `evt_${randomUUID()}` });
    expect(await subscriptionStatus(user.id)).toBe('active');
    expect((await post(app, '/auth/topup', { ...asDashboard(user), json: { amount: 10 } })).status).toBe(200);
  });

  it('should end a subscription still unpaid after the grace period', async () => {
    const user = await subscribed(app, db);
    await call(app, '/billing/sandbox/fail-renewal', user);
    // the default card now declines every charge
    const { clientSecret, setupIntentId } = await call<{ clientSecret: string; setupIntentId: string }>(app, '/auth/create-setup-intent', user);
    const saved = await confirmWith(app, user, clientSecret, CARDS.chargeDeclined);
    await call(app, '/auth/add-payment-method', user, { setupIntentId, paymentMethodId: saved.payment_method });
    await call(app, '/auth/make-default-payment-method', user, { paymentMethodId: saved.payment_method });
    await call(app, '/billing/sandbox/advance-clock', user, { days: 1 });
    expect(await subscriptionStatus(user.id)).toBe('past_due');
    await call(app, '/billing/sandbox/advance-clock', user, { days: 15 });
    expect(await subscriptionStatus(user.id)).toBe('canceled');
    expect((await billingState(db, user.id)).plan).toBe('zero');
  });

  it('should apply customer.subscription.updated forward in event time only', async () => {
    const user = await subscribed(app, db);
    const customerId = await customerOf(user);
    const { rows } = await db.query<{ subscription_id: string; state_at: Date }>(
      'select subscription_id, state_at from public.billing_subscriptions where user_id = $1',
      [user.id],
    );
    const base = { id: `evt_${randomUUID()}`, customerId, subscriptionId: rows[0].subscription_id, type: 'customer.subscription.updated' as const };
    const later = new Date(rows[0].state_at.getTime() + 60_000);
    const periodEnd = new Date(Date.now() + 40 * 86_400_000);
    await handleBillingEvent(billing, { ...base, created: later, plan: 'growth', status: 'active', currentPeriodEnd: periodEnd, cancelAtPeriodEnd: true });
    expect(await billingState(db, user.id)).toMatchObject({ plan: 'growth', next_billing_date: null });
    // an older one arriving late changes nothing
    await handleBillingEvent(billing, {
      ...base,
      id: `evt_${randomUUID()}`,
      created: new Date(later.getTime() - 30_000),
      plan: 'basic',
      status: 'past_due',
      currentPeriodEnd: null,
      cancelAtPeriodEnd: false,
    });
    expect(await billingState(db, user.id)).toMatchObject({ plan: 'growth', next_billing_date: null });
    expect(await subscriptionStatus(user.id)).toBe('active');
    await handleBillingEvent(billing, {
      ...base,
      id: `evt_${randomUUID()}`,
      created: new Date(later.getTime() + 1000),
      plan: 'growth',
      status: 'past_due',
      currentPeriodEnd: periodEnd,
      cancelAtPeriodEnd: false,
    });
    expect(await subscriptionStatus(user.id)).toBe('past_due');
    expect((await billingState(db, user.id)).next_billing_date?.getTime()).toBe(periodEnd.getTime());
  });

  it('should void a superseded checkout at the provider so an old tab can no longer pay it', async () => {
    const user = await createUser(db);
    const first = await call<{ clientSecret: string }>(app, '/auth/subscribe', user, { plan: 'basic' });
    const second = await call<{ clientSecret: string }>(app, '/auth/subscribe', user, { plan: 'starter' });
    const stale = await post(app, '/billing/sandbox/confirm', { ...asDashboard(user), json: { client_secret: first.clientSecret, card: card(CARDS.visa) } });
    expect(stale.status).toBe(400);
    expect((await confirmWith(app, user, second.clientSecret)).status).toBe('succeeded');
    const { rows } = await db.query<{ status: string }>('select s.status from billing_sandbox.subscriptions s where s.customer_id = $1 order by s.created_at', [
      await customerOf(user),
    ]);
    expect(rows.map((r) => r.status)).toEqual(['canceled', 'active']);
    expect(await billingState(db, user.id)).toMatchObject({ plan: 'starter', credits: 5500 });
  });

  it('should keep one live subscription when two subscribes get paid, in either order', async () => {
    for (const order of ['first paid first', 'second paid first', 'both at once'] as const) {
      const user = await createUser(db);
      const account = { id: user.id, email: user.email } as Account;
      // a provider whose events wait, so both payments happen before either is handled (two tabs)
      const captured: BillingEvent[] = [];
      const racing = { ...billing, log: captureLogger() } as Billing;
      racing.provider = createSandboxProvider({ db, emit: async (e) => void captured.push(e) });
      const sandbox = racing.provider as SandboxProvider;
      const a = await subscribe(racing, account, 'basic');
      const customerId = await customerOf(user);
      await sandbox.confirm(customerId, { clientSecret: a.clientSecret, card: card(CARDS.visa) });
      // the second tab subscribes after the first paid, before its webhook: the paid invoice is not voided
      const b = await subscribe(racing, account, 'starter');
      await sandbox.confirm(customerId, { clientSecret: b.clientSecret, card: card(CARDS.visa) });
      const paid = captured.filter((e) => e.type === 'invoice.paid');
      expect(paid).toHaveLength(2);
      let ordered = order === 'first paid first' ? paid : [...paid].reverse();
      if (order === 'both at once') {
        await Promise.all(paid.map((event) => handleBillingEvent(racing, event)));
        // whichever granted is the one kept
        const granted = (await paymentsOf(db, user.id)).map((p) => p.provider_ref);
        expect(granted, order).toHaveLength(1);
        ordered = granted[0] === `in:${(paid[0] as { invoiceId: string }).invoiceId}` ? paid : [...paid].reverse();
      } else {
        for (const event of ordered) await handleBillingEvent(racing, event);
      }
      // what the duplicate's cancellation and refund emitted, then every event replayed
      for (const event of captured.filter((e) => e.type !== 'invoice.paid')) await handleBillingEvent(racing, event);
      for (const event of [...captured].reverse()) await handleBillingEvent(racing, { ...event, id: `evt_${randomUUID()}` });

      const kept = ordered[0] as Extract<BillingEvent, { type: 'invoice.paid' }>;
      const extra = ordered[1] as Extract<BillingEvent, { type: 'invoice.paid' }>;
      const state = await billingState(db, user.id);
      expect(state.plan, order).toBe(kept.plan);
      expect(state.credits, order).toBe(kept.plan === 'basic' ? 1000 : 5500);
      const subs = await db.query<{ id: string; status: string }>('select id, status from billing_sandbox.subscriptions where customer_id = $1', [customerId]);
      expect(
        subs.rows.filter((s) => s.status !== 'canceled').map((s) => s.id),
        order,
      ).toEqual([kept.subscriptionId]);
      const refunded = await db.query<{ amount_refunded: number; amount_cents: number }>(
        'select p.amount_refunded, p.amount_cents from billing_sandbox.payment_intents p join billing_sandbox.invoices i on i.payment_intent_id = p.id where i.id = $1',
        [extra.invoiceId],
      );
      expect(refunded.rows[0].amount_refunded, order).toBe(refunded.rows[0].amount_cents);
      expect(await moneyEvents(user.id), order).toMatchObject([
        { kind: 'refund', reason: 'duplicate_subscription', payment_ref: `in:${extra.invoiceId}`, credits: 0 },
      ]);
      expect(
        (await paymentsOf(db, user.id)).map((p) => p.provider_ref),
        order,
      ).toEqual([`in:${kept.invoiceId}`]);
      expect(await subscriptionStatus(user.id)).toBe('active');
      await ledgerMatches(user.id);
    }
  });

  it('should let the owner, and only the owner, read their money events (RLS)', async () => {
    const user = await subscribed(app, db);
    await call(app, '/billing/sandbox/refund', user, { amount_cents: 100 });
    const other = await createUser(db);
    const readAs = (userId: string) =>
      db.transaction(async (tx) => {
        await tx.query(`select set_config('request.jwt.claims', $1, true), set_config('role', 'authenticated', true)`, [
          JSON.stringify({ sub: userId, role: 'authenticated' }),
        ]);
        const { rows } = await tx.query<{ user_id: string; kind: string }>('select user_id, kind from public.billing_money_events');
        return rows;
      });
    expect(await readAs(user.id)).toEqual([{ user_id: user.id, kind: 'refund' }]);
    expect(await readAs(other.id)).toEqual([]);
  });

  it('should refuse the sandbox money calls without the dashboard session and on payments that are not yours', async () => {
    const user = await subscribed(app, db);
    const other = await subscribed(app, db);
    const [theirs] = await paymentsOf(db, other.id);
    expect((await post(app, '/billing/sandbox/refund', { key: user.apiKey, json: {} })).status).toBe(403);
    const notMine = await post(app, '/billing/sandbox/refund', { ...asDashboard(user), json: { payment_ref: theirs.provider_ref } });
    expect(notMine.status).toBe(404);
    expect((await post(app, '/billing/sandbox/dispute', { ...asDashboard(user), json: { payment_ref: theirs.provider_ref } })).status).toBe(404);
    expect((await post(app, '/billing/sandbox/dispute/close', { ...asDashboard(user), json: { outcome: 'won' } })).status).toBe(404);
    const fresh = await createUser(db);
    expect((await post(app, '/billing/sandbox/fail-renewal', { ...asDashboard(fresh) })).status).toBe(404);
    expect((await billingState(db, other.id)).credits).toBe(1000);
  });
});
