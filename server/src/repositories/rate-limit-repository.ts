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

/** A bucket's row as public.rate_limit_hit returns it. */
export interface BucketRow {
  key: string;
  used: number;
  allowed: boolean;
}

export function rateLimitRepository(q: Queryable) {
  return {
    /**
     * The account whose primary key is `apiKey` (userRepository.findByApiKey), and, in the same
     * statement, `hit` on the buckets `keys` with `accountPlaceholder` replaced by its id (none
     * counted for an unknown key): the submit path's first statement.
     */
    async findPrimaryKeyCounting(
      apiKey: string,
      buckets: { keys: readonly string[]; limits: readonly number[]; windowStart: Date; accountPlaceholder: string },
    ): Promise<{ id: string; email: string; rows: BucketRow[] } | undefined> {
      const { rows } = await q.query<{ id: string; email: string; key: string | null; used: number | null; allowed: boolean | null }>(
        `select u.id, u.email, h.key, h.used, h.allowed
           from public.mdusers u
           left join lateral public.rate_limit_hit(array(select replace(t, $5, u.id::text) from unnest($2::text[]) as t), $3, $4) h on true
          where u.api_key = $1`,
        [apiKey, buckets.keys, buckets.limits, buckets.windowStart, buckets.accountPlaceholder],
      );
      if (!rows[0]) return undefined;
      return {
        id: rows[0].id,
        email: rows[0].email,
        rows: rows.filter((r) => r.key !== null).map((r) => ({ key: r.key as string, used: r.used ?? 0, allowed: r.allowed ?? true })),
      };
    },

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
