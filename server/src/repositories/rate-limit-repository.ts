/**
 * @module public.rate_limit_buckets: fixed one-minute windows counted in the database, so
 * every API process shares them. The only SQL about rate limits; parameters only.
 */
import type { Queryable } from '@aim/supabase/db';

export interface BucketCheck {
  key: string;
  limit: number;
}

export interface BucketCount {
  key: string;
  limit: number;
  /** Requests counted in this window, this one included when it was allowed. */
  used: number;
}

export function rateLimitRepository(q: Queryable) {
  return {
    /**
     * One call for all of a request's buckets (public.rate_limit_hit): counts the request in
     * every bucket when each is under its limit, in none otherwise (a refused request uses up
     * nothing). Concurrent requests may overshoot a limit by how many run at once.
     */
    async hit(buckets: readonly BucketCheck[], windowStart: Date): Promise<{ allowed: boolean; counts: BucketCount[] }> {
      const { rows } = await q.query<{ key: string; used: number; allowed: boolean }>('select key, used, allowed from public.rate_limit_hit($1, $2, $3)', [
        buckets.map((b) => b.key),
        buckets.map((b) => b.limit),
        windowStart,
      ]);
      const byKey = new Map(rows.map((r) => [r.key, r]));
      return {
        allowed: rows[0]?.allowed ?? true,
        counts: buckets.map((b) => ({ key: b.key, limit: b.limit, used: byKey.get(b.key)?.used ?? 0 })),
      };
    },

    /** Forgets windows that ended before `before`. */
    async sweep(before: Date): Promise<void> {
      await q.query('delete from public.rate_limit_buckets where window_start < $1', [before]);
    },
  };
}
