import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Queryable } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { createJobQueue, type JobRow } from '../src/queue/job-queue.ts';
import { type ClaimFairness, jobRepository } from '../src/repositories/job-repository.ts';
import { queueFairnessFromEnv } from '../src/workers/queue-fairness.ts';
import { createUser, post, type TestUser } from './helpers.ts';
import { grantCredits, openTestDb, scriptedEngine, taskHarness, waitForTask } from './support/tasks.ts';

const FAIR: ClaimFairness = { mode: 'account' };
const FIFO: ClaimFairness = { mode: 'fifo' };

describe('queue fairness configuration', () => {
  it('should default to account turns without a cap, and read QUEUE_FAIRNESS and QUEUE_MAX_RUNNING_PER_ACCOUNT', () => {
    expect(queueFairnessFromEnv({})).toEqual({ mode: 'account', maxRunningPerAccount: null });
    expect(queueFairnessFromEnv({ QUEUE_FAIRNESS: 'fifo' })).toEqual({ mode: 'fifo', maxRunningPerAccount: null });
    expect(queueFairnessFromEnv({ QUEUE_FAIRNESS: 'account', QUEUE_MAX_RUNNING_PER_ACCOUNT: '3' })).toEqual({ mode: 'account', maxRunningPerAccount: 3 });
    expect(() => queueFairnessFromEnv({ QUEUE_FAIRNESS: 'lifo' })).toThrow(/QUEUE_FAIRNESS/);
    expect(() => queueFairnessFromEnv({ QUEUE_MAX_RUNNING_PER_ACCOUNT: '0' })).toThrow(/QUEUE_MAX_RUNNING_PER_ACCOUNT/);
  });
});

