import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { JOB_CHANNEL } from '../src/repositories/job-repository.ts';
import { createTask, type TaskDeps } from '../src/services/tasks/create-task.ts';
import { createEngineRegistry } from '../src/services/tasks/engine-registry.ts';
import { recording } from './support/recording-db.ts';
import { asDashboard, createUser, expectErrorBody, post, testConfig, type TestUser } from './helpers.ts';
import { balanceOf, grantCredits, ledgerOf, openTestDb, scriptedEngine, taskHarness, type TaskHarness } from './support/tasks.ts';

// The submit path creates a task in one statement (public.submit_task): the hold, the task
// row, its webhook, its job and the NOTIFY that wakes the workers, all or nothing; and it
// tells billing's auto top-up to look only when the charge made it due.
describe.each(testDatabaseKinds())('submit fast path on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  const engines = createEngineRegistry([scriptedEngine()]);

  beforeAll(async () => {
    db = await openTestDb(kind);
    h = await taskHarness(db, [scriptedEngine()]);
  });
  afterAll(async () => {
    await h?.cleanup();
    await db?.close();
  });

  function deps(q: Db, afterCharge?: (userId: string) => void): TaskDeps {
    return { db: q, engines, config: testConfig, maxAttempts: 5, afterCharge };
  }

  async function fundedUser(credits: number): Promise<TestUser> {
    const user = await createUser(db);
    await grantCredits(db, user.id, credits);
    return user;
  }

  it('should hold, insert the task, its webhook and its job and announce it, in one database call', async () => {
    const user = await fundedUser(100);
    const woken: string[] = [];
    const unlisten = await db.listen(JOB_CHANNEL, (queue) => woken.push(queue));
    try {
      const { db: recorded, calls } = recording(db);
      const expiresAt = new Date(Date.now() + 3_600_000);
      const { task_id } = await createTask(deps(recorded), user, {
        type: 'imagine',
        prompt: 'a lighthouse',
        mode: 'fast',
        inputData: { aspect_ratio: '16:9', nested: { list: [1, 2] } },
        parentPrompt: 'older prompt',
        expiresAt,
        webhook: { url: 'https://hooks.example.com/a', secret: 'shh' },
      });
      expect(calls).toHaveLength(1);

      expect(await ledgerOf(db, task_id)).toEqual([{ delta: -4, source_key: `hold:${task_id}` }]);
      const { rows: tasks } = await db.query<Record<string, unknown>>(
        `select user_id, email, type, status, cost, prompt, parent_prompt, parent_id, mode, input_data, expires_at from public.tasks where id = $1`,
        [task_id],
      );
      expect(tasks).toEqual([
        {
          user_id: user.id,
          email: user.email,
          type: 'imagine',
          status: 'pending',
          cost: 4,
          prompt: 'a lighthouse',
          parent_prompt: 'older prompt',
          parent_id: null,
          mode: 'fast',
          input_data: { aspect_ratio: '16:9', nested: { list: [1, 2] } },
          expires_at: expiresAt,
        },
      ]);
      const { rows: hooks } = await db.query('select url, secret from public.task_webhooks where task_id = $1', [task_id]);
      expect(hooks).toEqual([{ url: 'https://hooks.example.com/a', secret: 'shh' }]);
      const { rows: jobs } = await db.query('select queue, state, attempts, max_attempts from public.task_jobs where task_id = $1', [task_id]);
      expect(jobs).toEqual([{ queue: 'local', state: 'queued', attempts: 0, max_attempts: 5 }]);
      const deadline = Date.now() + 5_000;
      while (!woken.includes('local') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(woken).toContain('local');
    } finally {
      await unlisten();
    }
  });

  it('should store no webhook row for a task without a per-request webhook', async () => {
    const user = await fundedUser(100);
    for (const webhook of [undefined, { url: null, secret: null }]) {
      const { task_id } = await createTask(deps(db), user, { type: 'imagine', prompt: 'no hook', webhook });
      const { rows } = await db.query('select 1 from public.task_webhooks where task_id = $1', [task_id]);
      expect(rows).toEqual([]);
    }
  });

  it('should leave nothing behind when the balance does not cover the price', async () => {
    const user = await fundedUser(3);
    const id = randomUUID();
    await expect(createTask(deps(db), user, { id, type: 'imagine', prompt: 'too dear' })).rejects.toMatchObject({
      code: 'insufficient_credits',
      message: 'Not enough credits',
    });
    for (const table of ['tasks', 'task_jobs', 'task_webhooks']) {
      const { rows } = await db.query(`select 1 from public.${table} where ${table === 'tasks' ? 'id' : 'task_id'} = $1`, [id]);
      expect(rows).toEqual([]);
    }
    expect(await ledgerOf(db, id)).toEqual([]);
    expect((await balanceOf(db, user.id)).credits).toBe(3);
  });

  it('should hold once per task id: a second submit of the same id fails and moves no credits', async () => {
    const user = await fundedUser(100);
    const id = randomUUID();
    await createTask(deps(db), user, { id, type: 'imagine', prompt: 'first' });
    await expect(createTask(deps(db), user, { id, type: 'imagine', prompt: 'again' })).rejects.toMatchObject({ code: '23505' });
    expect(await ledgerOf(db, id)).toEqual([{ delta: -4, source_key: `hold:${id}` }]);
    const balance = await balanceOf(db, user.id);
    expect(balance).toMatchObject({ credits: 96, ledgerSum: 96 });
  });

  it('should ask for the auto top-up check only when the charge makes it due', async () => {
    const checked: string[] = [];
    const d = deps(db, (userId) => checked.push(userId));
    const user = await fundedUser(258);
    const submit = () => createTask(d, user, { type: 'imagine', prompt: 'spend' });

    await submit(); // 254 left, auto top-up off
    expect(checked).toEqual([]);
    await db.query('update public.mdusers set auto_topup = true, auto_topup_min = 250 where id = $1', [user.id]);
    await submit(); // 250 left: not below the threshold
    expect(checked).toEqual([]);
    await submit(); // 246 left: below it
    expect(checked).toEqual([user.id]);

    // an attempt still open is finished by the check, whatever the settings say now
    await db.query('update public.mdusers set auto_topup = false where id = $1', [user.id]);
    await submit();
    expect(checked).toEqual([user.id]);
    await db.query('insert into public.billing_auto_topup_attempts (user_id, amount_cents, credits) values ($1, 1000, 250)', [user.id]);
    await submit();
    expect(checked).toEqual([user.id, user.id]);
  });

  it('should let only the server call public.submit_task, as public.apply_credit', async () => {
    const { rows } = await db.query<{ role: string; submit: boolean; credit: boolean }>(
      `select r as role,
              has_function_privilege(r, 'public.submit_task(uuid, text, uuid, text, integer, text, text, uuid, text, jsonb, timestamptz, text, text, text, integer, text)', 'execute') as submit,
              has_function_privilege(r, 'public.apply_credit(uuid, integer, text, text, uuid)', 'execute') as credit
         from unnest(array['anon', 'authenticated', 'service_role']) r`,
    );
    expect(rows).toEqual([
      { role: 'anon', submit: false, credit: false },
      { role: 'authenticated', submit: false, credit: false },
      { role: 'service_role', submit: true, credit: true },
    ]);
  });

  it('should answer POST /pro/imagine with the same errors: 401 for a rotated key at once, 402, 400', async () => {
    const user = await fundedUser(4);
    const ok = await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt: 'one' } });
    expect(ok.status).toBe(200);
    const broke = await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt: 'two' } });
    expect(broke.status).toBe(402);
    expect(await expectErrorBody(broke)).toEqual({ code: 'insufficient_credits', msg: 'Not enough credits' });
    const invalid = await post(h.app, '/pro/imagine', { key: user.apiKey, json: {} });
    expect(invalid.status).toBe(400);

    const rotated = await post(h.app, '/auth/revokeAndCreateNewAPIKey', { ...asDashboard(user) });
    expect(rotated.status).toBe(200);
    const stale = await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt: 'three' } });
    expect(stale.status).toBe(401);
    expect(await expectErrorBody(stale)).toEqual({ code: 'invalid_api_key', msg: 'Invalid API key' });
    const staleInvalid = await post(h.app, '/pro/imagine', { key: user.apiKey, json: {} });
    expect(staleInvalid.status).toBe(401);
    const fresh = ((await rotated.json()) as { api_key: string }).api_key;
    expect((await post(h.app, '/pro/imagine', { key: fresh, json: { prompt: 'four' } })).status).toBe(402);
  });
});
