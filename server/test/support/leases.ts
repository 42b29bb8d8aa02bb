/**
 * Samples the live leases of the job queue while workers run: the most held at once in all,
 * and by each worker (locked_by), for the tests of per-worker and cluster-wide limits.
 */
import type { Db } from '@aim/supabase/db';

export interface LeaseSampler {
  /** Stops sampling; the peaks seen. */
  stop(): Promise<{ total: number; perWorker: Record<string, number> }>;
}

export async function sampleLeases(db: Db, queue = 'local'): Promise<LeaseSampler> {
  let total = 0;
  const perWorker: Record<string, number> = {};
  let sampling = true;
  const loop = (async () => {
    while (sampling) {
      const { rows } = await db.query<{ locked_by: string; n: number }>(
        `select locked_by, count(*)::int as n from public.task_jobs
          where queue = $1 and state = 'active' and lease_expires_at > now() group by locked_by`,
        [queue],
      );
      total = Math.max(
        total,
        rows.reduce((sum, r) => sum + r.n, 0),
      );
      for (const r of rows) perWorker[r.locked_by] = Math.max(perWorker[r.locked_by] ?? 0, r.n);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    async stop() {
      sampling = false;
      await loop;
      return { total, perWorker };
    },
  };
}