describe.each(testDatabaseKinds())('fair job queue on %s', (kind) => {
  let db: Db;
  let a: TestUser;
  let b: TestUser;
  let c: TestUser;
  let clock = 0;

  beforeAll(async () => {
    db = await openTestDb(kind);
    [a, b, c] = [await createUser(db), await createUser(db), await createUser(db)];
  });
  afterAll(async () => {
    await db?.close();
  });

  /** Queues `n` jobs of `user` on `queue`, each due (and created) after every job queued before. */
  async function enqueue(user: TestUser, queue: string, n: number): Promise<string[]> {
    const ids = Array.from({ length: n }, () => randomUUID());
    await db.query(`insert into public.tasks (id, user_id, email, type) select id, $2, $3, 'imagine' from unnest($1::uuid[]) as id`, [
      ids,
      user.id,
      user.email,
    ]);
    // the job rows do not name their account: the trigger finds it
    await db.query(
      `insert into public.task_jobs (task_id, queue, run_at, created_at)
       select id, $2, t, t from unnest($1::uuid[]) with ordinality as x(id, i)
        cross join lateral (select now() - interval '1 hour' + make_interval(secs => ($3 + i) / 1000.0)) as s(t)`,
      [ids, queue, clock],
    );
    clock += n;
    return ids;
  }

  function claimer(workerId: string, fairness: ClaimFairness) {
    return createJobQueue(db, { workerId, leaseMs: 60_000, backoffMs: 10, maxBackoffMs: 10, fairness });
  }

  const finish = (job: JobRow) => jobRepository(db).finish(job.task_id, job.lease_token, 'done');
  const ids = (jobs: JobRow[]) => jobs.map((j) => j.task_id);

  it('should fill the account of a job from its task, also when both are inserted by one statement', async () => {
    const [legacy] = await enqueue(a, 'fill', 1);
    const id = randomUUID();
    await db.query(
      `with t as (insert into public.tasks (id, user_id, email, type) values ($1, $2, $3, 'imagine') returning id)
       insert into public.task_jobs (task_id, queue) select id, 'fill' from t`,
      [id, b.id, b.email],
    );
    const { rows } = await db.query<{ task_id: string; account_id: string }>(`select task_id, account_id from public.task_jobs where queue = 'fill'`);
    expect(Object.fromEntries(rows.map((r) => [r.task_id, r.account_id]))).toEqual({ [legacy]: a.id, [id]: b.id });
  });

  it.each([
    ['account', FAIR],
    ['fifo', FIFO],
  ] as const)('should claim a second account’s first job next behind a 100-job backlog in %s mode (FIFO: behind it)', async (mode, fairness) => {
    const queue = `burst-${mode}`;
    const backlog = await enqueue(a, queue, 100);
    const [w1, w2] = [claimer('w1', fairness), claimer('w2', fairness)];
    const running = [...(await w1.claim(queue, 1, 2, [])), ...(await w2.claim(queue, 1, 2, []))];
    expect(ids(running)).toEqual(backlog.slice(0, 2));
    const [late] = await enqueue(b, queue, 1);
    expect(await finish(running[0])).toBe(true);
    const next = await w1.claim(queue, 1, 2, []);
    expect(ids(next)).toEqual(mode === 'account' ? [late] : [backlog[2]]);
  });

  it.each([
    ['account', FAIR],
    ['fifo', FIFO],
  ] as const)('should let accounts take turns one job at a time in %s mode, FIFO within each account', async (mode, fairness) => {
    const queue = `turns-${mode}`;
    const [a1, a2, a3] = await enqueue(a, queue, 3);
    const [b1, b2] = await enqueue(b, queue, 2);
    const [c1] = await enqueue(c, queue, 1);
    const w = claimer('solo', fairness);
    const order: string[] = [];
    for (;;) {
      const [job] = await w.claim(queue, 1, 1, []);
      if (!job) break;
      order.push(job.task_id);
      await finish(job);
    }
    expect(order).toEqual(mode === 'account' ? [a1, b1, c1, a2, b2, a3] : [a1, a2, a3, b1, b2, c1]);
  });

  it('should share one claim of several jobs between accounts, and hold an account to its cap', async () => {
    const backlog = await enqueue(a, 'batch', 100);
    const [late] = await enqueue(b, 'batch', 1);
    expect(ids(await claimer('batch', FAIR).claim('batch', 3, 10, []))).toEqual([backlog[0], late, backlog[1]]);

    const capped = await enqueue(c, 'capped', 5);
    const w = claimer('capped', { mode: 'account', maxRunningPerAccount: 2 });
    const first = await w.claim('capped', 4, 10, []);
    expect(ids(first)).toEqual(capped.slice(0, 2));
    expect(await w.claim('capped', 4, 10, [])).toEqual([]);
    await finish(first[0]);
    expect(ids(await w.claim('capped', 4, 10, []))).toEqual([capped[2]]);
  });

  it('should take back an expired lease in its account’s turn', async () => {
    const [a1, a2] = await enqueue(a, 'expired', 2);
    const [b1] = await enqueue(b, 'expired', 1);
    const ghost = createJobQueue(db, { workerId: 'ghost', leaseMs: 1, backoffMs: 10, maxBackoffMs: 10, fairness: FAIR });
    expect(ids(await ghost.claim('expired', 1, 10, []))).toEqual([a1]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const rescued = await claimer('rescuer', FAIR).claim('expired', 3, 10, []);
    // a1's lease ran out: it is a's first turn again, after b's first (a was served last)
    expect(ids(rescued)).toEqual([b1, a1, a2]);
    expect(rescued[1].attempts).toBe(2);
  });

  it('should never give one job to two concurrent claimers', async () => {
    const all = [...(await enqueue(a, 'race', 30)), ...(await enqueue(b, 'race', 20)), ...(await enqueue(c, 'race', 10))];
    const claimed: string[] = [];
    await Promise.all(
      Array.from({ length: 4 }, async (_, i) => {
        const w = claimer(`racer-${i}`, FAIR);
        for (;;) {
          const jobs = await w.claim('race', 3, 100, []);
          if (jobs.length === 0) break;
          claimed.push(...ids(jobs));
          await Promise.all(jobs.map(finish));
        }
      }),
    );
    expect(claimed.length).toBe(all.length);
    expect(new Set(claimed)).toEqual(new Set(all));
  });

  it('should plan the claim through indexes on a backlog of thousands of jobs', async () => {
    await enqueue(a, 'plan', 3000);
    await enqueue(b, 'plan', 2000);
    await enqueue(c, 'plan', 1);
    await db.query('analyze public.task_jobs');
    const w = claimer('planner', FAIR);
    expect(await w.claim('plan', 2, 10, [])).toHaveLength(2);
    // the claim's plan: task_jobs only through indexes, whatever the backlog
    const text = await explainFairClaim(db, 'plan');
    expect(text).not.toMatch(/Seq Scan on task_jobs/);
    expect(text).toMatch(/task_jobs_account_ready_idx/);
  });

  it('should run a second account’s task right after the running one through the API and a worker', async () => {
    const engine = scriptedEngine();
    const h = await taskHarness(db, [engine]);
    try {
      await grantCredits(db, a.id, 100);
      await grantCredits(db, b.id, 100);
      const submit = async (user: TestUser, prompt: string) => {
        const res = await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt } });
        expect(res.status).toBe(200);
        return ((await res.json()) as { task_id: string }).task_id;
      };
      const burst: string[] = [];
      for (let i = 0; i < 4; i++) burst.push(await submit(a, `slow:500 burst ${i}`));
      // the default configuration: account turns
      const worker = h.worker({ workerId: 'fair', concurrency: { local: 1 } });
      await worker.start();
      await waitForTask(db, burst[0], { until: (t) => t.status !== 'pending' && t.status !== 'queued' });
      const late = await submit(b, 'slow:10 late');
      await Promise.all([...burst, late].map((id) => waitForTask(db, id)));
      await worker.stop();
      const { rows } = await db.query<{ task_id: string }>('select task_id from public.task_jobs where task_id = any($1::uuid[]) order by claimed_at', [
        [...burst, late],
      ]);
      expect(rows.map((r) => r.task_id)).toEqual([burst[0], late, ...burst.slice(1)]);
    } finally {
      await h.cleanup();
    }
  });
});

/**
 * EXPLAIN of the fair claim's statement exactly as the repository sends it (its parameters
 * bound), without running it: a Queryable that explains the claim's UPDATE instead.
 */
async function explainFairClaim(db: Db, queue: string): Promise<string> {
  let plan = '';
  const explaining = {
    async query(sql: string, params?: unknown[]) {
      if (!sql.trimStart().startsWith('with recursive')) return db.query(sql, params);
      const { rows } = await db.query<{ 'QUERY PLAN': string }>(`explain ${sql}`, params);
      plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      return { rows: [] };
    },
  } as unknown as Queryable;
  await jobRepository(explaining).claim({ queue, wanted: 2, clusterLimit: 10, workerId: 'explain', leaseSeconds: 60, exclude: [], fairness: FAIR });
  return plan;
}
