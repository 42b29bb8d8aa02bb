import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { dropListenConnection, testDatabaseKinds } from '@aim/supabase/testing';
import { createUser, post, type TestUser } from './helpers.ts';
import { grantCredits, openTestDb, scriptedEngine, taskHarness, waitForTask, type TaskHarness } from './support/tasks.ts';

// The worker's LISTEN connection is terminated (failover, restart, an operator's
// pg_terminate_backend). The process must live on and the queue's NOTIFY must still wake it.
// Only PostgreSQL has a connection to lose.
for (const kind of testDatabaseKinds().filter((k) => k === 'postgres')) {
  describe(`the task worker after its LISTEN connection dropped on ${kind}`, () => {
    let db: Db;
    let h: TaskHarness;
    let user: TestUser;

    beforeAll(async () => {
      db = await openTestDb(kind);
      h = await taskHarness(db, [scriptedEngine()]);
      user = await createUser(db);
      await grantCredits(db, user.id, 10);
    });
    afterAll(async () => {
      await h?.cleanup();
      await db?.close();
    });

    const submit = async (prompt: string) => {
      const res = await post(h.app, '/flux/imagine', { key: user.apiKey, json: { prompt } });
      expect(res.status).toBe(200);
      return ((await res.json()) as { task_id: string }).task_id;
    };

    it('survives the drop and still picks up a job that only a NOTIFY announces', async () => {
      // no polling to fall back on: only the notification can wake this worker
      const worker = h.worker({ pollMs: 3_600_000 });
      await worker.start();
      expect((await waitForTask(db, await submit('before the drop'))).status).toBe('finished');

      await dropListenConnection(db);
      expect((await waitForTask(db, await submit('after the drop'))).status).toBe('finished');
      await dropListenConnection(db);
      expect((await waitForTask(db, await submit('after the second drop'))).status).toBe('finished');
      await worker.stop();
    });
  });
}
