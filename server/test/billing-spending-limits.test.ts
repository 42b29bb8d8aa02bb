// Spending controls (docs/decisions/0014-spending-controls.md): the monthly spending limit on
// top-ups and auto top-ups, the auto top-up caps (charges per day, dollars per month), all
// enforced by the database as a charge is opened, refusals recorded and readable by their
// owner only, the low-balance email alert (once per crossing), auto top-up settings written
// through the API only, and a sweep that reaches every due account.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DevMailbox } from '@aim/supabase';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { createApiApp } from '../src/app.ts';
import { createLocalEngine } from '../src/engines/local/index.ts';
import { devMailboxMailer, type Mailer, type OutgoingMail } from '../src/mail/mailer.ts';
import { billingRepository } from '../src/repositories/billing/billing-repository.ts';
import { openCharge } from '../src/repositories/billing/open-charge.ts';
import { checkAfterCharge, maybeAutoTopUp, topUpDueAccounts } from '../src/services/billing/auto-topup/trigger.ts';
import { createBilling, type Billing } from '../src/services/billing/billing.ts';
import { sendDueLowBalanceAlerts, sendLowBalanceAlert } from '../src/services/billing/low-balance-alert.ts';
import { createEngineRegistry } from '../src/services/tasks/engine-registry.ts';
import { createDiskMediaStore } from '../src/storage/disk-media-store.ts';
import { asDashboard, captureLogger, createUser, expectErrorBody, post, testApp, testConfig, type TestUser } from './helpers.ts';
import { billingState, card, CARDS, confirm, moveCredits, paymentsOf, postOk, subscribedUser } from './support/billing.ts';
import { openTestDb, TEST_CELL_SIZE } from './support/tasks.ts';

const DAY = 86_400_000;

type Controls = {
  monthly_spend_limit: number | null;
  auto_topup_max_per_day: number;
  auto_topup_monthly_cap: number;
  low_balance_alert_at: number | null;
  usage: { month_spend: number; auto_topup_month: number; auto_topups_today: number };
  last_refusal: { topup: Refusal | null; auto_topup: Refusal | null };
  defaults: Record<string, number | null>;
};
type Refusal = { amount: number; reason: string; message: string; created_at: string };

/** A mailer that keeps what it sent, and fails when told to. */
function memoryMailer(): Mailer & { sent: OutgoingMail[]; failNext: boolean } {
  const m = {
    kind: 'log' as const,
    sent: [] as OutgoingMail[],
    failNext: false,
    async send(mail: OutgoingMail) {
      if (m.failNext) {
        m.failNext = false;
        throw new Error('smtp down');
      }
      m.sent.push(mail);
    },
  };
  return m;
}

/** Runs `sql` as the user's own dashboard session would through REST (role authenticated, RLS on). */
async function asUser<T = unknown>(
  db: Db,
  userId: string | null,
  sql: string,
  params: unknown[] = [],
): Promise<{ ok: true; rows: T[] } | { ok: false; code?: string }> {
  try {
    let rows: T[] = [];
    await db.transaction(async (tx) => {
      if (userId) {
        await tx.query(`select set_config('request.jwt.claims', $1, true), set_config('role', 'authenticated', true)`, [
          JSON.stringify({ sub: userId, role: 'authenticated' }),
        ]);
      } else {
        await tx.query(`select set_config('role', 'anon', true)`);
      }
      rows = (await tx.query<T & object>(sql, params)).rows as T[];
    });
    return { ok: true, rows };
  } catch (e) {
    return { ok: false, code: (e as { code?: string }).code };
  }
}

