import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClient, signInWithMagicLink, startLocalSupabase, testDatabaseKinds, type RunningLocalSupabase } from '@aim/supabase/testing';

/** The supabase-js client of the local services' test support (its own copy of supabase-js). */
type SupabaseClient = ReturnType<typeof makeClient>;

type HistoryRow = {
  id: number;
  created_at: string;
  delta: number;
  balance_after: number;
  kind: string;
  task_id: string | null;
  task_type: string | null;
  invoice_number: string | null;
};

const COLUMNS = 'id, created_at, delta, balance_after, kind, task_id, task_type, invoice_number';

// The credit history (public.credit_history) and the usage chart's numbers (public.credit_usage)
// as the dashboard reads them: supabase-js against the local services, RLS deciding.
describe.each(testDatabaseKinds())('credit history and usage on %s', (kind) => {
  let sb: RunningLocalSupabase;
  let alice: SupabaseClient;
  let bob: SupabaseClient;
  let a: { id: string; email: string };
  let b: { id: string; email: string };
  const failedTask = randomUUID();
  const doneTask = randomUUID();
  const oldTask = randomUUID();

  const move = (userId: string, delta: number, key: string, reason: string, taskId: string | null = null) =>
    sb.db.query('select public.apply_credit($1, $2, $3, $4, $5)', [userId, delta, key, reason, taskId]);
  /** Moves the latest ledger row of a user back in time (a movement of another day). */
  const backdate = (key: string, days: number) =>
    sb.db.query(`update public.credit_ledger set created_at = created_at - make_interval(days => $2) where source_key = $1`, [key, days]);

  beforeAll(async () => {
    sb = await startLocalSupabase(kind, { captcha: { enabled: true, hmacKey: 'credit-history', maxNumber: 2000, expiresInSeconds: 60 } });
    alice = makeClient(sb.url, sb.config.anonKey);
    bob = makeClient(sb.url, sb.config.anonKey);
    const stamp = Date.now();
    const sa = (await signInWithMagicLink(alice, sb.url, `alice-ch-${stamp}@example.com`))!;
    const sbob = (await signInWithMagicLink(bob, sb.url, `bob-ch-${stamp}@example.com`))!;
    a = { id: sa.user.id, email: sa.user.email! };
    b = { id: sbob.user.id, email: sbob.user.email! };

    // Alice: a plan (with its invoice), a top-up, an auto top-up, then tasks
    await move(a.id, 1000, 'in:in_alice', 'plan:basic');
    await sb.db.query(
      `insert into public.payments (user_id, email, plan_name, amount, kind, credits, provider_ref) values ($1, $2, 'basic', 39, 'subscription', 1000, 'in:in_alice')`,
      [a.id, a.email],
    );
    await move(a.id, 250, 'pi:pi_topup', 'topup');
    await move(a.id, 250, 'pi:pi_auto', 'auto_topup');
    await move(a.id, -8, 'hold:old', 'hold imagine', oldTask); // 40 days ago: outside the chart
    await backdate('hold:old', 40);
    await move(a.id, -4, `hold:${doneTask}`, 'hold imagine', doneTask);
    await move(a.id, -30, `hold:${failedTask}`, 'hold kling-video', failedTask);
    await move(a.id, -5, 'support:1', 'support correction');
    // the failed task's refund comes late, a day after its hold: it still nets out on the hold's day
    await backdate(`hold:${failedTask}`, 1);
    await move(a.id, 30, `refund:${failedTask}`, 'refund kling-video', failedTask);
    // Bob has his own ledger
    await move(b.id, 500, 'pi:pi_bob', 'trial');
    await move(b.id, -12, `hold:${randomUUID()}`, 'hold suno', randomUUID());
  }, 60_000);
  afterAll(async () => {
    await sb?.stop();
  });

  async function historyOf(client: SupabaseClient): Promise<HistoryRow[]> {
    const { data, error } = await client.from('credit_history').select(COLUMNS).order('created_at', { ascending: false }).order('id', { ascending: false });
    expect(error).toBeNull();
    return data as HistoryRow[];
  }

  it('lists every movement with its kind, task, invoice and the exact balance it left, newest first', async () => {
    const rows = await historyOf(alice);
    expect(rows.map((r) => [r.kind, r.delta, r.task_type, r.task_id])).toEqual([
      ['refund', 30, 'kling-video', failedTask],
      ['adjustment', -5, null, null],
      ['hold', -4, 'imagine', doneTask],
      ['auto_topup', 250, null, null],
      ['topup', 250, null, null],
      ['plan', 1000, null, null],
      ['hold', -30, 'kling-video', failedTask],
      ['hold', -8, 'imagine', oldTask],
    ]);
    expect(rows.find((r) => r.kind === 'plan')!.invoice_number).toMatch(/^INV-\d+$/);
    expect(rows.filter((r) => r.kind !== 'plan').every((r) => r.invoice_number === null)).toBe(true);
    // balance after = the ledger's own, written under the user's row lock as each movement applied
    const ledger = await sb.db.query<{ id: number; balance_after: number }>('select id, balance_after from public.credit_ledger where user_id = $1', [a.id]);
    for (const r of rows) expect(r.balance_after).toBe(ledger.rows.find((l) => l.id === r.id)!.balance_after);
    const { rows: now } = await sb.db.query<{ credits: number }>('select credits from public.mdusers where id = $1', [a.id]);
    expect(rows[0].balance_after).toBe(now[0].credits);
  });

  it('pages by a (created_at, id) cursor without losing or repeating a row, ties included', async () => {
    // four movements in one transaction: the same created_at, told apart by id
    await sb.db.transaction(async (tx) => {
      for (let i = 0; i < 4; i++) await tx.query('select public.apply_credit($1, 1, $2, $3)', [a.id, `tie:${randomUUID()}`, 'test']);
    });
    const all = await historyOf(alice);
    const seen: number[] = [];
    let after: HistoryRow | null = null;
    for (;;) {
      let q = alice.from('credit_history').select(COLUMNS);
      if (after) q = q.lte('created_at', after.created_at).or(`created_at.lt."${after.created_at}",id.lt.${after.id}`);
      const { data, error } = await q.order('created_at', { ascending: false }).order('id', { ascending: false }).limit(3);
      expect(error).toBeNull();
      const page = data as HistoryRow[];
      seen.push(...page.map((r) => r.id));
      if (page.length < 3) break;
      after = page[page.length - 1];
    }
    expect(seen).toEqual(all.map((r) => r.id));
  });

  it('reads one task’s own movements (the Task Logs detail): hold, then refund', async () => {
    const { data, error } = await alice.from('credit_history').select('kind, delta, balance_after').eq('task_id', failedTask).order('created_at').order('id');
    expect(error).toBeNull();
    expect(data!.map((r) => [r.kind, r.delta])).toEqual([
      ['hold', -30],
      ['refund', 30],
    ]);
  });

  it('sums the credits spent per UTC day and task type over the last 30 days, net of refunds', async () => {
    const { data, error } = await alice.rpc('credit_usage', { p_days: 30 });
    expect(error).toBeNull();
    const today = new Date().toISOString().slice(0, 10);
    // the failed kling task nets to 0 on its day (no row); the 40-day-old hold is outside
    expect(data).toEqual([{ day: today, task_type: 'imagine', credits: 4 }]);
    const more = await alice.rpc('credit_usage', { p_days: 60 });
    expect(more.data).toEqual([
      { day: new Date(Date.now() - 40 * 86_400_000).toISOString().slice(0, 10), task_type: 'imagine', credits: 8 },
      { day: today, task_type: 'imagine', credits: 4 },
    ]);
  });

  it('shows another user none of it, through the view, the table, the function or anonymously', async () => {
    const theirs = await historyOf(bob);
    expect(theirs.map((r) => r.kind)).toEqual(['hold', 'trial']);
    const peek = await bob.from('credit_history').select('id').eq('user_id', a.id);
    expect(peek.data).toEqual([]);
    const byTask = await bob.from('credit_history').select('id').eq('task_id', failedTask);
    expect(byTask.data).toEqual([]);
    const usage = await bob.rpc('credit_usage', { p_days: 30 });
    expect(usage.data).toEqual([{ day: new Date().toISOString().slice(0, 10), task_type: 'suno', credits: 12 }]);

    const anon = makeClient(sb.url, sb.config.anonKey);
    const view = await anon.from('credit_history').select('id');
    expect(view.data ?? []).toEqual([]);
    const fn = await anon.rpc('credit_usage', { p_days: 30 });
    expect(fn.data ?? []).toEqual([]);
    const tokens = await alice.from('export_tokens').select('*');
    expect(tokens.data ?? []).toEqual([]);
  });
});
