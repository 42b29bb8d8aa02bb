import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import type { BillingEvent } from '../src/billing/payment-provider.ts';
import { selectPaymentProvider } from '../src/billing/select-provider.ts';
import { maybeAutoTopUp } from '../src/services/billing/auto-topup/trigger.ts';
import { createBilling, sandboxOf, type Billing } from '../src/services/billing/billing.ts';
import { handleBillingEvent } from '../src/services/billing/handle-event.ts';
import { billingRepository } from '../src/repositories/billing/billing-repository.ts';
import { createApiApp } from '../src/app.ts';
import { asDashboard, captureLogger, createUser, post, testApp, testConfig } from './helpers.ts';
import { addCard, billingState, card, CARDS, confirm, moveCredits, paymentsOf, postOk, subscribedUser } from './support/billing.ts';
import { openTestDb } from './support/tasks.ts';

describe('provider selection', () => {
  it('should run the sandbox only in embedded mode or when asked for, whatever NODE_ENV says, and name what Stripe lacks otherwise', () => {
    const deps = { db: {} as Db, emit: async () => {} };
    const notEmbedded = { ...deps, embedded: false };
    for (const NODE_ENV of [undefined, 'development', 'test', 'production', 'prod']) {
      expect(() => selectPaymentProvider({ ...notEmbedded, env: { NODE_ENV } }), String(NODE_ENV)).toThrow(
        'Billing needs Stripe outside embedded mode: set STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY, STRIPE_WEBHOOK_SECRET. For a test deployment that must take no real money, set BILLING_PROVIDER=sandbox instead.',
      );
      expect(selectPaymentProvider({ ...notEmbedded, env: { NODE_ENV, BILLING_PROVIDER: 'sandbox' } }).kind).toBe('sandbox');
      expect(selectPaymentProvider({ ...deps, embedded: true, env: { NODE_ENV } }).kind).toBe('sandbox');
    }
    expect(() => selectPaymentProvider({ ...notEmbedded, env: { STRIPE_PUBLISHABLE_KEY: 'pk_test_x' } })).toThrow(
      /set STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET\./,
    );
    expect(() => selectPaymentProvider({ ...deps, embedded: true, env: { STRIPE_SECRET_KEY: 'sk_test_x' } })).toThrow(
      /Stripe billing needs STRIPE_PUBLISHABLE_KEY, STRIPE_WEBHOOK_SECRET/,
    );
    expect(() => selectPaymentProvider({ ...deps, embedded: true, env: { BILLING_PROVIDER: 'paypal' } })).toThrow(/Unknown BILLING_PROVIDER/);
  });

  it('should mount /billing/sandbox/* only with the sandbox, and refuse to build the API without a provider outside embedded mode', async () => {
    const db = {} as Db;
    const stripeEnv = { STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_PUBLISHABLE_KEY: 'pk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_x' };
    const production = { ...testConfig, embedded: false };
    const withStripe = createApiApp({ db, config: production, log: captureLogger(), env: stripeEnv });
    for (const path of ['/billing/sandbox/confirm', '/billing/sandbox/advance-clock'])
      expect((await withStripe.request(path, { method: 'POST' })).status).toBe(404);
    const sandbox = createApiApp({ db, config: production, log: captureLogger(), env: { BILLING_PROVIDER: 'sandbox' } });
    expect((await sandbox.request('/billing/sandbox/confirm', { method: 'POST' })).status).toBe(401);
    expect(() => createApiApp({ db, config: production, log: captureLogger(), env: {} })).toThrow(/Billing needs Stripe outside embedded mode/);
  });
});

