import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { post } from './helpers.ts';
import { billingState, moveCredits, paymentsOf, postOk, subscribedUser } from './support/billing.ts';
import { openTestDb, taskHarness, type TaskHarness } from './support/tasks.ts';

// Auto top-up fires from the money path itself: a generation charge takes the balance below
// the user's threshold and the saved card is charged off-session, exactly once.
describe.each(testDatabaseKinds())('auto top-up after spending on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  beforeAll(async () => {
    db = await openTestDb(kind);
    h = await taskHarness(db);
  });
  afterAll(async () => {
    await h?.cleanup();
    await db?.close();
  });

  it('tops up once when an imagine takes the balance below the threshold', async () => {
    const user = await subscribedUser(h.app as never, db); // basic: 1000 credits, card 4242 as default
    await postOk(h.app as never, '/auth/update-auto-topup', user, { auto_topup: true, auto_topup_min: 250, auto_topup_amount: 10 });
    await moveCredits(db, user.id, -(1000 - 252)); // 252 left: one imagine (4) goes below 250
    const res = await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt: 'a quiet harbour' } });
    expect(res.status).toBe(200);

    const deadline = Date.now() + 10_000;
    while ((await billingState(db, user.id)).credits < 248 + 250 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect((await billingState(db, user.id)).credits).toBe(248 + 250);
    const autoTopUps = (await paymentsOf(db, user.id)).filter((p) => p.kind === 'auto_topup');
    expect(autoTopUps).toHaveLength(1);
    expect(autoTopUps[0]).toMatchObject({ credits: 250 });

    // above the threshold again: the next charge does not top up
    const again = await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt: 'another harbour' } });
    expect(again.status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect((await paymentsOf(db, user.id)).filter((p) => p.kind === 'auto_topup')).toHaveLength(1);
  });
});
