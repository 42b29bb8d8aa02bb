import type { Db, Queryable } from '@aim/supabase/db';

/** `db` with every call it answers recorded (a transaction as BEGIN, its statements, COMMIT). */
export function recording(db: Db): { db: Db; calls: string[] } {
  const calls: string[] = [];
  const record = (q: Queryable): Queryable => ({
    query: (sql, params) => {
      calls.push(sql);
      return q.query(sql, params);
    },
    exec: (sql) => {
      calls.push(sql);
      return q.exec(sql);
    },
  });
  const recorded: Db = {
    ...db,
    ...record(db),
    transaction: (fn) => {
      calls.push('begin');
      return db.transaction((tx) => fn(record(tx))).finally(() => calls.push('commit'));
    },
  };
  return { db: recorded, calls };
}
