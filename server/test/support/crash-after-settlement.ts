/**
 * A Db whose transactions behave normally except one that settles a task (it inserts into
 * task_settlements): once that one has committed, `afterCommit` runs instead of returning,
 * so nothing the caller meant to do after the commit happens. The child worker of the
 * durable-webhook suite SIGKILLs itself there; the in-process variant throws. No vitest
 * imports: the child process uses it.
 */
import type { Db, Queryable } from '@aim/supabase/db';

export function crashAfterSettlement(db: Db, afterCommit: () => never): Db {
  return {
    ...db,
    async transaction(fn) {
      let settles = false;
      const out = await db.transaction((tx) => {
        const spy: Queryable = {
          query(sql, params) {
            if (/insert into public\.task_settlements/i.test(sql)) settles = true;
            return tx.query(sql, params);
          },
          exec: (sql) => tx.exec(sql),
        };
        return fn(spy);
      });
      if (settles) afterCommit();
      return out;
    },
  };
}