describe.each(testDatabaseKinds())('spending controls on %s', (kind) => {
  let db: Db;
  let app: ReturnType<typeof testApp>;

  beforeAll(async () => {
    db = await openTestDb(kind);
    app = testApp(db);
  });
  afterAll(async () => {
    await db?.close();
  });

  const getControls = async (user: TestUser): Promise<Controls> => {
    const res = await app.request('/auth/spending-limits', { headers: { authorization: user.apiKey, 'x-session-token': user.session } });
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as Controls;
  };
  const saveControls = (user: TestUser, json: unknown) => postOk<Controls>(app, '/auth/spending-limits', user, json);

  /** A top-up paid with 4242 (the credits arrive with the sandbox's payment event). */
  async function paidTopUp(user: TestUser, amount: number): Promise<void> {
    const { clientSecret } = await postOk<{ clientSecret: string }>(app, '/auth/topup', user, { amount });
    expect((await confirm(app, user, clientSecret, { card: card(CARDS.visa) })).status).toBe('succeeded');
  }

  /** A subscribed user (1000 credits, card 4242) down to 100 credits with auto top-up on: $`amount` below 250. */
  async function lowBalanceUser(amount = 20): Promise<TestUser> {
    const user = await subscribedUser(app, db);
    await postOk(app, '/auth/update-auto-topup', user, { auto_topup: false, auto_topup_min: 250, auto_topup_amount: amount });
    await moveCredits(db, user.id, -900);
    await db.query('update public.mdusers set auto_topup = true where id = $1', [user.id]);
    return user;
  }

  /** Spends the balance back down to 100 credits, below the 250 threshold. */
  async function spendDown(user: TestUser): Promise<void> {
    await moveCredits(db, user.id, 100 - (await billingState(db, user.id)).credits);
  }

  describe('the settings API', () => {
    it('should show the defaults, save the fields given, and turn a limit off with null', async () => {
      const user = await createUser(db);
      const fresh = await getControls(user);
      expect(fresh).toMatchObject({
        monthly_spend_limit: null,
        auto_topup_max_per_day: 3,
        auto_topup_monthly_cap: 500,
        low_balance_alert_at: null,
        usage: { month_spend: 0, auto_topup_month: 0, auto_topups_today: 0 },
        last_refusal: { topup: null, auto_topup: null },
        defaults: { monthly_spend_limit: null, auto_topup_max_per_day: 3, auto_topup_monthly_cap: 500, low_balance_alert_at: null },
      });
      const saved = await saveControls(user, { monthly_spend_limit: 1000, auto_topup_max_per_day: 5, auto_topup_monthly_cap: 300, low_balance_alert_at: 400 });
      expect(saved).toMatchObject({ monthly_spend_limit: 1000, auto_topup_max_per_day: 5, auto_topup_monthly_cap: 300, low_balance_alert_at: 400 });
      // absent fields keep their value; null turns off
      expect(await saveControls(user, { monthly_spend_limit: null })).toMatchObject({
        monthly_spend_limit: null,
        auto_topup_max_per_day: 5,
        auto_topup_monthly_cap: 300,
        low_balance_alert_at: 400,
      });
      expect(await getControls(user)).toMatchObject({ monthly_spend_limit: null, low_balance_alert_at: 400 });
    });

    it.each([
      [{ monthly_spend_limit: 5 }, 'monthly_spend_limit: Must be whole dollars from $10 to $1,000,000, or null for no limit'],
      [{ monthly_spend_limit: 10.5 }, 'monthly_spend_limit: Must be whole dollars from $10 to $1,000,000, or null for no limit'],
      [{ monthly_spend_limit: '100' }, 'monthly_spend_limit: Must be whole dollars from $10 to $1,000,000, or null for no limit'],
      [{ auto_topup_max_per_day: 0 }, 'auto_topup_max_per_day: Must be a whole number from 1 to 20'],
      [{ auto_topup_max_per_day: 21 }, 'auto_topup_max_per_day: Must be a whole number from 1 to 20'],
      [{ auto_topup_max_per_day: null }, 'auto_topup_max_per_day: Must be a whole number from 1 to 20'],
      [{ auto_topup_monthly_cap: 9 }, 'auto_topup_monthly_cap: Must be whole dollars from $10 to $1,000,000'],
      [{ low_balance_alert_at: 0 }, 'low_balance_alert_at: Must be whole credits from 1 to 10,000,000, or null to turn the alert off'],
    ])('should refuse %j with a message naming the field', async (json, msg) => {
      const user = await createUser(db);
      const res = await post(app, '/auth/spending-limits', { ...asDashboard(user), json });
      expect(res.status).toBe(400);
      expect(await expectErrorBody(res)).toEqual({ msg, code: 'validation_failed' });
      expect(await getControls(user)).toMatchObject({ monthly_spend_limit: null, auto_topup_max_per_day: 3, auto_topup_monthly_cap: 500 });
    });

    it('should need the dashboard session, not the API key alone', async () => {
      const user = await createUser(db);
      const res = await post(app, '/auth/spending-limits', { key: user.apiKey, json: { monthly_spend_limit: 100 } });
      expect(res.status).toBe(403);
      expect((await app.request('/auth/spending-limits', { headers: { authorization: user.apiKey } })).status).toBe(403);
    });
  });

  describe('the monthly spending limit', () => {
    it('should count paid and pending top-ups (not the plan), answer 409 over it, and record the refusal', async () => {
      const user = await subscribedUser(app, db); // the $39 plan invoice does not count
      await saveControls(user, { monthly_spend_limit: 50 });
      await paidTopUp(user, 20);
      await postOk(app, '/auth/topup', user, { amount: 20 }); // started, not paid: pending
      expect((await getControls(user)).usage.month_spend).toBe(40);

      const refused = await post(app, '/auth/topup', { ...asDashboard(user), json: { amount: 20 } });
      expect(refused.status).toBe(409);
      const message = 'Monthly spending limit of $50 reached: $40 already charged or pending this month, so this $20 top-up would go over it.';
      expect(await expectErrorBody(refused)).toEqual({ msg: message, code: 'conflict' });
      expect((await getControls(user)).last_refusal).toEqual({
        topup: { amount: 20, reason: 'monthly_spend_limit', message, created_at: expect.any(String) },
        auto_topup: null,
      });
      // what still fits passes
      await postOk(app, '/auth/topup', user, { amount: 10 });
      expect((await post(app, '/auth/topup', { ...asDashboard(user), json: { amount: 10 } })).status).toBe(409);

      // a top-up started more than an hour ago and never paid stops counting
      await db.query(`update public.billing_topup_charges set created_at = created_at - interval '61 minutes' where user_id = $1`, [user.id]);
      expect((await getControls(user)).usage.month_spend).toBe(20);
      await paidTopUp(user, 30);
      expect((await getControls(user)).usage.month_spend).toBe(50);
      expect((await billingState(db, user.id)).credits).toBe(1000 + 500 + 750);
    });

    it('should refuse an auto top-up over it, wait instead of retrying every sweep, and try again once the limit is raised', async () => {
      const billing = createBilling({ db, log: captureLogger(), embedded: true, env: {} });
      const user = await lowBalanceUser(20);
      await saveControls(user, { monthly_spend_limit: 30 });
      await paidTopUp(user, 20); // 120 credits + 500: above the threshold again
      await spendDown(user);

      const outcome = await maybeAutoTopUp(billing, user.id);
      const message = 'Monthly spending limit of $30 reached: $20 already charged or pending this month, so the $20 auto top-up would go over it.';
      expect(outcome).toEqual({ status: 'refused', reason: 'monthly_spend_limit', message });
      expect((await db.query('select 1 from public.billing_auto_topup_attempts where user_id = $1', [user.id])).rows).toEqual([]);
      expect(await maybeAutoTopUp(billing, user.id)).toEqual({ status: 'skipped', reason: 'limit_reached' });
      const { rows } = await db.query<{ n: number }>('select count(*)::int as n from public.billing_charge_refusals where user_id = $1', [user.id]);
      expect(rows[0].n).toBe(1);
      expect((await getControls(user)).last_refusal.auto_topup).toMatchObject({ amount: 20, reason: 'monthly_spend_limit', message });

      await saveControls(user, { monthly_spend_limit: 40 });
      expect(await maybeAutoTopUp(billing, user.id)).toMatchObject({ status: 'succeeded' });
      expect((await billingState(db, user.id)).credits).toBe(600);
      expect((await getControls(user)).usage).toMatchObject({ month_spend: 40, auto_topup_month: 20, auto_topups_today: 1 });
    });
  });

  describe('the auto top-up caps', () => {
    let clock: Date;
    let billing: Billing;
    beforeAll(() => {
      clock = new Date('2026-11-10T12:00:00Z');
      billing = createBilling({ db, log: captureLogger(), embedded: true, env: {}, now: () => clock });
    });

    it('should allow at most the day’s count of charges, and again the next day (UTC)', async () => {
      clock = new Date('2026-11-10T12:00:00Z');
      const user = await lowBalanceUser(10);
      await saveControls(user, { auto_topup_max_per_day: 2 });
      for (let i = 0; i < 2; i++) {
        expect(await maybeAutoTopUp(billing, user.id)).toMatchObject({ status: 'succeeded' });
        await spendDown(user);
      }
      expect(await maybeAutoTopUp(billing, user.id)).toEqual({
        status: 'refused',
        reason: 'auto_topup_daily_count',
        message: 'Daily auto top-up limit reached: 2 auto top-ups today, at most 2 a day.',
      });
      // the sweep does not take the account again today
      clock = new Date('2026-11-10T23:59:00Z');
      expect(await maybeAutoTopUp(billing, user.id)).toEqual({ status: 'skipped', reason: 'limit_reached' });
      clock = new Date('2026-11-11T00:00:30Z');
      expect(await maybeAutoTopUp(billing, user.id)).toMatchObject({ status: 'succeeded' });
      expect((await paymentsOf(db, user.id)).filter((p) => p.kind === 'auto_topup')).toHaveLength(3);
    });

    it('should keep the month’s auto top-ups within the monthly cap (default $500), and start again next month', async () => {
      clock = new Date('2026-11-10T12:00:00Z');
      const user = await lowBalanceUser(200);
      await saveControls(user, { auto_topup_max_per_day: 20 });
      for (let i = 0; i < 2; i++) {
        expect(await maybeAutoTopUp(billing, user.id)).toMatchObject({ status: 'succeeded' });
        await spendDown(user);
      }
      expect(await maybeAutoTopUp(billing, user.id)).toEqual({
        status: 'refused',
        reason: 'auto_topup_monthly_cap',
        message: 'Monthly auto top-up cap of $500 reached: $400 auto topped up this month, so the $200 auto top-up would go over it.',
      });
      clock = new Date('2026-11-30T23:00:00Z');
      expect(await maybeAutoTopUp(billing, user.id)).toEqual({ status: 'skipped', reason: 'limit_reached' });
      clock = new Date('2026-12-01T00:00:01Z');
      expect(await maybeAutoTopUp(billing, user.id)).toMatchObject({ status: 'succeeded' });
    });

    it('should let a lower cap refuse at once and a raised cap pass, counting only succeeded and pending charges', async () => {
      clock = new Date('2026-11-10T12:00:00Z');
      const user = await lowBalanceUser(20);
      await saveControls(user, { auto_topup_monthly_cap: 30 });
      expect(await maybeAutoTopUp(billing, user.id)).toMatchObject({ status: 'succeeded' });
      await spendDown(user);
      // a failed attempt this month charged nothing: it does not count
      await db.query(
        `insert into public.billing_auto_topup_attempts (user_id, amount_cents, credits, status, created_at, finished_at) values ($1, 2000, 500, 'failed', $2, $2)`,
        [user.id, new Date('2026-11-09T12:00:00Z')],
      );
      expect(await maybeAutoTopUp(billing, user.id)).toMatchObject({ status: 'refused', reason: 'auto_topup_monthly_cap' });
      await saveControls(user, { auto_topup_monthly_cap: 40 });
      expect(await maybeAutoTopUp(billing, user.id)).toMatchObject({ status: 'succeeded' });
    });
  });

  describe('concurrent charges', () => {
    it('should let only as many top-ups through as the limit holds, however many arrive at once', async () => {
      const user = await subscribedUser(app, db);
      await saveControls(user, { monthly_spend_limit: 100 });
      const answers = await Promise.all(Array.from({ length: 10 }, () => post(app, '/auth/topup', { ...asDashboard(user), json: { amount: 20 } })));
      expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 409, 409, 409, 409, 409]);
      expect((await getControls(user)).usage.month_spend).toBe(100);
    });

    it('should not let an auto top-up and a top-up racing for the last room both pass', async () => {
      const billing = createBilling({ db, log: captureLogger(), embedded: true, env: {} });
      const user = await lowBalanceUser(20);
      await saveControls(user, { monthly_spend_limit: 30 });
      const [auto, manual] = await Promise.all([maybeAutoTopUp(billing, user.id), post(app, '/auth/topup', { ...asDashboard(user), json: { amount: 20 } })]);
      const passed = [auto.status === 'succeeded', manual.status === 200].filter(Boolean);
      expect(passed).toHaveLength(1);
      expect((await getControls(user)).usage.month_spend).toBe(20);
    });

    // Two connections are needed to interleave; PGlite has one, so this exists on PostgreSQL only.
    if (kind === 'postgres')
      it('should make a second charge wait for the first one’s transaction, then see it and refuse', async () => {
        const user = await subscribedUser(app, db);
        await saveControls(user, { monthly_spend_limit: 30 });
        const charge = { userId: user.id, kind: 'topup' as const, amountCents: 2_000, credits: 500, paymentMethodId: null, at: new Date() };
        let release!: () => void;
        const gate = new Promise<void>((r) => (release = r));
        let opened!: () => void;
        const inside = new Promise<void>((r) => (opened = r));
        const first = db.transaction(async (tx) => {
          expect(await openCharge(tx, charge)).toMatchObject({ outcome: 'opened' });
          opened();
          await gate; // still uncommitted, the user's row still locked
        });
        await inside;
        let secondDone = false;
        const second = openCharge(db, charge).then((r) => {
          secondDone = true;
          return r;
        });
        await new Promise((r) => setTimeout(r, 300));
        expect(secondDone).toBe(false); // waiting on the row lock, not deciding on the old sums
        release();
        await first;
        expect(await second).toMatchObject({ outcome: 'refused', reason: 'monthly_spend_limit' });
      });
  });

  describe('refusals and the one write path', () => {
    it('should let the owner read their refusals through RLS, and nobody else', async () => {
      const user = await subscribedUser(app, db);
      await saveControls(user, { monthly_spend_limit: 10 });
      expect((await post(app, '/auth/topup', { ...asDashboard(user), json: { amount: 20 } })).status).toBe(409);
      const own = await asUser<{ reason: string; kind: string }>(db, user.id, 'select kind, reason from public.billing_charge_refusals');
      expect(own).toEqual({ ok: true, rows: [{ kind: 'topup', reason: 'monthly_spend_limit' }] });
      const other = await createUser(db);
      expect(await asUser(db, other.id, 'select * from public.billing_charge_refusals where user_id = $1', [user.id])).toEqual({ ok: true, rows: [] });
      expect(await asUser(db, null, 'select * from public.billing_charge_refusals')).toMatchObject({ ok: false, code: '42501' });
      // nor may the owner write or delete one, or call the charge function
      expect(await asUser(db, user.id, 'delete from public.billing_charge_refusals')).toMatchObject({ ok: false, code: '42501' });
      expect(await asUser(db, user.id, `select * from public.billing_open_charge($1, 'topup', 1000, 250, null, now())`, [user.id])).toMatchObject({
        ok: false,
        code: '42501',
      });
    });

    it('should refuse REST writes of the auto top-up settings and of the limits: the API is the one write path', async () => {
      const user = await subscribedUser(app, db);
      for (const set of [
        'auto_topup = true',
        'auto_topup_amount = 20',
        'auto_topup_min = 500',
        'monthly_spend_limit = null',
        'auto_topup_max_per_day = 20',
        'auto_topup_monthly_cap = 1000000',
        'low_balance_alert_at = 1',
        'low_balance_alert_due = false',
      ]) {
        expect(await asUser(db, user.id, `update public.mdusers set ${set} where id = $1`, [user.id]), set).toMatchObject({ ok: false, code: '42501' });
      }
      // reading its own row (and the new columns) still works
      const read = await asUser<{ auto_topup_monthly_cap: number }>(db, user.id, 'select auto_topup_monthly_cap from public.mdusers where id = $1', [user.id]);
      expect(read).toEqual({ ok: true, rows: [{ auto_topup_monthly_cap: 500 }] });
      // the constraints stay for the server's own writes
      for (const set of [
        'auto_topup_amount = 15',
        'auto_topup_min = 300',
        'auto_topup_max_per_day = 21',
        'auto_topup_monthly_cap = 5',
        'monthly_spend_limit = 0',
      ]) {
        await expect(db.query(`update public.mdusers set ${set} where id = $1`, [user.id]), set).rejects.toMatchObject({ code: '23514' });
      }
      // and the API saves them
      expect(await postOk(app, '/auth/update-auto-topup', user, { auto_topup: true, auto_topup_min: 500, auto_topup_amount: 20 })).toMatchObject({
        auto_topup: true,
        auto_topup_min: 500,
        auto_topup_amount: 20,
      });
    });
  });

  describe('the low-balance alert', () => {
    it('should email once when a charge crosses the threshold, and again only after the balance recovered', async () => {
      const mailer = memoryMailer();
      const billing = createBilling({ db, log: captureLogger(), embedded: true, env: {}, mailer });
      const user = await subscribedUser(app, db); // 1000 credits
      await saveControls(user, { low_balance_alert_at: 500 });
      await moveCredits(db, user.id, -400); // 600: above
      expect(await sendLowBalanceAlert(billing, user.id)).toBe(false);
      await moveCredits(db, user.id, -200); // 400: crossed
      await checkAfterCharge(billing, user.id);
      expect(mailer.sent).toEqual([
        {
          to: user.email,
          subject: 'Your credit balance is below 500',
          text: expect.stringContaining('Your balance is now 400 credits, below the 500 credits you asked to be told about.'),
        },
      ]);
      // more charges below the threshold, concurrent checks and the sweep: nothing more
      await moveCredits(db, user.id, -100);
      await Promise.all([sendLowBalanceAlert(billing, user.id), sendLowBalanceAlert(billing, user.id), sendDueLowBalanceAlerts(billing)]);
      expect(mailer.sent).toHaveLength(1);
      // back at the threshold re-arms; the next crossing emails again
      await moveCredits(db, user.id, 200); // 500
      await moveCredits(db, user.id, -1); // 499
      expect(await sendLowBalanceAlert(billing, user.id)).toBe(true);
      expect(mailer.sent).toHaveLength(2);
      const { rows } = await db.query<{ low_balance_alert_sent_at: Date | null }>('select low_balance_alert_sent_at from public.mdusers where id = $1', [
        user.id,
      ]);
      expect(rows[0].low_balance_alert_sent_at).toBeInstanceOf(Date);
    });

    it('should not email for a threshold set above the balance, nor once the balance recovered before the check', async () => {
      const mailer = memoryMailer();
      const billing = createBilling({ db, log: captureLogger(), embedded: true, env: {}, mailer });
      const user = await subscribedUser(app, db);
      await moveCredits(db, user.id, -900); // 100
      await saveControls(user, { low_balance_alert_at: 250 });
      expect(await sendLowBalanceAlert(billing, user.id)).toBe(false);
      await moveCredits(db, user.id, -10); // still below, but no crossing
      expect(await sendLowBalanceAlert(billing, user.id)).toBe(false);
      await moveCredits(db, user.id, 500); // 590: above
      await moveCredits(db, user.id, -400); // 190: crossed
      await moveCredits(db, user.id, 300); // 490: recovered before anyone looked
      expect(await sendDueLowBalanceAlerts(billing)).toBe(0);
      // turning the alert off clears a due alert too
      await moveCredits(db, user.id, -400); // 90: crossed
      await saveControls(user, { low_balance_alert_at: null });
      expect(await sendLowBalanceAlert(billing, user.id)).toBe(false);
      expect(mailer.sent).toEqual([]);
    });

    it('should send it from the check after a generation charge, into the dev mailbox, once', async () => {
      // the API as main.ts builds it in embedded mode: billing's mail goes to the dev mailbox
      const mailbox = new DevMailbox();
      const mediaDir = await mkdtemp(path.join(os.tmpdir(), 'aim-alert-'));
      const billing = createBilling({ db, log: captureLogger(), embedded: true, env: {}, mailer: devMailboxMailer(mailbox) });
      const api = createApiApp({
        db,
        config: testConfig,
        log: captureLogger(),
        billing,
        media: createDiskMediaStore({ dir: mediaDir, publicUrl: testConfig.publicUrl }),
        engines: createEngineRegistry([createLocalEngine({ cellSize: TEST_CELL_SIZE })]),
      });
      try {
        const user = await subscribedUser(api, db); // 1000 credits, card 4242
        await postOk(api, '/auth/update-auto-topup', user, { auto_topup: true, auto_topup_min: 250, auto_topup_amount: 10 });
        await saveControls(user, { low_balance_alert_at: 500 });
        await moveCredits(db, user.id, -(1000 - 252)); // a charge crosses 500: the alert is due; one imagine (4) then takes it below 250
        expect(mailbox.list(user.email)).toEqual([]);
        expect((await post(api, '/pro/imagine', { key: user.apiKey, json: { prompt: 'a quiet harbour' } })).status).toBe(200);
        const deadline = Date.now() + 10_000;
        while (mailbox.list(user.email).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        // the after-charge check: the auto top-up first (248 + 250), still below the alert's 500: one email
        const mails = mailbox.list(user.email);
        expect(mails).toHaveLength(1);
        expect(mails[0].subject).toBe('Your credit balance is below 500');
        expect((await billingState(db, user.id)).credits).toBe(498);
        expect(await sendDueLowBalanceAlerts(billing)).toBe(0);
        expect(mailbox.list(user.email)).toHaveLength(1);
      } finally {
        await rm(mediaDir, { recursive: true, force: true });
      }
    });

    it('should send it right after the charge without auto top-up too (the submit statement asks for the check)', async () => {
      const mailbox = new DevMailbox();
      const mediaDir = await mkdtemp(path.join(os.tmpdir(), 'aim-alert-'));
      const billing = createBilling({ db, log: captureLogger(), embedded: true, env: {}, mailer: devMailboxMailer(mailbox) });
      const api = createApiApp({
        db,
        config: testConfig,
        log: captureLogger(),
        billing,
        media: createDiskMediaStore({ dir: mediaDir, publicUrl: testConfig.publicUrl }),
        engines: createEngineRegistry([createLocalEngine({ cellSize: TEST_CELL_SIZE })]),
      });
      try {
        const user = await subscribedUser(api, db); // 1000 credits, auto top-up off
        await saveControls(user, { low_balance_alert_at: 999 });
        expect((await post(api, '/pro/imagine', { key: user.apiKey, json: { prompt: 'a quiet harbour' } })).status).toBe(200);
        // no sweep runs in this app: only the after-charge check can send it
        const deadline = Date.now() + 10_000;
        while (mailbox.list(user.email).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        expect(mailbox.list(user.email).map((m) => m.subject)).toEqual(['Your credit balance is below 999']);
      } finally {
        await rm(mediaDir, { recursive: true, force: true });
      }
    });

    it('should retry from the sweep when the mail fails, and land in the dev mailbox in embedded mode', async () => {
      const failing = memoryMailer();
      failing.failNext = true;
      const user = await subscribedUser(app, db);
      await saveControls(user, { low_balance_alert_at: 500 });
      await moveCredits(db, user.id, -600);
      expect(await sendLowBalanceAlert(createBilling({ db, log: captureLogger(), embedded: true, env: {}, mailer: failing }), user.id)).toBe(false);

      const mailbox = new DevMailbox();
      const billing = createBilling({ db, log: captureLogger(), embedded: true, env: {}, mailer: devMailboxMailer(mailbox) });
      expect(await sendDueLowBalanceAlerts(billing)).toBeGreaterThanOrEqual(1);
      const [mail] = mailbox.list(user.email);
      expect(mail).toMatchObject({ to: user.email, subject: 'Your credit balance is below 500' });
      expect(mail.text).toContain('Your balance is now 400 credits');
      expect(await sendDueLowBalanceAlerts(billing)).toBe(0);
      expect(mailbox.list(user.email)).toHaveLength(1);
    });
  });
});

