import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { asDashboard, createUser, expectErrorBody, post, testApp, type TestUser } from './helpers.ts';
import { addCard, billingState, card, CARDS, confirm, paymentsOf, pdfText, postOk, subscribedUser } from './support/billing.ts';
import { openTestDb } from './support/tasks.ts';

const TOPUP_MESSAGE = 'Enter a valid custom amount (multiples of $10)';

describe.each(testDatabaseKinds())('billing calls with the sandbox provider on %s', (kind) => {
  let db: Db;
  let app: ReturnType<typeof testApp>;

  beforeAll(async () => {
    db = await openTestDb(kind);
    app = testApp(db);
  });
  afterAll(async () => {
    await db?.close();
  });

  it('should create the customer once, also under concurrent calls', async () => {
    const user = await createUser(db);
    const answers = await Promise.all(Array.from({ length: 5 }, () => postOk<{ customer_id: string }>(app, '/auth/createCustomer', user)));
    expect(new Set(answers.map((a) => a.customer_id)).size).toBe(1);
    expect(answers[0].customer_id).toMatch(/^cus_sbx_/);
    expect((await billingState(db, user.id)).customer_id).toBe(answers[0].customer_id);
    const { rows } = await db.query('select id from billing_sandbox.customers where user_id = $1', [user.id]);
    expect(rows).toHaveLength(1);
  });

  describe('subscribe, per test card', () => {
    it.each([
      { name: '4242 succeeds', number: CARDS.visa, steps: [{}], status: 'succeeded' },
      { name: 'mastercard 4444 succeeds', number: CARDS.mastercard, steps: [{}], status: 'succeeded' },
      { name: '0002 is declined', number: CARDS.declined, steps: [{}], status: 'requires_payment_method', code: 'card_declined', decline: 'generic_decline' },
      {
        name: '9995 has insufficient funds',
        number: CARDS.insufficientFunds,
        steps: [{}],
        status: 'requires_payment_method',
        code: 'card_declined',
        decline: 'insufficient_funds',
      },
      { name: '0069 is expired', number: CARDS.expired, steps: [{}], status: 'requires_payment_method', code: 'expired_card' },
      { name: '3155 succeeds after 3-D Secure', number: CARDS.threeDS, steps: [{}, { three_d_secure: 'approve' }], status: 'succeeded' },
      {
        name: '3155 fails a failed 3-D Secure',
        number: CARDS.threeDS,
        steps: [{}, { three_d_secure: 'fail' }],
        status: 'requires_payment_method',
        code: 'payment_intent_authentication_failure',
      },
      {
        name: '3178 is declined after 3-D Secure',
        number: CARDS.threeDSThenInsufficient,
        steps: [{}, { three_d_secure: 'approve' }],
        status: 'requires_payment_method',
        code: 'card_declined',
        decline: 'insufficient_funds',
      },
    ])('$name', async ({ number, steps, status, code, decline }) => {
      const user = await createUser(db);
      const { clientSecret } = await postOk<{ clientSecret: string }>(app, '/auth/subscribe', user, { plan: 'basic' });
      let answer = await confirm(app, user, clientSecret, { card: card(number) });
      if (steps.length > 1) {
        expect(answer).toMatchObject({ status: 'requires_action', next_action: { type: 'sandbox_three_d_secure' } });
        expect((await billingState(db, user.id)).plan).toBe('zero');
        answer = await confirm(app, user, clientSecret, steps[1]);
      }
      expect(answer.status).toBe(status);
      const state = await billingState(db, user.id);
      if (status === 'succeeded') {
        expect(state).toMatchObject({ plan: 'basic', credits: 1000 });
        const days = (state.next_billing_date!.getTime() - Date.now()) / 86_400_000;
        expect(days).toBeGreaterThan(27);
        expect(days).toBeLessThan(32);
        const payments = await paymentsOf(db, user.id);
        expect(payments).toHaveLength(1);
        expect(payments[0]).toMatchObject({ plan_name: 'basic', amount: '39.00', kind: 'subscription', credits: 1000 });
        expect(payments[0].invoice_number).toMatch(/^INV-\d+$/);
        expect(await savedCards(user)).toEqual([expect.objectContaining({ last4: number.replace(/\s/g, '').slice(-4), default: true })]);
      } else {
        expect(answer.error).toMatchObject({ code, ...(decline ? { decline_code: decline } : {}) });
        expect(state).toMatchObject({ plan: 'zero', credits: 0, next_billing_date: null });
        expect(await paymentsOf(db, user.id)).toEqual([]);
        // the same checkout can be paid with another card afterwards
        const retry = await confirm(app, user, clientSecret, { card: card(CARDS.visa) });
        expect(retry.status).toBe('succeeded');
        expect(await billingState(db, user.id)).toMatchObject({ plan: 'basic', credits: 1000 });
      }
    });
  });

  it('should hand out the same checkout until it is paid, switch plans, and refuse the current plan', async () => {
    const user = await createUser(db);
    const first = await postOk<{ clientSecret: string }>(app, '/auth/subscribe', user, { plan: 'starter' });
    const again = await postOk<{ clientSecret: string }>(app, '/auth/subscribe', user, { plan: 'starter' });
    expect(again.clientSecret).toBe(first.clientSecret);
    const other = await postOk<{ clientSecret: string }>(app, '/auth/subscribe', user, { plan: 'basic' });
    expect(other.clientSecret).not.toBe(first.clientSecret);
    await confirm(app, user, other.clientSecret, { card: card(CARDS.visa) });
    expect(await billingState(db, user.id)).toMatchObject({ plan: 'basic', credits: 1000 });

    const same = await post(app, '/auth/subscribe', { ...asDashboard(user), json: { plan: 'basic' } });
    expect(same.status).toBe(409);
    expect(await expectErrorBody(same)).toEqual({ code: 'conflict', msg: 'You are already subscribed to this plan' });

    const change = await postOk<{ clientSecret: string }>(app, '/auth/subscribe', user, { plan: 'growth' });
    expect((await confirm(app, user, change.clientSecret, { payment_method: (await savedCards(user))[0].id })).status).toBe('succeeded');
    expect(await billingState(db, user.id)).toMatchObject({ plan: 'growth', credits: 12_000 });
    expect((await paymentsOf(db, user.id)).map((p) => [p.plan_name, p.amount])).toEqual([
      ['basic', '39.00'],
      ['growth', '399.00'],
    ]);
  });

  async function savedCards(user: TestUser) {
    const res = await app.request('/auth/payment-methods', { headers: { authorization: user.apiKey, 'x-session-token': user.session } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { paymentMethods: { id: string; last4: string; default: boolean }[] }).paymentMethods;
  }

  describe('top-up', () => {
    it('should require an active subscription', async () => {
      const user = await createUser(db);
      const res = await post(app, '/auth/topup', { ...asDashboard(user), json: { amount: 10 } });
      expect(res.status).toBe(409);
      expect((await expectErrorBody(res)).msg).toMatch(/requires an active subscription/);
    });

    it.each([15, 0, -10, 5, 10.5, 'abc', '1e2', 100_010, null, true, undefined])('should refuse amount %s with the spec message', async (amount) => {
      const user = await subscribedUser(app, db);
      const res = await post(app, '/auth/topup', { ...asDashboard(user), json: amount === undefined ? {} : { amount } });
      expect(res.status).toBe(400);
      expect(await expectErrorBody(res)).toEqual({ code: 'validation_failed', msg: TOPUP_MESSAGE });
    });

    it.each([
      { number: CARDS.visa, amount: 50, steps: [{}], credits: 1250 },
      { number: CARDS.visa, amount: '120', steps: [{}], credits: 3000 },
      { number: CARDS.threeDS, amount: 20, steps: [{}, { three_d_secure: 'approve' }], credits: 500 },
      { number: CARDS.declined, amount: 10, steps: [{}], credits: 0 },
      { number: CARDS.insufficientFunds, amount: 500, steps: [{}], credits: 0 },
    ])('should grant $credits credits for $$amount with $number', async ({ number, amount, steps, credits }) => {
      const user = await subscribedUser(app, db);
      const answer = await postOk<{ clientSecret: string; amount: number; credits: number }>(app, '/auth/topup', user, { amount });
      expect(answer).toMatchObject({ amount: Number(amount), credits: (Number(amount) / 10) * 250 });
      let done = await confirm(app, user, answer.clientSecret, { card: card(number) });
      if (steps.length > 1) done = await confirm(app, user, answer.clientSecret, steps[1]);
      expect(done.status).toBe(credits ? 'succeeded' : 'requires_payment_method');
      expect((await billingState(db, user.id)).credits).toBe(1000 + credits);
      const topups = (await paymentsOf(db, user.id)).filter((p) => p.kind === 'topup');
      expect(topups).toHaveLength(credits ? 1 : 0);
      if (credits) expect(topups[0]).toMatchObject({ plan_name: 'topup', amount: `${Number(amount)}.00`, credits });
      // confirming a paid intent again (a double click) changes nothing
      if (credits) {
        await confirm(app, user, answer.clientSecret, { card: card(CARDS.visa) });
        expect((await billingState(db, user.id)).credits).toBe(1000 + credits);
      }
    });
  });

  describe('trial', () => {
    it('should offer one trial under 20 concurrent calls, grant it once, then refuse', async () => {
      const user = await createUser(db);
      const answers = await Promise.all(Array.from({ length: 20 }, () => post(app, '/auth/trial', { ...asDashboard(user) })));
      expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
      const bodies = (await Promise.all(answers.map((r) => r.json()))) as { clientSecret: string; amount: number; credits: number; days: number }[];
      expect(new Set(bodies.map((b) => b.clientSecret)).size).toBe(1);
      expect(bodies[0]).toMatchObject({ amount: 10, credits: 250, days: 7 });
      const intents = await db.query(
        `select p.id from billing_sandbox.payment_intents p join billing_sandbox.customers c on c.id = p.customer_id where c.user_id = $1 and p.kind = 'trial'`,
        [user.id],
      );
      expect(intents.rows).toHaveLength(1);

      // a declined card leaves the offer open; the same payment is retried
      expect((await confirm(app, user, bodies[0].clientSecret, { card: card(CARDS.declined) })).status).toBe('requires_payment_method');
      expect((await postOk<{ clientSecret: string }>(app, '/auth/trial', user)).clientSecret).toBe(bodies[0].clientSecret);
      expect((await confirm(app, user, bodies[0].clientSecret, { card: card(CARDS.visa) })).status).toBe('succeeded');
      expect(await billingState(db, user.id)).toMatchObject({ trialed: true, credits: 250, plan: 'zero' });
      expect(await paymentsOf(db, user.id)).toEqual([expect.objectContaining({ kind: 'trial', amount: '10.00', credits: 250 })]);

      const again = await Promise.all(Array.from({ length: 3 }, () => post(app, '/auth/trial', { ...asDashboard(user) })));
      expect(again.map((r) => r.status)).toEqual([409, 409, 409]);
      expect((await expectErrorBody(again[0])).msg).toBe('The trial is only available once, to accounts without a plan');
    });

    it('should not offer the trial to a user with a plan', async () => {
      const user = await subscribedUser(app, db);
      const res = await post(app, '/auth/trial', { ...asDashboard(user) });
      expect(res.status).toBe(409);
    });

    it('should take 3-D Secure on the trial card (3155)', async () => {
      const user = await createUser(db);
      const { clientSecret } = await postOk<{ clientSecret: string }>(app, '/auth/trial', user);
      expect((await confirm(app, user, clientSecret, { card: card(CARDS.threeDS) })).status).toBe('requires_action');
      expect((await confirm(app, user, clientSecret, { three_d_secure: 'approve' })).status).toBe('succeeded');
      expect(await billingState(db, user.id)).toMatchObject({ trialed: true, credits: 250 });
    });
  });

  describe('cards', () => {
    it.each([
      { number: CARDS.visa, answer: [{}], saved: true },
      { number: CARDS.insufficientFunds, answer: [{}], saved: true },
      { number: CARDS.chargeDeclined, answer: [{}], saved: true },
      { number: CARDS.threeDS, answer: [{}, { three_d_secure: 'approve' }], saved: true },
      { number: CARDS.threeDS, answer: [{}, { three_d_secure: 'fail' }], saved: false },
      { number: CARDS.declined, answer: [{}], saved: false },
      { number: CARDS.expired, answer: [{}], saved: false },
    ])('should add $number: saved=$saved', async ({ number, answer, saved }) => {
      const user = await createUser(db);
      const { clientSecret, setupIntentId } = await postOk<{ clientSecret: string; setupIntentId: string }>(app, '/auth/create-setup-intent', user);
      expect(clientSecret).toMatch(/^seti_sbx_\w+_secret_\w+$/);
      let done = await confirm(app, user, clientSecret, { card: card(number) });
      if (answer.length > 1) {
        expect(done.status).toBe('requires_action');
        done = await confirm(app, user, clientSecret, answer[1]);
      }
      expect(done.status).toBe(saved ? 'succeeded' : 'requires_payment_method');
      const add = await post(app, '/auth/add-payment-method', {
        ...asDashboard(user),
        json: { setupIntentId, paymentMethodId: done.payment_method ?? 'pm_none' },
      });
      expect(add.status).toBe(saved ? 200 : 409);
      const cards = await savedCards(user);
      expect(cards).toEqual(saved ? [expect.objectContaining({ last4: number.replace(/\s/g, '').slice(-4), default: true })] : []);
    });

    it('should set the default, promote another when the default is removed, and keep the last card of a subscription', async () => {
      const user = await subscribedUser(app, db);
      const second = await addCard(app, user, CARDS.mastercard);
      let cards = await savedCards(user);
      expect(cards.map((c) => [c.last4, c.default])).toEqual([
        ['4242', true],
        ['4444', false],
      ]);
      cards = (await postOk<{ paymentMethods: typeof cards }>(app, '/auth/make-default-payment-method', user, { paymentMethodId: second })).paymentMethods;
      expect(cards.map((c) => [c.last4, c.default])).toEqual([
        ['4242', false],
        ['4444', true],
      ]);
      cards = (await postOk<{ paymentMethods: typeof cards }>(app, '/auth/remove-payment-method', user, { paymentMethodId: second })).paymentMethods;
      expect(cards.map((c) => [c.last4, c.default])).toEqual([['4242', true]]);
      const last = await post(app, '/auth/remove-payment-method', { ...asDashboard(user), json: { paymentMethodId: cards[0].id } });
      expect(last.status).toBe(409);
      expect((await savedCards(user)).length).toBe(1);
    });

    it('should list no cards for a new user', async () => {
      const user = await createUser(db);
      expect(await savedCards(user)).toEqual([]);
    });
  });

  it("should answer 404 for another user's cards, setup intents, client secrets and invoices", async () => {
    const owner = await subscribedUser(app, db);
    const other = await subscribedUser(app, db);
    const [ownerCard] = await savedCards(owner);
    const { clientSecret, setupIntentId } = await postOk<{ clientSecret: string; setupIntentId: string }>(app, '/auth/create-setup-intent', owner);
    const setup = await confirm(app, owner, clientSecret, { card: card(CARDS.mastercard) });
    const [invoice] = await paymentsOf(db, owner.id);

    const attempts = [
      post(app, '/auth/make-default-payment-method', { ...asDashboard(other), json: { paymentMethodId: ownerCard.id } }),
      post(app, '/auth/remove-payment-method', { ...asDashboard(other), json: { paymentMethodId: ownerCard.id } }),
      post(app, '/auth/add-payment-method', { ...asDashboard(other), json: { setupIntentId, paymentMethodId: setup.payment_method } }),
      post(app, '/billing/sandbox/confirm', { ...asDashboard(other), json: { client_secret: clientSecret, card: card(CARDS.visa) } }),
      post(app, '/auth/gen-invoice', { ...asDashboard(other), json: { invoiceId: invoice.invoice_number } }),
      post(app, '/billing/sandbox/confirm', { ...asDashboard(other), json: { client_secret: 'pi_sbx_nope_secret_nope', payment_method: ownerCard.id } }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(404);
      expect((await expectErrorBody(res)).code).toBe('not_found');
    }
    // a card of the owner used in the other user's own checkout is not theirs either
    const topup = await postOk<{ clientSecret: string }>(app, '/auth/topup', other, { amount: 10 });
    const res = await post(app, '/billing/sandbox/confirm', {
      ...asDashboard(other),
      json: { client_secret: topup.clientSecret, payment_method: ownerCard.id },
    });
    expect(res.status).toBe(404);
    expect((await savedCards(owner)).map((c) => c.id)).toContain(ownerCard.id);
    expect((await billingState(db, other.id)).credits).toBe(1000);
  });

  it('should render the invoice PDF with the number, date, plan, amount and PAID', async () => {
    const user = await subscribedUser(app, db, 'growth');
    const [payment] = await paymentsOf(db, user.id);
    const res = await post(app, '/auth/gen-invoice', { ...asDashboard(user), json: { invoiceId: payment.invoice_number } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${payment.invoice_number}.pdf"`);
    const pdf = new Uint8Array(await res.arrayBuffer());
    expect(Buffer.from(pdf.subarray(0, 5)).toString()).toBe('%PDF-');
    const text = pdfText(pdf);
    expect(text).toContain(`Invoice ${payment.invoice_number}`);
    expect(text).toContain('Status: PAID');
    expect(text).toContain('Plan: Growth');
    expect(text).toContain('Amount: $399.00 USD');
    expect(text).toMatch(/Date: \d{4}-\d{2}-\d{2}/);

    const byRef = await post(app, '/auth/gen-invoice', { ...asDashboard(user), json: { invoiceId: payment.provider_ref } });
    expect(pdfText(new Uint8Array(await byRef.arrayBuffer()))).toContain(`Invoice ${payment.invoice_number}`);
    const missing = await post(app, '/auth/gen-invoice', { ...asDashboard(user), json: { invoiceId: 'INV-0' } });
    expect(missing.status).toBe(404);
  });

  it('should cancel at the period end, then renew nothing; a live subscription renews with its credits', async () => {
    const nothing = await post(app, '/auth/cancel', { ...asDashboard(await createUser(db)) });
    expect(nothing.status).toBe(409);

    const leaving = await subscribedUser(app, db);
    const cancelled = await postOk<{ plan: string; next_billing_date: null; access_until: string }>(app, '/auth/cancel', leaving);
    expect(cancelled).toMatchObject({ plan: 'basic', next_billing_date: null });
    expect(new Date(cancelled.access_until).getTime()).toBeGreaterThan(Date.now());
    expect(await billingState(db, leaving.id)).toMatchObject({ plan: 'basic', next_billing_date: null, credits: 1000 });
    expect((await postOk(app, '/auth/cancel', leaving)) as object).toMatchObject({ plan: 'basic' });
    const ended = await postOk<{ plan: string; credits: number }>(app, '/billing/sandbox/advance-clock', leaving, { days: 32 });
    expect(ended).toMatchObject({ plan: 'zero', next_billing_date: null, credits: 1000 });

    const staying = await subscribedUser(app, db);
    const before = (await billingState(db, staying.id)).next_billing_date!;
    const renewed = await postOk<{ plan: string; next_billing_date: string; credits: number }>(app, '/billing/sandbox/advance-clock', staying, { days: 32 });
    expect(renewed).toMatchObject({ plan: 'basic', credits: 2000 });
    expect(new Date(renewed.next_billing_date).getTime()).toBeGreaterThan(before.getTime() + 27 * 86_400_000);
    expect((await paymentsOf(db, staying.id)).map((p) => p.kind)).toEqual(['subscription', 'subscription']);
  });

  it('should save auto top-up settings, validating them and requiring a card', async () => {
    const fresh = await createUser(db);
    const noCard = await post(app, '/auth/update-auto-topup', {
      ...asDashboard(fresh),
      json: { auto_topup: true, auto_topup_min: 250, auto_topup_amount: 10 },
    });
    expect(noCard.status).toBe(409);
    expect(await expectErrorBody(noCard)).toEqual({ code: 'conflict', msg: 'Add a payment method before turning on auto top-up' });

    const user = await subscribedUser(app, db);
    for (const bad of [
      { auto_topup: true, auto_topup_min: 300, auto_topup_amount: 10 },
      { auto_topup: true, auto_topup_min: 250, auto_topup_amount: 15 },
      { auto_topup: 'yes', auto_topup_min: 250, auto_topup_amount: 10 },
    ]) {
      const res = await post(app, '/auth/update-auto-topup', { ...asDashboard(user), json: bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
    const saved = await postOk(app, '/auth/update-auto-topup', user, { auto_topup: true, auto_topup_min: 500, auto_topup_amount: 20 });
    expect(saved).toEqual({ auto_topup: true, auto_topup_min: 500, auto_topup_amount: 20, auto_topup_failures: 0, auto_topup_disabled_reason: null });
    // 1000 credits is above the threshold: nothing was charged
    expect((await billingState(db, user.id)).credits).toBe(1000);
  });

  it('should answer bad input with 4xx in the error contract, never 500', async () => {
    const user = await subscribedUser(app, db);
    const cases: [string, Parameters<typeof post>[2], number][] = [
      ['/auth/subscribe', { ...asDashboard(user), json: { plan: 'gold' } }, 400],
      ['/auth/subscribe', { ...asDashboard(user), json: { plan: 'zero' } }, 400],
      ['/auth/subscribe', { ...asDashboard(user), json: '{"plan":' }, 400],
      ['/auth/subscribe', { ...asDashboard(user), json: { plan: 'basic' }, headers: { 'content-type': 'text/plain' } }, 415],
      ['/auth/subscribe', { json: { plan: 'basic' } }, 401],
      ['/auth/topup', { ...asDashboard(user), json: [] }, 400],
      ['/auth/make-default-payment-method', { ...asDashboard(user), json: {} }, 400],
      ['/auth/make-default-payment-method', { ...asDashboard(user), json: { paymentMethodId: 'pm_unknown' } }, 404],
      ['/auth/add-payment-method', { ...asDashboard(user), json: { setupIntentId: 'seti_x' } }, 400],
      ['/auth/add-payment-method', { ...asDashboard(user), json: { setupIntentId: 'seti_x', paymentMethodId: 'pm_x' } }, 404],
      ['/auth/gen-invoice', { ...asDashboard(user), json: { invoiceId: '' } }, 400],
      ['/auth/gen-invoice', { ...asDashboard(user), json: { invoiceId: "' or 1=1 --" } }, 404],
      ['/billing/sandbox/confirm', { ...asDashboard(user), json: {} }, 400],
      ['/billing/sandbox/confirm', { ...asDashboard(user), json: { client_secret: 'x', three_d_secure: 'maybe' } }, 400],
      ['/billing/sandbox/advance-clock', { ...asDashboard(user), json: { days: 0 } }, 400],
    ];
    for (const [path, opts, status] of cases) {
      const res = await post(app, path, opts);
      expect(res.status, `${path} ${JSON.stringify(opts)}`).toBe(status);
      await expectErrorBody(res);
    }

    const { clientSecret } = await postOk<{ clientSecret: string }>(app, '/auth/topup', user, { amount: 10 });
    const confirmCases: [Record<string, unknown>, string][] = [
      [{ card: card('4111 1111 1111 1111') }, 'The sandbox accepts test cards only'],
      [{ card: { ...card(CARDS.visa), exp_year: 2001 } }, 'expiration date is in the past'],
      [{ card: { ...card(CARDS.visa), exp_month: 13 } }, 'expiration date is incomplete'],
      [{ card: { ...card(CARDS.visa), cvc: '1' } }, 'security code'],
      [{}, 'Provide a card'],
      [{ three_d_secure: 'approve' }, 'Provide a card'],
    ];
    for (const [body, msg] of confirmCases) {
      const res = await post(app, '/billing/sandbox/confirm', { ...asDashboard(user), json: { client_secret: clientSecret, ...body } });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await expectErrorBody(res)).msg).toContain(msg);
    }
    expect((await billingState(db, user.id)).credits).toBe(1000);
  });

  it('should describe the provider and catalog for the payment UI', async () => {
    expect((await app.request('/billing/config')).status).toBe(401);
    const user = await createUser(db);
    const res = await app.request('/billing/config', { headers: { authorization: user.apiKey } });
    expect(res.status).toBe(200);
    const config = (await res.json()) as { provider: string; plans: { id: string; amount: number; credits: number }[]; test_cards: unknown[] };
    expect(config.provider).toBe('sandbox');
    expect(config.plans.find((p) => p.id === 'scale-c1')).toMatchObject({ amount: 3100, credits: 156_000 });
    expect(config.test_cards.length).toBeGreaterThan(5);
  });

  it('should document every billing route with examples in the OpenAPI document', async () => {
    const doc = (await (await app.request('/openapi.json')).json()) as {
      paths: Record<
        string,
        Record<
          string,
          {
            security?: unknown;
            requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
            responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
          }
        >
      >;
      components: { schemas: Record<string, { example?: unknown }> };
    };
    const routes = [
      'post /auth/createCustomer',
      'post /auth/subscribe',
      'post /auth/topup',
      'post /auth/trial',
      'post /auth/cancel',
      'get /auth/payment-methods',
      'post /auth/make-default-payment-method',
      'post /auth/remove-payment-method',
      'post /auth/create-setup-intent',
      'post /auth/add-payment-method',
      'post /auth/gen-invoice',
      'post /auth/update-auto-topup',
      'get /billing/config',
      'post /billing/sandbox/confirm',
      'post /billing/sandbox/advance-clock',
    ];
    for (const route of routes) {
      const [method, path] = route.split(' ');
      const op = doc.paths[path]?.[method];
      expect(op, route).toBeDefined();
      // the catalog is a read: the API key; everything else moves money or shows cards: the dashboard session too
      expect(op.security, route).toEqual(path === '/billing/config' ? [{ apiKey: [] }] : [{ dashboardSession: [], apiKey: [] }]);
      const refs = [op.requestBody?.content['application/json']?.schema.$ref, op.responses['200'].content?.['application/json']?.schema.$ref].filter(Boolean);
      if (path === '/auth/gen-invoice') expect(op.responses['200'].content?.['application/pdf'], route).toBeDefined();
      for (const ref of refs) expect(doc.components.schemas[ref!.replace('#/components/schemas/', '')].example, `${route} ${ref}`).toBeDefined();
    }
  });
});
