import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/index.ts';
import { createTestDb, testDatabaseKinds } from './support/index.ts';

// Migration 20261124001200: the credit history's keyset page and a task's movements are index
// reads as the signed-in user (RLS's uid an InitPlan), not a sort of the whole ledger.
describe.each(testDatabaseKinds())('credit history plans on %s', (kind) => {
  let db: Db;
  const user = randomUUID();
  const other = randomUUID();

  beforeAll(async () => {
    db = await createTestDb(kind);
    for (const [id, n] of [
      [user, 3000],
      [other, 3000],
    ] as const) {
      await db.query(`insert into auth.users (id, email) values ($1, $2)`, [id, `${id}@example.test`]);
      await db.query(`select public.apply_credit($1, 100000, $2, 'test')`, [id, `grant:${id}`]);
      // the ledger as many tasks leave it: one hold per task (source key, task id, reason)
      await db.query(
        `insert into public.credit_ledger (user_id, delta, balance_after, source_key, reason, task_id, created_at)
         select $1, -1, 100000 - i, 'hold:' || t, 'hold imagine', t, now() - i * interval '1 second'
           from (select i, gen_random_uuid() as t from generate_series(1, $2::int) as i) s`,
        [id, n],
      );
    }
    await db.exec('analyze public.credit_ledger; analyze public.payments');
  });
  afterAll(async () => {
    await db?.close();
  });

  async function planAs(uid: string, sql: string, params: unknown[]): Promise<string> {
    return db.transaction(async (tx) => {
      await tx.query(`select set_config('request.jwt.claims', $1, true)`, [JSON.stringify({ sub: uid, role: 'authenticated' })]);
      await tx.query('set local role authenticated');
      const { rows } = await tx.query<Record<string, string>>(`explain ${sql}`, params);
      return rows.map((r) => Object.values(r)[0]).join('\n');
    });
  }

  it('reads a keyset page of the history from the (user_id, created_at, id) index, without sorting the ledger', async () => {
    const plan = await planAs(
      user,
      `select id, created_at, delta, balance_after, kind, task_id, task_type, invoice_number from public.credit_history
        where created_at <= now() - interval '100 seconds' and (created_at < now() - interval '100 seconds' or id < 1000000)
        order by created_at desc, id desc limit 25`,
      [],
    );
    expect(plan).toMatch(/credit_ledger_user_created_idx/);
    expect(plan).not.toMatch(/^\s*(->\s+)?Sort\b/m);
  });

  it('reads one task’s movements from the task index', async () => {
    const { rows } = await db.query<{ task_id: string }>('select task_id from public.credit_ledger where user_id = $1 and task_id is not null limit 1', [user]);
    const plan = await planAs(user, 'select kind, delta from public.credit_history where task_id = $1 order by created_at, id', [rows[0].task_id]);
    expect(plan).toMatch(/credit_ledger_task_idx/);
  });

  it('keeps each user to their own rows, in the view and the usage function', async () => {
    const count = await db.transaction(async (tx) => {
      await tx.query(`select set_config('request.jwt.claims', $1, true)`, [JSON.stringify({ sub: other, role: 'authenticated' })]);
      await tx.query('set local role authenticated');
      const view = await tx.query<{ n: number; users: number }>('select count(*)::int as n, count(distinct user_id)::int as users from public.credit_history');
      const usage = await tx.query<{ credits: number }>('select coalesce(sum(credits), 0)::int as credits from public.credit_usage(30)');
      return { ...view.rows[0], credits: usage.rows[0].credits };
    });
    expect(count).toEqual({ n: 3001, users: 1, credits: 3000 });
  });
});
