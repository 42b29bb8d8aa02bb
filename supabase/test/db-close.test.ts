import { describe, expect, it } from 'vitest';
import { createTestDb, testDatabaseKinds } from './support/index.ts';

// A graceful stop closes the database while the last calls are in flight, and while event
// handlers that run when those calls resolve start one more (a task event writing its
// webhook row): close() must wait for both instead of ending the pool under them ("Cannot use
// a pool after calling end on the pool").
describe.each(testDatabaseKinds())('closing the database on %s', (kind) => {
  it('waits for the calls in flight and for those their handlers start', async () => {
    const db = await createTestDb(kind);
    await db.exec('create table close_test (n int)');
    const done: string[] = [];
    const inFlight = db.query('select pg_sleep(0.2)').then(async () => {
      done.push('first');
      // a handler reacting to the first result, after close() was called
      await db.query('insert into close_test values (1)');
      await new Promise((r) => setImmediate(r));
      await db.transaction(async (tx) => tx.query('insert into close_test values (2)'));
      done.push('handler');
    });
    const closed = db.close();
    await inFlight;
    await closed;
    expect(done).toEqual(['first', 'handler']);
  });
});
