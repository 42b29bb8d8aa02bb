/**
 * @module public.idempotency_keys: the Idempotency-Key of a create or charge call per account,
 * its request fingerprint, the lease of the request that runs it and, once it answered 2xx,
 * that answer. The only SQL about idempotency keys; parameters only.
 */
import type { Queryable } from '@aim/supabase/db';

/** How public.idempotency_reserve found the key. */
export type Reservation =
  | { acquired: true }
  | { acquired: false; method: string; path: string; requestHash: string; inFlight: true }
  | { acquired: false; method: string; path: string; requestHash: string; inFlight: false; status: number; body: string };

interface ReserveRow {
  acquired: boolean;
  method: string;
  path: string;
  request_hash: string;
  response_status: number | null;
  response_body: string | null;
  in_flight: boolean;
}

export function idempotencyRepository(q: Queryable) {
  return {
    /**
     * Leases the key to `token` for `leaseMs` when it is new, older than 24 hours, or an
     * abandoned lease of the same request; otherwise answers the row as it stands.
     */
    async reserve(input: {
      userId: string;
      key: string;
      method: string;
      path: string;
      requestHash: string;
      token: string;
      leaseMs: number;
    }): Promise<Reservation> {
      const { rows } = await q.query<ReserveRow>('select * from public.idempotency_reserve($1, $2, $3, $4, $5, $6, $7)', [
        input.userId,
        input.key,
        input.method,
        input.path,
        input.requestHash,
        input.token,
        input.leaseMs,
      ]);
      const row = rows[0];
      if (!row) throw new Error('idempotency_reserve answered no row');
      if (row.acquired) return { acquired: true };
      const seen = { acquired: false as const, method: row.method, path: row.path, requestHash: row.request_hash };
      if (row.in_flight || row.response_status === null) return { ...seen, inFlight: true };
      return { ...seen, inFlight: false, status: row.response_status, body: row.response_body ?? '' };
    },

    /** Moves the lease's end to `leaseMs` from now while the request runs; false when it is no longer ours. */
    async renew(userId: string, key: string, token: string, leaseMs: number): Promise<boolean> {
      const { rows } = await q.query(
        `update public.idempotency_keys set locked_until = now() + $4 * interval '1 millisecond'
          where user_id = $1 and key = $2 and lease_token = $3 returning 1`,
        [userId, key, token, leaseMs],
      );
      return rows.length > 0;
    },

    /** Stores the answer to replay and ends the lease; false when the lease was taken over. */
    async complete(userId: string, key: string, token: string, answer: { status: number; body: string }): Promise<boolean> {
      const { rows } = await q.query(
        `update public.idempotency_keys set response_status = $4, response_body = $5, lease_token = null, locked_until = null
          where user_id = $1 and key = $2 and lease_token = $3 returning 1`,
        [userId, key, token, answer.status, answer.body],
      );
      return rows.length > 0;
    },

    /** Frees the key of a request that answered without effect (not 2xx), so a retry runs again. */
    async release(userId: string, key: string, token: string): Promise<void> {
      await q.query('delete from public.idempotency_keys where user_id = $1 and key = $2 and lease_token = $3', [userId, key, token]);
    },

    /** Deletes up to `limit` keys first used more than 24 hours ago (the database's clock, as idempotency_reserve); answers how many. */
    async sweep(limit: number): Promise<number> {
      const { rows } = await q.query<{ n: number }>(
        `with gone as (
           delete from public.idempotency_keys
            where ctid in (select ctid from public.idempotency_keys where created_at < now() - interval '24 hours' limit $1)
           returning 1)
         select count(*)::int as n from gone`,
        [limit],
      );
      return rows[0]?.n ?? 0;
    },
  };
}