describe.each(testDatabaseKinds())('billing events and auto top-up on %s', (kind) => {
  let db: Db;
  let app: ReturnType<typeof testApp>;
  let billing: Billing;

  beforeAll(async () => {
    db = await openTestDb(kind);
    app = testApp(db);
    billing = createBilling({ db, log: captureLogger(), embedded: true, env: {} });
  });
  afterAll(async () => {
    await db?.close();
  });

  async function eventsOf(userId: string): Promise<BillingEvent[]> {
    const { customer_id } = await billingState(db, userId);
    return sandboxOf(billing)!.events(customer_id!);
  }

  async function ledgerRows(userId: string): Promise<number> {
    const { rows } = await db.query<{ n: number }>('select count(*)::int as n from public.credit_ledger where user_id = $1', [userId]);
    return rows[0].n;
  }

  it('should grant once when an invoice.paid event is replayed 10 times, in parallel and in sequence', async () => {
    const user = await subscribedUser(app, db);
    const [paid] = (await eventsOf(user.id)).filter((e) => e.type === 'invoice.paid');
    expect(paid).toBeDefined();
    await Promise.all(Array.from({ length: 10 }, () => handleBillingEvent(billing, paid)));
    for (let i = 0; i < 10; i++) await handleBillingEvent(billing, { ...paid, id: `evt_replay_${i}` });
    expect(await billingState(db, user.id)).toMatchObject({ plan: 'basic', credits: 1000 });
    expect(await paymentsOf(db, user.id)).toHaveLength(1);
    expect(await ledgerRows(user.id)).toBe(1);
  });

  it('should keep the newest plan when an older invoice.paid arrives late, granting each invoice once', async () => {
    const user = await subscribedUser(app, db, 'basic');
    const change = await postOk<{ clientSecret: string }>(app, '/auth/subscribe', user, { plan: 'starter' });
    const { rows } = await db.query<{ id: string }>(
      `select pm.id from billing_sandbox.payment_methods pm join billing_sandbox.customers c on c.id = pm.customer_id where c.user_id = $1`,
      [user.id],
    );
    await confirm(app, user, change.clientSecret, { payment_method: rows[0].id });
    const after = await billingState(db, user.id);
    expect(after).toMatchObject({ plan: 'starter', credits: 6500 });

    const paid = (await eventsOf(user.id)).filter((e) => e.type === 'invoice.paid');
    expect(paid.map((e) => (e.type === 'invoice.paid' ? e.plan : ''))).toEqual(['basic', 'starter']);
    // out of order: newest first, then the old one again, several times
    for (const event of [paid[1], paid[0], paid[0], paid[1], paid[0]]) await handleBillingEvent(billing, event);
    const state = await billingState(db, user.id);
    expect(state).toMatchObject({ plan: 'starter', credits: 6500 });
    expect(state.next_billing_date).toEqual(after.next_billing_date);
    expect(await paymentsOf(db, user.id)).toHaveLength(2);
  });

  it('should grant a top-up once under a parallel burst of its payment event, and once per source key in the ledger', async () => {
    const user = await subscribedUser(app, db);
    const { clientSecret } = await postOk<{ clientSecret: string }>(app, '/auth/topup', user, { amount: 20 });
    await confirm(app, user, clientSecret, { card: card(CARDS.visa) });
    const [succeeded] = (await eventsOf(user.id)).filter((e) => e.type === 'payment_intent.succeeded');
    await Promise.all(Array.from({ length: 10 }, (_, i) => handleBillingEvent(billing, { ...succeeded, id: `evt_burst_${i}` })));
    expect((await billingState(db, user.id)).credits).toBe(1500);
    expect((await paymentsOf(db, user.id)).filter((p) => p.kind === 'topup')).toHaveLength(1);

    const key = `burst:${randomUUID()}`;
    const balances = await Promise.all(
      Array.from({ length: 10 }, () =>
        db.query<{ b: number | null }>('select public.apply_credit($1, 250, $2, $3) as b', [user.id, key, 'burst']).then((r) => r.rows[0].b),
      ),
    );
    expect(balances.filter((b) => b !== null)).toEqual([1750]);
    expect((await billingState(db, user.id)).credits).toBe(1750);
  });

  it('should ignore events of unknown customers and payments without credits', async () => {
    const user = await subscribedUser(app, db);
    const [succeeded] = (await eventsOf(user.id)).filter((e) => e.type === 'invoice.paid');
    await handleBillingEvent(billing, { ...succeeded, customerId: 'cus_sbx_unknown', invoiceId: 'in_sbx_other' });
    await handleBillingEvent(billing, {
      type: 'payment_intent.succeeded',
      id: 'evt_small',
      created: new Date(),
      customerId: succeeded.customerId,
      intentId: 'pi_sbx_small',
      kind: 'topup',
      amountCents: 500,
      currency: 'usd',
      paymentMethodId: null,
      savedPaymentMethod: false,
      metadata: {},
    });
    expect((await billingState(db, user.id)).credits).toBe(1000);
    expect(await ledgerRows(user.id)).toBe(1);
  });

  describe('auto top-up', () => {
    let clock: Date;
    let autoBilling: Billing;

    beforeAll(() => {
      clock = new Date();
      autoBilling = createBilling({ db, log: captureLogger(), embedded: true, env: {}, now: () => clock, autoTopUpBackoffMs: 60_000 });
    });

    /** A subscribed user spending down to 100 credits with auto top-up on, paying with `number`. */
    async function lowBalanceUser(number: string) {
      const user = await subscribedUser(app, db);
      if (number !== CARDS.visa) {
        const pm = await addCard(app, user, number);
        await postOk(app, '/auth/make-default-payment-method', user, { paymentMethodId: pm });
      }
      await postOk(app, '/auth/update-auto-topup', user, { auto_topup: false, auto_topup_min: 250, auto_topup_amount: 20 });
      await moveCredits(db, user.id, -900);
      await db.query('update public.mdusers set auto_topup = true where id = $1', [user.id]);
      return user;
    }

    it.each([
      { name: '4242', number: CARDS.visa },
      { name: '3155 once set up with 3-D Secure', number: CARDS.threeDS },
      { name: '5555 mastercard', number: CARDS.mastercard },
    ])('should charge $name off-session and grant the credits once', async ({ number }) => {
      const user = await lowBalanceUser(number);
      const outcome = await maybeAutoTopUp(autoBilling, user.id);
      expect(outcome.status).toBe('succeeded');
      expect((await billingState(db, user.id)).credits).toBe(600);
      expect(await maybeAutoTopUp(autoBilling, user.id)).toEqual({ status: 'skipped', reason: 'above_threshold' });
      const auto = (await paymentsOf(db, user.id)).filter((p) => p.kind === 'auto_topup');
      expect(auto).toEqual([expect.objectContaining({ amount: '20.00', credits: 500 })]);
      const { rows } = await db.query('select status from public.billing_auto_topup_attempts where user_id = $1', [user.id]);
      expect(rows).toEqual([{ status: 'succeeded' }]);
    });

    it('should run one attempt under concurrent triggers', async () => {
      const user = await lowBalanceUser(CARDS.visa);
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => maybeAutoTopUp(autoBilling, user.id)));
      expect(outcomes.filter((o) => o.status === 'succeeded')).toHaveLength(1);
      expect((await billingState(db, user.id)).credits).toBe(600);
      const { rows } = await db.query('select count(*)::int as n from public.billing_auto_topup_attempts where user_id = $1', [user.id]);
      expect(rows[0]).toEqual({ n: 1 });
    });

    // Two connections are needed to interleave; PGlite has one, so this exists on PostgreSQL only.
    if (kind === 'postgres')
      it('should not open a second attempt on the old balance while the grant closing the first commits', async () => {
        const user = await lowBalanceUser(CARDS.visa);
        const attempt = { userId: user.id, amountCents: 2_000, credits: 500, paymentMethodId: 'pm_race', at: new Date() };
        const first = await billingRepository(db).openAutoTopUpAttempt(attempt);
        expect(first?.id).toEqual(expect.any(String));
        let release!: () => void;
        const gate = new Promise<void>((r) => (release = r));
        let inside!: () => void;
        const granting = new Promise<void>((r) => (inside = r));
        // the event handler's transaction: grant the credits, close the attempt; held open here
        const closing = db.transaction(async (tx) => {
          const repo = billingRepository(tx);
          await repo.grantPayment({
            userId: user.id,
            email: user.email,
            sourceKey: `pi:race-${randomUUID()}`,
            credits: 500,
            reason: 'auto_topup',
            kind: 'auto_topup',
            planName: 'auto_topup',
            amountCents: 2_000,
            currency: 'usd',
            paidAt: new Date(),
          });
          await repo.attemptSucceeded(first!.id, 'pi_race', new Date());
          inside();
          await gate;
        });
        await granting;
        // a second trigger that read the balance before the grant: its insert has to wait for the transaction
        const second = billingRepository(db).openAutoTopUpAttempt(attempt);
        await new Promise((r) => setTimeout(r, 300));
        release();
        await closing;
        expect(await second).toBeUndefined();
        const { rows } = await db.query('select status from public.billing_auto_topup_attempts where user_id = $1', [user.id]);
        expect(rows).toEqual([{ status: 'succeeded' }]);
      });

    it.each([
      { name: '0341 (saved, charges declined)', number: CARDS.chargeDeclined, code: 'generic_decline', text: 'Your card was declined.' },
      { name: '9995 (insufficient funds)', number: CARDS.insufficientFunds, code: 'insufficient_funds', text: 'Your card has insufficient funds.' },
    ])('should back off after a failure with $name and turn off after 3 in a row', async ({ number, code, text }) => {
      const user = await lowBalanceUser(number);
      const first = await maybeAutoTopUp(autoBilling, user.id);
      expect(first).toMatchObject({ status: 'failed', code });
      expect(await billingState(db, user.id)).toMatchObject({ credits: 100, auto_topup: true, auto_topup_failures: 1, auto_topup_disabled_reason: null });
      expect(await maybeAutoTopUp(autoBilling, user.id)).toEqual({ status: 'skipped', reason: 'backoff' });

      clock = new Date(clock.getTime() + 61_000);
      expect(await maybeAutoTopUp(autoBilling, user.id)).toMatchObject({ status: 'failed' });
      expect(await maybeAutoTopUp(autoBilling, user.id)).toEqual({ status: 'skipped', reason: 'backoff' });
      clock = new Date(clock.getTime() + 121_000);
      expect(await maybeAutoTopUp(autoBilling, user.id)).toMatchObject({ status: 'failed' });

      const state = await billingState(db, user.id);
      expect(state).toMatchObject({ credits: 100, auto_topup: false, auto_topup_failures: 3 });
      expect(state.auto_topup_disabled_reason).toBe(`Auto top-up was turned off after 3 failed payments: ${text}`);
      clock = new Date(clock.getTime() + 3_600_000);
      expect(await maybeAutoTopUp(autoBilling, user.id)).toEqual({ status: 'skipped', reason: 'disabled' });
      expect((await paymentsOf(db, user.id)).filter((p) => p.kind === 'auto_topup')).toEqual([]);

      // turning it back on (as the dashboard may, through its own row) clears the failure
      await db.query('update public.mdusers set auto_topup = true where id = $1', [user.id]);
      expect(await billingState(db, user.id)).toMatchObject({ auto_topup_failures: 0, auto_topup_disabled_reason: null });
    });

    it('should turn off at once when the card needs authentication off-session (3184)', async () => {
      const user = await lowBalanceUser(CARDS.threeDSAlways);
      expect(await maybeAutoTopUp(autoBilling, user.id)).toMatchObject({ status: 'failed', code: 'authentication_required' });
      const state = await billingState(db, user.id);
      expect(state).toMatchObject({ auto_topup: false, auto_topup_failures: 1, credits: 100 });
      expect(state.auto_topup_disabled_reason).toMatch(/requires authentication/);
    });

    it('should skip users without a plan, above the threshold or with auto top-up off, and disable without a card', async () => {
      const planless = await createUser(db);
      await db.query('update public.mdusers set auto_topup = true where id = $1', [planless.id]);
      expect(await maybeAutoTopUp(autoBilling, planless.id)).toEqual({ status: 'skipped', reason: 'no_subscription' });

      const user = await lowBalanceUser(CARDS.visa);
      const [pm] = (await billing.provider.listPaymentMethods((await billingState(db, user.id)).customer_id!)).map((c) => c.id);
      await billing.provider.detachPaymentMethod((await billingState(db, user.id)).customer_id!, pm);
      expect(await maybeAutoTopUp(autoBilling, user.id)).toMatchObject({ status: 'disabled' });
      expect((await billingState(db, user.id)).auto_topup_disabled_reason).toMatch(/no saved card/);
    });

    it('should top up at once when turned on below the threshold through the API', async () => {
      const user = await subscribedUser(app, db);
      await moveCredits(db, user.id, -900);
      const res = await post(app, '/auth/update-auto-topup', {
        ...asDashboard(user),
        json: { auto_topup: true, auto_topup_min: 500, auto_topup_amount: '10' },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ auto_topup: true, auto_topup_min: 500, auto_topup_amount: 10 });
      expect((await billingState(db, user.id)).credits).toBe(350);
    });
  });
});
