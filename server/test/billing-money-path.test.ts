// The money path where an outcome arrives late, twice, out of order or never: auto top-up
// against a provider whose webhooks are delayed or whose charge call times out after the
// charge was made, resubscribing after a subscription ended, saving a card that is already
// saved, invoice numbers under replays, and the auto top-up settings' one write path (the
// API; the database still bounds every value).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import type { BillingEvent, PaymentProvider } from '../src/billing/payment-provider.ts';
import { createSandboxProvider } from '../src/billing/sandbox/sandbox-provider.ts';
import { finishAbandonedAttempts } from '../src/services/billing/auto-topup/charge-attempt.ts';
import { maybeAutoTopUp, topUpDueAccounts } from '../src/services/billing/auto-topup/trigger.ts';
import type { Billing } from '../src/services/billing/billing.ts';
import { handleBillingEvent } from '../src/services/billing/handle-event.ts';
import { asDashboard, captureLogger, createUser, post, testApp, type TestUser } from './helpers.ts';
import { addCard, billingState, card, CARDS, confirm, moveCredits, paymentsOf, postOk, subscribedUser } from './support/billing.ts';
import { openTestDb } from './support/tasks.ts';

const MINUTE = 60_000;

describe.each(testDatabaseKinds())('money path on %s', (kind) => {
  let db: Db;
  let app: ReturnType<typeof testApp>;

  beforeAll(async () => {
    db = await openTestDb(kind);
    app = testApp(db);
  });
  afterAll(async () => {
    await db?.close();
  });

  /** A subscribed user spending down to 100 credits with auto top-up on ($20 below 250). */
  async function lowBalanceUser(): Promise<TestUser> {
    const user = await subscribedUser(app, db);
    await postOk(app, '/auth/update-auto-topup', user, { auto_topup: false, auto_topup_min: 250, auto_topup_amount: 20 });
    await moveCredits(db, user.id, -900);
    await db.query('update public.mdusers set auto_topup = true where id = $1', [user.id]);
    return user;
  }

  /** The customer's card charges in the sandbox: every succeeded auto top-up payment intent. */
  async function autoTopUpCharges(userId: string): Promise<number> {
    const { rows } = await db.query<{ n: number }>(
      `select count(*)::int as n from billing_sandbox.payment_intents p join billing_sandbox.customers c on c.id = p.customer_id
        where c.user_id = $1 and p.kind = 'auto_topup' and p.status = 'succeeded'`,
      [userId],
    );
    return rows[0].n;
  }

  /**
   * Billing on the same database whose provider's webhooks are held back until `flush()`
   * (a provider whose events arrive late), on a clock the test moves.
   */
  function lateWebhookBilling(wrap: (p: PaymentProvider) => PaymentProvider = (p) => p) {
    const held: BillingEvent[] = [];
    let clock = new Date();
    const billing = {
      db,
      log: captureLogger(),
      now: () => clock,
      autoTopUpBackoffMs: MINUTE,
      autoTopUpRetryDelaysMs: [0, 0],
    } as unknown as Billing;
    billing.provider = wrap(
      createSandboxProvider({
        db,
        now: () => clock,
        emit: async (event) => {
          held.push(event);
        },
      }),
    );
    return {
      billing,
      advance: (ms: number) => {
        clock = new Date(clock.getTime() + ms);
      },
      flush: async () => {
        for (const event of held.splice(0)) await handleBillingEvent(billing, event);
      },
    };
  }

  describe('auto top-up charges once per shortfall', () => {
    it('should settle a charge the provider reports succeeded at once, so a webhook late past the attempt window cannot lead to a second charge', async () => {
      const user = await lowBalanceUser();
      const late = lateWebhookBilling();
      expect(await maybeAutoTopUp(late.billing, user.id)).toMatchObject({ status: 'succeeded' });
      expect((await billingState(db, user.id)).credits).toBe(600);

      late.advance(11 * MINUTE);
      await moveCredits(db, user.id, -500);
      // below the threshold again: this is a new shortfall, and the first one is settled
      expect(await maybeAutoTopUp(late.billing, user.id)).toMatchObject({ status: 'succeeded' });
      await late.flush();
      expect(await autoTopUpCharges(user.id)).toBe(2);
      expect((await billingState(db, user.id)).credits).toBe(600);
      expect((await paymentsOf(db, user.id)).filter((p) => p.kind === 'auto_topup')).toHaveLength(2);
    });

    it('should ask the provider about a processing charge after the attempt window instead of charging again, and grant once when the webhook finally comes', async () => {
      const user = await lowBalanceUser();
      // the provider answers "processing" (the bank has not said yet); its webhook comes much later
      const late = lateWebhookBilling((p) => ({
        ...p,
        chargeOffSession: async (input) => {
          const result = await p.chargeOffSession(input);
          return { status: 'processing', intentId: result.intentId };
        },
      }));
      expect(await maybeAutoTopUp(late.billing, user.id)).toMatchObject({ status: 'processing' });
      expect(await maybeAutoTopUp(late.billing, user.id)).toEqual({ status: 'skipped', reason: 'in_progress' });

      late.advance(11 * MINUTE);
      await maybeAutoTopUp(late.billing, user.id);
      await maybeAutoTopUp(late.billing, user.id);
      expect(await autoTopUpCharges(user.id)).toBe(1);
      expect((await billingState(db, user.id)).credits).toBe(600);

      await late.flush();
      expect((await billingState(db, user.id)).credits).toBe(600);
      expect((await paymentsOf(db, user.id)).filter((p) => p.kind === 'auto_topup')).toHaveLength(1);
      const { rows } = await db.query('select status from public.billing_auto_topup_attempts where user_id = $1', [user.id]);
      expect(rows).toEqual([{ status: 'succeeded' }]);
    });

    it('should settle a charge whose answer and webhook were both lost from the periodic sweep, without any further trigger', async () => {
      const user = await lowBalanceUser();
      const late = lateWebhookBilling((p) => ({
        ...p,
        chargeOffSession: async (input) => ({ status: 'processing', intentId: (await p.chargeOffSession(input)).intentId }),
      }));
      const attempts = async () =>
        (await db.query<{ status: string }>('select status from public.billing_auto_topup_attempts where user_id = $1', [user.id])).rows.map((r) => r.status);
      await maybeAutoTopUp(late.billing, user.id);
      await finishAbandonedAttempts(late.billing);
      // within the attempt window its caller may still be waiting for the answer
      expect(await attempts()).toEqual(['pending']);
      late.advance(11 * MINUTE);
      await finishAbandonedAttempts(late.billing);
      expect(await attempts()).toEqual(['succeeded']);
      expect((await billingState(db, user.id)).credits).toBe(600);
      await finishAbandonedAttempts(late.billing);
      expect(await autoTopUpCharges(user.id)).toBe(1);
    });

    it('should top up an account the check after a charge never reached (the process died after the commit) from the sweep, once', async () => {
      // lowBalanceUser spends the credits and turns auto top-up on without running the check
      const user = await lowBalanceUser();
      const late = lateWebhookBilling();
      expect(await topUpDueAccounts(late.billing)).toBeGreaterThanOrEqual(1);
      await late.flush();
      expect((await billingState(db, user.id)).credits).toBe(600);
      // above the threshold now: later sweeps (and replayed webhooks) charge nothing more
      await topUpDueAccounts(late.billing);
      await late.flush();
      await topUpDueAccounts(late.billing);
      expect(await autoTopUpCharges(user.id)).toBe(1);
    });

    it('should leave a due account alone in the sweep while its last failure backs off, and charge it after', async () => {
      const user = await lowBalanceUser();
      const late = lateWebhookBilling();
      await db.query('update public.mdusers set auto_topup_failures = 1 where id = $1', [user.id]);
      await db.query(
        `insert into public.billing_auto_topup_attempts (user_id, amount_cents, credits, payment_method_id, status, created_at, finished_at)
         values ($1, 2000, 500, 'pm_none', 'failed', $2, $2)`,
        [user.id, late.billing.now()],
      );
      await topUpDueAccounts(late.billing);
      expect(await autoTopUpCharges(user.id)).toBe(0);
      late.advance(2 * MINUTE);
      await topUpDueAccounts(late.billing);
      await late.flush();
      expect(await autoTopUpCharges(user.id)).toBe(1);
      expect((await billingState(db, user.id)).credits).toBe(600);
    });

    it('should retry a charge call that timed out after the charge was made with the same idempotency key: one charge', async () => {
      const user = await lowBalanceUser();
      const keys: string[] = [];
      let timeouts = 1;
      const late = lateWebhookBilling((p) => ({
        ...p,
        chargeOffSession: async (input) => {
          keys.push(input.idempotencyKey);
          const result = await p.chargeOffSession(input);
          if (timeouts-- > 0) throw new Error('Request timed out (the charge went through)');
          return result;
        },
      }));
      expect(await maybeAutoTopUp(late.billing, user.id)).toMatchObject({ status: 'succeeded' });
      expect(new Set(keys).size).toBe(1);
      late.advance(61 * MINUTE);
      await maybeAutoTopUp(late.billing, user.id);
      await late.flush();
      expect(await autoTopUpCharges(user.id)).toBe(1);
      expect((await billingState(db, user.id)).credits).toBe(600);
    });

    it('should keep an attempt whose outcome is unknown and finish it later with the same key: one charge, however long the provider was away', async () => {
      const user = await lowBalanceUser();
      const keys: string[] = [];
      let reachable = false;
      const late = lateWebhookBilling((p) => ({
        ...p,
        chargeOffSession: async (input) => {
          keys.push(input.idempotencyKey);
          // the first call charges and its answer is lost; then the provider is down for a while
          if (keys.length === 1) {
            await p.chargeOffSession(input);
            throw new Error('socket hang up');
          }
          if (!reachable) throw new Error('connect ECONNREFUSED');
          return p.chargeOffSession(input);
        },
      }));
      expect(await maybeAutoTopUp(late.billing, user.id)).toMatchObject({ status: 'failed', code: 'provider_unreachable' });
      expect(await billingState(db, user.id)).toMatchObject({ credits: 100, auto_topup: true, auto_topup_failures: 1 });

      late.advance(11 * MINUTE);
      await maybeAutoTopUp(late.billing, user.id);
      expect(await autoTopUpCharges(user.id)).toBe(1);
      reachable = true;
      late.advance(11 * MINUTE);
      expect(await maybeAutoTopUp(late.billing, user.id)).toMatchObject({ status: 'skipped', reason: 'above_threshold' });
      await late.flush();
      expect(new Set(keys).size).toBe(1);
      expect(await autoTopUpCharges(user.id)).toBe(1);
      expect(await billingState(db, user.id)).toMatchObject({ credits: 600, auto_topup_failures: 0 });
    });

    it('should count unknown outcomes toward turning auto top-up off, with the reason stored', async () => {
      const user = await lowBalanceUser();
      const late = lateWebhookBilling((p) => ({
        ...p,
        chargeOffSession: async () => {
          throw new Error('connect ETIMEDOUT');
        },
      }));
      for (let i = 0; i < 3; i++) {
        await maybeAutoTopUp(late.billing, user.id);
        late.advance(11 * MINUTE);
      }
      const state = await billingState(db, user.id);
      expect(state).toMatchObject({ credits: 100, auto_topup: false, auto_topup_failures: 3 });
      expect(state.auto_topup_disabled_reason).toBe('Auto top-up was turned off after 3 failed payments: The payment provider could not be reached');
      expect(await autoTopUpCharges(user.id)).toBe(0);
    });
  });

  it('should make a new subscription active at once after the old one ended, whichever event is processed first', async () => {
    for (const order of ['end first', 'payment first'] as const) {
      const user = await subscribedUser(app, db);
      await postOk(app, '/auth/cancel', user);
      const events: BillingEvent[] = [];
      const billing = {
        db,
        log: captureLogger(),
        now: () => new Date(),
        autoTopUpBackoffMs: MINUTE,
      } as unknown as Billing;
      billing.provider = createSandboxProvider({ db, emit: async (e) => void events.push(e) });
      const { customer_id } = await billingState(db, user.id);
      await (billing.provider as ReturnType<typeof createSandboxProvider>).advanceClock(customer_id!, new Date(Date.now() + 32 * 86_400_000));
      const ended = events.find((e) => e.type === 'customer.subscription.deleted');
      expect(ended).toBeDefined();
      if (order === 'end first') await handleBillingEvent(billing, ended!);
      expect((await billingState(db, user.id)).plan).toBe(order === 'end first' ? 'zero' : 'basic');

      const { clientSecret } = await postOk<{ clientSecret: string }>(app, '/auth/subscribe', user, { plan: 'starter' });
      expect((await confirm(app, user, clientSecret, { card: card(CARDS.visa) })).status).toBe('succeeded');
      if (order === 'payment first') await handleBillingEvent(billing, ended!);

      const state = await billingState(db, user.id);
      expect(state.plan, order).toBe('starter');
      expect(state.next_billing_date, order).not.toBeNull();
      // an active plan: a top-up is allowed, and subscribing to the same plan again is refused
      expect((await post(app, '/auth/topup', { ...asDashboard(user), json: { amount: 10 } })).status, order).toBe(200);
      expect((await post(app, '/auth/subscribe', { ...asDashboard(user), json: { plan: 'starter' } })).status, order).toBe(409);
    }
  });

  it('should not save a card twice when a payment is made with a card already on file', async () => {
    const user = await subscribedUser(app, db);
    await addCard(app, user, CARDS.mastercard);
    const { clientSecret } = await postOk<{ clientSecret: string }>(app, '/auth/topup', user, { amount: 10 });
    // the same 4242 typed again into the payment form
    expect((await confirm(app, user, clientSecret, { card: card(CARDS.visa) })).status).toBe('succeeded');
    const change = await postOk<{ clientSecret: string }>(app, '/auth/subscribe', user, { plan: 'growth' });
    expect((await confirm(app, user, change.clientSecret, { card: card(CARDS.mastercard) })).status).toBe('succeeded');
    const { paymentMethods } = await (
      await app.request('/auth/payment-methods', { headers: { authorization: user.apiKey, 'x-session-token': user.session } })
    ).json();
    expect(paymentMethods.map((m: { last4: string }) => m.last4).sort()).toEqual(['4242', '4444']);
    expect(paymentMethods.filter((m: { default: boolean }) => m.default)).toHaveLength(1);
  });

  it('should not spend an invoice number on a replayed or duplicate payment event', async () => {
    const user = await subscribedUser(app, db);
    const { customer_id } = await billingState(db, user.id);
    const billing = { db, log: captureLogger(), now: () => new Date() } as unknown as Billing;
    billing.provider = createSandboxProvider({ db, emit: async () => {} });
    const [paid] = (await (billing.provider as ReturnType<typeof createSandboxProvider>).events(customer_id!)).filter((e) => e.type === 'invoice.paid');
    for (let i = 0; i < 3; i++) await handleBillingEvent(billing, { ...paid, id: `evt_dup_${i}` });
    await Promise.all(Array.from({ length: 3 }, (_, i) => handleBillingEvent(billing, { ...paid, id: `evt_par_${i}` })));
    const { clientSecret } = await postOk<{ clientSecret: string }>(app, '/auth/topup', user, { amount: 10 });
    await confirm(app, user, clientSecret, { card: card(CARDS.visa) });
    const numbers = (await paymentsOf(db, user.id)).map((p) => Number(p.invoice_number.replace('INV-', '')));
    expect(numbers).toHaveLength(2);
    expect(numbers[1] - numbers[0]).toBe(1);
  });

  describe('auto top-up settings have one write path, the API', () => {
    /** An update as the dashboard's own session makes it (role authenticated, RLS on). */
    async function updateAsUser(userId: string, set: string): Promise<{ ok: boolean; code?: string; message?: string }> {
      try {
        await db.transaction(async (tx) => {
          await tx.query(`select set_config('request.jwt.claims', $1, true), set_config('role', 'authenticated', true)`, [
            JSON.stringify({ sub: userId, role: 'authenticated' }),
          ]);
          await tx.query(`update public.mdusers set ${set} where id = $1`, [userId]);
        });
        return { ok: true };
      } catch (e) {
        const err = e as { code?: string; message?: string };
        return { ok: false, code: err.code, message: err.message };
      }
    }

    it('should refuse every direct write of the settings, while the database still bounds the server’s own', async () => {
      const user = await subscribedUser(app, db);
      // the dashboard's session may not write them at all (no column grant): POST /auth/update-auto-topup only
      for (const set of ['auto_topup = true', 'auto_topup_amount = 20', 'auto_topup_min = 500', 'auto_topup_amount = 10000, auto_topup_min = 2500']) {
        expect(await updateAsUser(user.id, set), set).toMatchObject({ ok: false, code: '42501' });
      }
      // the constraints stay: $10 blocks up to the cap, a threshold from the list
      for (const set of [
        'auto_topup_amount = 15',
        'auto_topup_amount = 0',
        'auto_topup_amount = 10010',
        'auto_topup_amount = 2147483640',
        'auto_topup_min = 300',
      ]) {
        await expect(db.query(`update public.mdusers set ${set} where id = $1`, [user.id]), set).rejects.toMatchObject({ code: '23514' });
      }
      expect(await billingState(db, user.id)).toMatchObject({ auto_topup: false });

      // and the API asks the provider for a card before turning it on
      const cardless = await createUser(db);
      await postOk(app, '/auth/createCustomer', cardless);
      const refused = await post(app, '/auth/update-auto-topup', {
        ...asDashboard(cardless),
        json: { auto_topup: true, auto_topup_min: 250, auto_topup_amount: 10 },
      });
      expect(refused.status).toBe(409);
      expect((await billingState(db, cardless.id)).auto_topup).toBe(false);
    });
  });
});