describe.each(testDatabaseKinds())('the auto top-up sweep on %s', (kind) => {
  let db: Db;
  let app: ReturnType<typeof testApp>;

  beforeAll(async () => {
    db = await openTestDb(kind);
    app = testApp(db);
  });
  afterAll(async () => {
    await db?.close();
  });

  /** An account the sweep sees as due (subscribed, auto top-up on, below its threshold), without a card. */
  async function dueAccount(): Promise<string> {
    const user = await createUser(db);
    await db.query(`update public.mdusers set plan = 'basic', auto_topup = true, auto_topup_min = 250, credits = 0 where id = $1`, [user.id]);
    return user.id;
  }

  it('should reach every due account over repeated batches, and give no slot to accounts in backoff, pending or refused', async () => {
    const now = new Date();
    const backoffMs = 10 * 60_000;
    const due = [];
    for (let i = 0; i < 7; i++) due.push(await dueAccount());
    const waiting = [];
    for (let i = 0; i < 3; i++) {
      // a failure a minute ago: in backoff (10 minutes)
      const id = await dueAccount();
      await db.query('update public.mdusers set auto_topup_failures = 1 where id = $1', [id]);
      await db.query(
        `insert into public.billing_auto_topup_attempts (user_id, amount_cents, credits, status, created_at, finished_at) values ($1, 1000, 250, 'failed', $2, $2)`,
        [id, new Date(now.getTime() - 60_000)],
      );
      waiting.push(id);
    }
    const pending = await dueAccount();
    await db.query('insert into public.billing_auto_topup_attempts (user_id, amount_cents, credits, created_at) values ($1, 1000, 250, $2)', [pending, now]);
    const refused = await dueAccount();
    await db.query('update public.mdusers set auto_topup_refused_until = $2 where id = $1', [refused, new Date(now.getTime() + DAY)]);

    const repo = billingRepository(db);
    const batches: string[][] = [];
    for (let i = 0; i < 3; i++) batches.push(await repo.dueAutoTopUpUsers(3, { now: new Date(now.getTime() + i * 1000), backoffMs }));
    expect(batches.map((b) => b.length)).toEqual([3, 3, 3]);
    // the first batches cover every due account before any comes round again
    expect(new Set([...batches[0], ...batches[1], batches[2][0]])).toEqual(new Set(due));
    for (const id of [...waiting, pending, refused]) expect(batches.flat()).not.toContain(id);

    // once the backoff is over, those accounts come first: they were never looked at
    const later = await repo.dueAutoTopUpUsers(3, { now: new Date(now.getTime() + backoffMs), backoffMs });
    expect(new Set(later)).toEqual(new Set(waiting));
  });

  it('should top up every due account with repeated small sweeps', async () => {
    // a fresh database's due list holds only these: the accounts above have no card and are turned off by the first check
    const billing = createBilling({ db, log: captureLogger(), embedded: true, env: {} });
    const users: TestUser[] = [];
    for (let i = 0; i < 5; i++) {
      const user = await subscribedUser(app, db);
      await postOk(app, '/auth/update-auto-topup', user, { auto_topup: false, auto_topup_min: 250, auto_topup_amount: 10 });
      await moveCredits(db, user.id, -900);
      await db.query('update public.mdusers set auto_topup = true where id = $1', [user.id]);
      users.push(user);
    }
    for (let sweep = 0; sweep < 12; sweep++) await topUpDueAccounts(billing, 2);
    for (const user of users) expect((await billingState(db, user.id)).credits, user.email).toBe(350);
  });
});
