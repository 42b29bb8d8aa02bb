/**
 * @module public.api_keys: the named, scoped API keys beside an account's primary key
 * (docs/decisions/0013-named-scoped-api-keys.md). The only SQL about them; parameters only.
 * Keys are looked up by the SHA-256 of the presented key (hex here, bytea in the table): the
 * key itself is never stored and never read back. Every statement for a caller is scoped by
 * the caller's user id (the server is the table owner, no RLS).
 */
import { isPgError, type Queryable } from '@aim/supabase/db';

/** What a named key may do: `generate` submits tasks and uploads, `read` reads tasks and the account. */
export const API_KEY_SCOPES = ['generate', 'read'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** SQLSTATEs public.submit_task raises for a named key (20261128000300_named_api_keys.sql). */
const KEY_INVALID_SQLSTATE = 'PK401';
const KEY_CREDIT_LIMIT_SQLSTATE = 'PK402';

/** The key that made the submit was revoked, expired or is not the caller's by the time the task was born. */
export function isApiKeyInvalid(error: unknown): boolean {
  return isPgError(error) && error.code === KEY_INVALID_SQLSTATE;
}

/** The key's monthly credit limit (the error's detail) when the submit went over it; else undefined. */
export function apiKeyCreditLimitOf(error: unknown): number | undefined {
  if (!isPgError(error) || error.code !== KEY_CREDIT_LIMIT_SQLSTATE) return undefined;
  const limit = Number(error.detail);
  return Number.isFinite(limit) ? limit : 0;
}

/** A named key as its owner sees it: never the key, never its hash. */
export interface ApiKeyRow {
  id: string;
  name: string;
  prefix: string;
  last4: string;
  scopes: ApiKeyScope[];
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  monthly_credit_limit: number | null;
  /** Credits its tasks were charged this calendar month (UTC), net of refunds. */
  used_this_month: number;
}

/** What authentication needs to know about a presented named key. */
export interface ApiKeyAuthRow {
  user_id: string;
  email: string;
  key_id: string;
  scopes: ApiKeyScope[];
  revoked: boolean;
  expired: boolean;
}

const ROW = `k.id, k.name, k.prefix, k.last4, k.scopes, k.created_at, k.last_used_at, k.expires_at, k.revoked_at, k.monthly_credit_limit,
  public.api_key_month_usage(k.id)::int as used_this_month`;

/** A key counts toward the cap while it can still authenticate. */
const ACTIVE = '(k.revoked_at is null and (k.expires_at is null or k.expires_at > now()))';

export function apiKeyRepository(q: Queryable) {
  return {
    /**
     * The key whose SHA-256 is `hashHex`, with its owner; undefined when none. In the same
     * statement its last_used_at is moved to now when it is a minute old or more, the key can
     * still authenticate, and no submit holds its row (SKIP LOCKED: the request never waits
     * for a bookkeeping write).
     */
    async findForAuth(hashHex: string): Promise<ApiKeyAuthRow | undefined> {
      const { rows } = await q.query<ApiKeyAuthRow>(
        `with k as (
           select k.id, k.user_id, k.scopes, k.revoked_at is not null as revoked,
                  (k.expires_at is not null and k.expires_at <= now()) as expired
             from public.api_keys k where k.key_hash = decode($1, 'hex')
         ), touched as (
           update public.api_keys a set last_used_at = now()
            where a.id = (select l.id from public.api_keys l
                           where l.id = (select k.id from k where not k.revoked and not k.expired)
                             and (l.last_used_at is null or l.last_used_at < now() - interval '1 minute')
                             for update skip locked)
           returning a.id
         )
         select u.id as user_id, u.email, k.id as key_id, k.scopes, k.revoked, k.expired
           from k join public.mdusers u on u.id = k.user_id`,
        [hashHex],
      );
      return rows[0];
    },

    async list(userId: string): Promise<ApiKeyRow[]> {
      const { rows } = await q.query<ApiKeyRow>(`select ${ROW} from public.api_keys k where k.user_id = $1 order by k.created_at desc, k.id desc`, [userId]);
      return rows;
    },

    /**
     * Stores a new key unless the user already has `maxActive` keys that can authenticate;
     * answers the row, 'limit', or undefined when the user is gone. Run it in a transaction:
     * the user's mdusers row is locked first and the count is a later statement (a fresh
     * snapshot under READ COMMITTED), so two concurrent creations cannot both take the last place.
     */
    async create(
      userId: string,
      key: { name: string; hashHex: string; prefix: string; last4: string; scopes: ApiKeyScope[]; expiresAt: Date | null; monthlyCreditLimit: number | null },
      maxActive: number,
    ): Promise<ApiKeyRow | 'limit' | undefined> {
      const owner = await q.query('select 1 from public.mdusers where id = $1 for no key update', [userId]);
      if (owner.rows.length === 0) return undefined;
      const { rows } = await q.query<ApiKeyRow>(
        `insert into public.api_keys (user_id, name, key_hash, prefix, last4, scopes, expires_at, monthly_credit_limit)
         select $1, $2, decode($3, 'hex'), $4, $5, $6::text[], $7, $8
          where (select count(*) from public.api_keys k where k.user_id = $1 and ${ACTIVE}) < $9
         returning id, name, prefix, last4, scopes, created_at, last_used_at, expires_at, revoked_at, monthly_credit_limit, 0 as used_this_month`,
        [userId, key.name, key.hashHex, key.prefix, key.last4, key.scopes, key.expiresAt, key.monthlyCreditLimit, maxActive],
      );
      return rows[0] ?? 'limit';
    },

    /** Revokes the user's key (idempotent: an already revoked key keeps its time); undefined when it is not theirs. */
    async revoke(userId: string, keyId: string): Promise<ApiKeyRow | undefined> {
      const { rows } = await q.query<ApiKeyRow>(
        `update public.api_keys k set revoked_at = coalesce(k.revoked_at, now())
          where k.id = $2 and k.user_id = $1
         returning ${ROW}`,
        [userId, keyId],
      );
      return rows[0];
    },
  };
}
