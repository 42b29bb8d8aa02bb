/**
 * @module What POST /upload and /upload-audio store, metered (table public.media_uploads):
 * accounts without a plan (mdusers.plan = 'zero') may store UPLOAD_QUOTA_FREE_COUNT files and
 * UPLOAD_QUOTA_FREE_BYTES bytes per UTC day; every upload expires after UPLOAD_RETENTION_DAYS
 * unless a task refers to it (the upload sweep keeps those). The quota is enforced when the
 * upload is recorded, in one transaction holding the user's row lock, so concurrent uploads
 * cannot both pass a quota only one fits; a cheap check from the headers refuses an account
 * already at its quota before its body is read.
 */
import type { Db } from '@aim/supabase/db';
import { ApiError } from '../../errors.ts';

const MB = 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface UploadPolicy {
  /** Uploads per UTC day for an account without a plan. */
  freeCount: number;
  /** Bytes per UTC day for an account without a plan. */
  freeBytes: number;
  /** Days an upload no task refers to is kept. */
  retentionDays: number;
}

export const DEFAULT_UPLOAD_POLICY: UploadPolicy = { freeCount: 20, freeBytes: 50 * MB, retentionDays: 7 };

function whole(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value)) throw new Error(`${name} must be a whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}

/** UPLOAD_QUOTA_FREE_COUNT (default 20), UPLOAD_QUOTA_FREE_BYTES (default 50 MB), UPLOAD_RETENTION_DAYS (default 7). */
export function uploadPolicyFromEnv(env: NodeJS.ProcessEnv = process.env): UploadPolicy {
  return {
    freeCount: whole(env, 'UPLOAD_QUOTA_FREE_COUNT', DEFAULT_UPLOAD_POLICY.freeCount),
    freeBytes: whole(env, 'UPLOAD_QUOTA_FREE_BYTES', DEFAULT_UPLOAD_POLICY.freeBytes),
    retentionDays: Math.max(1, whole(env, 'UPLOAD_RETENTION_DAYS', DEFAULT_UPLOAD_POLICY.retentionDays)),
  };
}

const megabytes = (bytes: number) => `${Math.round((bytes / MB) * 10) / 10} MB`;

export function uploadQuotaMessage(policy: UploadPolicy): string {
  return `Free accounts can upload ${policy.freeCount} files (${megabytes(policy.freeBytes)}) a day; subscribe to a plan for more.`;
}

const quotaExceeded = (policy: UploadPolicy) => new ApiError('too_many_requests', uploadQuotaMessage(policy));

// the account's plan and what it stored since the start of the UTC day
const USAGE_SQL = `
  select u.plan,
         (select count(*)::int from public.media_uploads m where m.user_id = u.id and m.created_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc') as count,
         (select coalesce(sum(m.bytes), 0)::bigint from public.media_uploads m where m.user_id = u.id and m.created_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc') as bytes
    from public.mdusers u where u.id = $1`;

interface Usage {
  plan: string;
  count: number;
  bytes: string | number;
}

function refuses(policy: UploadPolicy, usage: Usage | undefined, adding: { count: number; bytes: number }): boolean {
  if (usage?.plan !== 'zero') return false;
  return usage.count + adding.count > policy.freeCount || Number(usage.bytes) + adding.bytes > policy.freeBytes;
}

/**
 * From the headers, before the body is read: refuses (429) a free account already at its
 * count, with no bytes left, or without room for `declaredBytes` (the file's size as far as
 * the request's Content-Length tells; 0 when unknown).
 */
export async function assertUploadQuota(db: Db, policy: UploadPolicy, userId: string, declaredBytes = 0): Promise<void> {
  const { rows } = await db.query<Usage>(USAGE_SQL, [userId]);
  if (refuses(policy, rows[0], { count: 1, bytes: Math.max(1, declaredBytes) })) throw quotaExceeded(policy);
}

/**
 * Records an upload of `bytes` under `key`, refusing (429) one over a free account's quota;
 * answers when it expires. One transaction under the user's row lock: the count and sum
 * below see every upload committed before the lock was granted.
 */
export async function recordUpload(db: Db, policy: UploadPolicy, userId: string, key: string, bytes: number): Promise<Date> {
  const expiresAt = new Date(Date.now() + policy.retentionDays * DAY_MS);
  await db.transaction(async (tx) => {
    await tx.query('select 1 from public.mdusers where id = $1 for update', [userId]);
    const { rows } = await tx.query<Usage>(USAGE_SQL, [userId]);
    if (refuses(policy, rows[0], { count: 1, bytes })) throw quotaExceeded(policy);
    await tx.query('insert into public.media_uploads (key, user_id, bytes, expires_at) values ($1, $2, $3, $4)', [key, userId, bytes, expiresAt.toISOString()]);
  });
  return expiresAt;
}

/** Forgets an upload that was recorded but could not be stored. */
export async function forgetUpload(db: Db, key: string): Promise<void> {
  await db.query('delete from public.media_uploads where key = $1', [key]);
}

/**
 * One sweep: uploads past their expires_at that no task of their owner refers to (their URL
 * in its input_data or prompt) are deleted from the table and then from the media store; referenced ones are
 * kept for good (expires_at cleared). Safe to run from several processes: a row is deleted
 * once, and only the process that deleted it removes the file. Answers the keys removed.
 */
export async function sweepExpiredUploads(deps: { db: Db; media: { delete?: (key: string) => Promise<void> } }, limit = 200): Promise<string[]> {
  // the owner's tasks (live and archived) naming the key in input_data (faceswap, blend, describe,
  // suno-upload, …) or in the prompt (imagine's image URLs)
  const names = `(coalesce(t.input_data::text, '') || ' ' || coalesce(t.prompt, '')) like '%' || m.key || '%'`;
  const referenced = `exists (select 1 from public.tasks t where t.user_id = m.user_id and ${names})
                   or exists (select 1 from public.tasks_archive_1 t where t.user_id = m.user_id and ${names})`;
  await deps.db.query(
    `update public.media_uploads m set expires_at = null
      where m.key in (select key from public.media_uploads where expires_at is not null and expires_at < now() order by expires_at limit $1)
        and (${referenced})`,
    [limit],
  );
  const { rows } = await deps.db.query<{ key: string }>(
    `delete from public.media_uploads m
      where m.key in (select key from public.media_uploads where expires_at is not null and expires_at < now() order by expires_at limit $1)
        and not (${referenced})
      returning m.key`,
    [limit],
  );
  const removed: string[] = [];
  for (const { key } of rows) {
    await deps.media.delete?.(key);
    removed.push(key);
  }
  return removed;
}
