import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/index.ts';
import { createTestDb, testDatabaseKinds } from './support/index.ts';

describe.each(testDatabaseKinds())('migrations on %s', (kind) => {
  let db: Db;
  beforeAll(async () => {
    db = await createTestDb(kind);
  });
  afterAll(async () => {
    await db?.close();
  });

  it('creates an mdusers row with a fresh key, 0 credits and plan zero on first sign-in', async () => {
    const id = '11111111-1111-4111-8111-111111111111';
    await db.query(`insert into auth.users (id, email, aud, role) values ($1, 'a@example.com', 'authenticated', 'authenticated')`, [id]);
    const { rows } = await db.query<{ api_key: string; credits: number; plan: string; onboarded: boolean }>(
      'select api_key, credits, plan, onboarded from public.mdusers where id = $1',
      [id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].api_key).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0]).toMatchObject({ credits: 0, plan: 'zero', onboarded: false });
  });

  it('moves credits only through the ledger, once per source key, never below zero', async () => {
    const id = '22222222-2222-4222-8222-222222222222';
    await db.query(`insert into auth.users (id, email) values ($1, 'b@example.com')`, [id]);
    const grant = await db.query<{ b: number }>(`select public.apply_credit($1, 100, 'grant:1', 'test') as b`, [id]);
    expect(grant.rows[0].b).toBe(100);
    const again = await db.query<{ b: number | null }>(`select public.apply_credit($1, 100, 'grant:1', 'test') as b`, [id]);
    expect(again.rows[0].b).toBeNull();
    await expect(db.query(`select public.apply_credit($1, -101, 'spend:1', 'test')`, [id])).rejects.toMatchObject({ code: 'P0402' });
    const { rows } = await db.query<{ credits: number; sum: number }>(
      `select m.credits, (select sum(delta)::int from public.credit_ledger l where l.user_id = m.id) as sum from public.mdusers m where id = $1`,
      [id],
    );
    expect(rows[0]).toEqual({ credits: 100, sum: 100 });
  });

  it('is recorded like the Supabase CLI records migrations', async () => {
    const { rows } = await db.query<{ version: string }>('select version from supabase_migrations.schema_migrations order by version');
    expect(rows.map((r) => r.version)).toContain('20261101000100');
  });
});
