import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { taskRepository } from '../src/repositories/task-repository.ts';
import { settleFailure } from '../src/services/tasks/settle-task.ts';
import { createUser, post } from './helpers.ts';
import { balanceOf, grantCredits, ledgerOf, openTestDb, readTask, scriptedEngine, taskHarness, waitForTask, type TaskHarness } from './support/tasks.ts';

describe.each(testDatabaseKinds())('credits on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;

  beforeAll(async () => {
    db = await openTestDb(kind);
    h = await taskHarness(db, [scriptedEngine()]);
  });
  afterAll(async () => {
    await h?.cleanup();
    await db?.close();
  });

  it('should create exactly 10 tasks out of 200 concurrent submits when the balance covers 10', async () => {
    const user = await createUser(db);
    await grantCredits(db, user.id, 40);
    const statuses = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        Promise.resolve(post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt: `burst ${i}` } })).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(190);
    const { rows } = await db.query<{ n: number; held: number }>(
      `select count(*)::int as n, coalesce(sum(cost), 0)::int as held from public.tasks where user_id = $1`,
      [user.id],
    );
    expect(rows[0]).toEqual({ n: 10, held: 40 });
    const balance = await balanceOf(db, user.id);
    expect(balance.credits).toBe(0);
    expect(balance.ledgerSum).toBe(balance.credits);
    expect(balance.ledgerRows).toBe(11); // the grant and ten holds
  });

  describe('settlement by the worker', () => {
    const failures: { taskId: string; refund: number }[] = [];
    beforeAll(async () => {
      const worker = h.worker();
      worker.onTaskEvent((task, eventKind) => {
        if (eventKind === 'failed') failures.push({ taskId: task.task_id, refund: task.refund });
      });
      await worker.start();
    });

    it('should keep the hold as the charge on success, and record it', async () => {
      const user = await createUser(db);
      await grantCredits(db, user.id, 10);
      const { task_id } = (await (await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt: 'fine' } })).json()) as { task_id: string };
      expect((await waitForTask(db, task_id)).status).toBe('finished');
      expect(await ledgerOf(db, task_id)).toEqual([{ delta: -4, source_key: `hold:${task_id}` }]);
      const { rows } = await db.query('select outcome, amount from public.task_settlements where task_id = $1', [task_id]);
      expect(rows).toEqual([{ outcome: 'charged', amount: 4 }]);
      expect(await balanceOf(db, user.id)).toMatchObject({ credits: 6, ledgerSum: 6 });
    });

    it('should fail and refund exactly once when the engine fails, even if settled again', async () => {
      const user = await createUser(db);
      await grantCredits(db, user.id, 10);
      const res = await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt: 'fail:boom' } });
      const { task_id } = (await res.json()) as { task_id: string };
      const task = await waitForTask(db, task_id);
      expect(task).toMatchObject({ status: 'failed', refund: 4, cost: 4, result: { message: 'Scripted failure boom', code: 'upstream_failed' } });
      const fetched = (await (await post(h.app, '/fetch', { key: user.apiKey, json: { task_id } })).json()) as Record<string, unknown>;
      expect(fetched).toMatchObject({ status: 'failed', refund: 4, result: { message: 'Scripted failure boom' } });

      // a second settlement (another worker, a retry of the transaction) moves nothing
      const row = await taskRepository(db).findById(task_id);
      expect(await db.transaction((tx) => settleFailure(tx, row!, { message: 'again', code: 'x' }))).toBeUndefined();
      expect(await ledgerOf(db, task_id)).toEqual([
        { delta: -4, source_key: `hold:${task_id}` },
        { delta: 4, source_key: `refund:${task_id}` },
      ]);
      expect(await balanceOf(db, user.id)).toMatchObject({ credits: 10, ledgerSum: 10 });
      expect(failures.filter((f) => f.taskId === task_id)).toEqual([{ taskId: task_id, refund: 4 }]);
    });

    it('should retry a retryable failure with backoff and charge once it succeeds', async () => {
      const user = await createUser(db);
      await grantCredits(db, user.id, 4);
      const { task_id } = (await (await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt: 'flaky:2' } })).json()) as { task_id: string };
      expect((await waitForTask(db, task_id)).status).toBe('finished');
      const { rows } = await db.query('select state, attempts from public.task_jobs where task_id = $1', [task_id]);
      expect(rows).toEqual([{ state: 'done', attempts: 3 }]);
      expect(await balanceOf(db, user.id)).toMatchObject({ credits: 0, ledgerSum: 0 });
    });

    it('should fail and refund once when every attempt fails', async () => {
      const user = await createUser(db);
      await grantCredits(db, user.id, 4);
      const { task_id } = (await (await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt: 'flaky:9' } })).json()) as { task_id: string };
      const task = await waitForTask(db, task_id);
      expect(task).toMatchObject({ status: 'failed', refund: 4, result: { message: 'Busy, try again' } });
      const { rows } = await db.query('select state, attempts from public.task_jobs where task_id = $1', [task_id]);
      expect(rows).toEqual([{ state: 'failed', attempts: 3 }]);
      expect((await ledgerOf(db, task_id)).filter((l) => l.source_key.startsWith('refund:'))).toHaveLength(1);
      expect(await balanceOf(db, user.id)).toMatchObject({ credits: 4, ledgerSum: 4 });
      expect((await readTask(db, task_id)).percentage).toBeLessThan(100);
    });
  });
});
