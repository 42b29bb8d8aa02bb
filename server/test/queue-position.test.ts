/**
 * Queue position: POST /fetch of a queued task says how many jobs of its engine start before it
 * (queue_position, under the queue's fairness rules: accounts take turns by default, FIFO with
 * QUEUE_FAIRNESS=fifo) and when it should start (estimated_start_at, from the engine's recent
 * job durations and how many run at once). Fields only added: gone once the task runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { jobRepository } from '../src/repositories/job-repository.ts';
import { fetchTask } from '../src/services/tasks/fetch-task.ts';
import { estimateWaitSeconds, withQueuePosition } from '../src/services/tasks/queue-position.ts';
import { createUser, post, type TestUser } from './helpers.ts';
import { grantCredits, openTestDb, taskHarness, type TaskHarness } from './support/tasks.ts';

describe('estimateWaitSeconds', () => {
  it.each([
    // ahead, running, job seconds → wait
    [0, 0, 10, 0],
    [3, 0, 10, 30],
    [0, 1, 10, 5],
    [0, 4, 10, 5],
    [4, 2, 10, 25],
    [9, 3, 8, 28],
  ])('%i ahead, %i running, %is a job → %is', (ahead, running, seconds, wait) => {
    expect(estimateWaitSeconds(ahead, running, seconds)).toBe(wait);
  });
});

describe.each(testDatabaseKinds())('queue position on %s', (kind) => {
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

  async function submit(user: TestUser, prompt: string): Promise<string> {
    const res = await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { task_id: string }).task_id;
  }

  async function fetchView(user: TestUser, taskId: string) {
    const res = await post(h.app, '/fetch', { key: user.apiKey, json: { task_id: taskId } });
    expect(res.status).toBe(200);
    return (await res.json()) as { status: string; queue_position?: number; estimated_start_at?: string | null; child_task_ids: string[] };
  }

  it('counts the jobs ahead by account turns (and FIFO when configured), estimates the start from recent jobs', async () => {
    const [a, b, c] = [await createUser(db), await createUser(db), await createUser(db)];
    for (const u of [a, b, c]) await grantCredits(db, u.id, 100);
    const a1 = await submit(a, 'a one');
    const a2 = await submit(a, 'a two');
    const a3 = await submit(a, 'a three');
    const b1 = await submit(b, 'b one');

    // account turns: a1 and b1 share turn 1 (a1 is older), a2 turn 2, a3 turn 3
    const views = await Promise.all([fetchView(a, a1), fetchView(a, a2), fetchView(a, a3), fetchView(b, b1)]);
    expect(views.map((v) => v.queue_position)).toEqual([0, 2, 3, 1]);
    // no job of the engine has finished yet: no estimate
    expect(views.map((v) => v.estimated_start_at)).toEqual([null, null, null, null]);
    expect(views[0]).toMatchObject({ status: 'pending', child_task_ids: [] });

    // first in, first out when the queue is configured so
    const fifo = { QUEUE_FAIRNESS: 'fifo' };
    const b1View = await fetchTask({ db }, { id: b.id } as never, b1);
    expect((await withQueuePosition(db, b1View, fifo)).queue_position).toBe(3);

    // c's job runs now, after one that took 10 s: one slot busy, ~half a job left
    const c1 = await submit(c, 'c one');
    const c0 = await submit(c, 'c done');
    await db.query(`update public.task_jobs set state = 'done', claimed_at = now() - interval '10 seconds', updated_at = now() where task_id = $1`, [c0]);
    await db.query(
      `update public.task_jobs set state = 'active', attempts = 1, lease_token = gen_random_uuid(), lease_expires_at = now() + interval '1 minute',
              claimed_at = now(), locked_by = 'test' where task_id = $1`,
      [c1],
    );
    const before = Date.now();
    const first = await fetchView(a, a1);
    expect(first.queue_position).toBe(0);
    const startsIn = (Date.parse(first.estimated_start_at as string) - before) / 1000;
    expect(startsIn).toBeGreaterThan(3);
    expect(startsIn).toBeLessThan(8);
    // a3: 3 ahead, 1 running → 10 × 3.5 = 35 s
    const third = await fetchView(a, a3);
    expect((Date.parse(third.estimated_start_at as string) - before) / 1000).toBeGreaterThan(33);

    // running: the fields are gone
    const running = await fetchView(c, c1);
    expect(running).not.toHaveProperty('queue_position');
    expect(running).not.toHaveProperty('estimated_start_at');
  });

  it('predicts the order the workers’ claims really take (account turns)', async () => {
    const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from public.task_jobs where state = 'queued'`);
    // start from an empty queue
    if (rows[0].n > 0) await db.query(`update public.task_jobs set state = 'done' where state = 'queued'`);
    const [a, b, c] = [await createUser(db), await createUser(db), await createUser(db)];
    for (const u of [a, b, c]) await grantCredits(db, u.id, 100);
    const submitted: [TestUser, string][] = [];
    for (const [user, prompt] of [
      [a, 'a1'],
      [a, 'a2'],
      [a, 'a3'],
      [b, 'b1'],
      [c, 'c1'],
      [b, 'b2'],
    ] as const)
      submitted.push([user, await submit(user, prompt)]);
    const predicted = new Map<string, number>();
    for (const [user, id] of submitted) predicted.set(id, (await fetchView(user, id)).queue_position as number);
    const claimed: string[] = [];
    for (let i = 0; i < submitted.length; i++) {
      const [job] = await db.transaction((tx) =>
        jobRepository(tx).claim({
          queue: 'local',
          wanted: 1,
          clusterLimit: null,
          workerId: 'probe',
          leaseSeconds: 60,
          exclude: [],
          fairness: { mode: 'account' },
        }),
      );
      claimed.push(job.task_id);
    }
    expect(claimed.map((id) => predicted.get(id))).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
