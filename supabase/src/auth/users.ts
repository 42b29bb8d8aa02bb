import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/index.ts';

/** auth.users as GoTrue stores it (the columns this service reads). */
export interface UserRow {
  id: string;
  aud: string;
  role: string;
  email: string;
  email_confirmed_at: Date | null;
  phone: string | null;
  phone_confirmed_at: Date | null;
  confirmation_sent_at: Date | null;
  confirmed_at: Date | null;
  recovery_sent_at: Date | null;
  last_sign_in_at: Date | null;
  raw_app_meta_data: Record<string, unknown> | null;
  raw_user_meta_data: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
  banned_until: Date | null;
  is_anonymous: boolean;
}

interface IdentityRow {
  id: string;
  provider_id: string;
  user_id: string;
  identity_data: Record<string, unknown>;
  provider: string;
  last_sign_in_at: Date | null;
  created_at: Date;
  updated_at: Date;
  email: string | null;
}

// What GoTrue puts in instance_id for single-tenant deployments.
const INSTANCE_ID = '00000000-0000-0000-0000-000000000000';

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : undefined);

export async function findUserById(q: Queryable, id: string, forUpdate = false): Promise<UserRow | undefined> {
  const r = await q.query<UserRow>(`select * from auth.users where id = $1${forUpdate ? ' for update' : ''}`, [id]);
  return r.rows[0];
}

export async function findUserByEmail(q: Queryable, email: string): Promise<UserRow | undefined> {
  const r = await q.query<UserRow>('select * from auth.users where lower(email) = lower($1) and is_sso_user = false', [email]);
  return r.rows[0];
}

/**
 * A new user with one identity. Inserting into auth.users fires the trigger that opens the
 * account (public.mdusers: fresh API key, 0 credits, plan zero). A concurrent sign-up of the
 * same address wins the race; we then return that user.
 */
async function insertUser(
  q: Queryable,
  fields: { id: string; email: string; appMeta: Record<string, unknown>; userMeta: Record<string, unknown>; confirmed: boolean },
  identity: { providerId: string; provider: string; data: Record<string, unknown> },
): Promise<UserRow> {
  const now = new Date();
  const inserted = await q.query<UserRow>(
    `insert into auth.users (instance_id, id, aud, role, email, email_confirmed_at, raw_app_meta_data, raw_user_meta_data, created_at, updated_at, phone, is_anonymous)
     values ($1, $7, 'authenticated', 'authenticated', $2, $3, $4::jsonb, $5::jsonb, $6, $6, null, false)
     on conflict (email) where is_sso_user = false do nothing
     returning *`,
    [INSTANCE_ID, fields.email, fields.confirmed ? now : null, JSON.stringify(fields.appMeta), JSON.stringify(fields.userMeta), now, fields.id],
  );
  const user = inserted.rows[0] ?? (await findUserByEmail(q, fields.email));
  if (!user) throw new Error(`user ${fields.email} vanished during sign-up`);
  if (inserted.rows[0]) await insertIdentity(q, user.id, identity.providerId, identity.provider, identity.data);
  return user;
}

async function insertIdentity(q: Queryable, userId: string, providerId: string, provider: string, data: Record<string, unknown>) {
  const now = new Date();
  await q.query(
    `insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
     values ($1, $2, $3::jsonb, $4, $5, $5, $5)
     on conflict (provider_id, provider) do update set identity_data = excluded.identity_data, last_sign_in_at = excluded.last_sign_in_at, updated_at = excluded.updated_at`,
    [providerId, userId, JSON.stringify(data), provider, now],
  );
}

/** Magic-link sign-up: an unconfirmed user with an 'email' identity (confirmed on first verify). */
export async function findOrCreateEmailUser(q: Queryable, email: string): Promise<UserRow> {
  const existing = await findUserByEmail(q, email);
  if (existing) return existing;
  const id = randomUUID();
  // GoTrue mirrors the email identity's data into user_metadata.
  const data = { sub: id, email, email_verified: false, phone_verified: false };
  return insertUser(
    q,
    { id, email, appMeta: { provider: 'email', providers: ['email'] }, userMeta: data, confirmed: false },
    { providerId: id, provider: 'email', data },
  );
}

/** The user proved they own the address: confirm it and stamp the sign-in. */
export async function markSignedIn(q: Queryable, user: UserRow, provider: string): Promise<UserRow> {
  const now = new Date();
  const r = await q.query<UserRow>(
    `update auth.users set email_confirmed_at = coalesce(email_confirmed_at, $2), last_sign_in_at = $2, updated_at = $2,
       raw_user_meta_data = case when $3 = 'email' and raw_user_meta_data ? 'email' then raw_user_meta_data || '{"email_verified":true}'::jsonb else raw_user_meta_data end
     where id = $1 returning *`,
    [user.id, now, provider],
  );
  await q.query(
    `update auth.identities set last_sign_in_at = $3, updated_at = $3,
       identity_data = case when provider = 'email' then identity_data || '{"email_verified":true}'::jsonb else identity_data end
     where user_id = $1 and provider = $2`,
    [user.id, provider, now],
  );
  return r.rows[0];
}

/** What GitHub's /user and /user/emails told us (GoTrue internal/api/provider/github.go). */
export interface ExternalIdentity {
  provider: 'github';
  providerId: string;
  email: string;
  data: Record<string, unknown>;
}

/**
 * Sign-in through a provider: the identity's user, else the user with the same (verified)
 * address gets the identity linked, else a new user whose first provider is this one.
 */
export async function findOrCreateExternalUser(q: Queryable, ext: ExternalIdentity): Promise<UserRow> {
  const linked = await q.query<{ user_id: string }>('select user_id from auth.identities where provider = $1 and provider_id = $2', [
    ext.provider,
    ext.providerId,
  ]);
  const byIdentity = linked.rows[0] ? await findUserById(q, linked.rows[0].user_id) : undefined;
  const user = byIdentity ?? (await findUserByEmail(q, ext.email));
  if (!user) {
    const fields = { id: randomUUID(), email: ext.email, appMeta: { provider: ext.provider, providers: [ext.provider] }, userMeta: ext.data, confirmed: true };
    return insertUser(q, fields, { providerId: ext.providerId, provider: ext.provider, data: ext.data });
  }
  await insertIdentity(q, user.id, ext.providerId, ext.provider, ext.data);
  const r = await q.query<UserRow>(
    `update auth.users set
       raw_app_meta_data = jsonb_set(coalesce(raw_app_meta_data, '{}'::jsonb), '{providers}',
         (select coalesce(jsonb_agg(distinct p order by p), '[]'::jsonb) from (select provider as p from auth.identities where user_id = $1) s)),
       raw_user_meta_data = coalesce(raw_user_meta_data, '{}'::jsonb) || $2::jsonb,
       updated_at = now()
     where id = $1 returning *`,
    [user.id, JSON.stringify(ext.data)],
  );
  return r.rows[0];
}

/** User JSON as GoTrue serialises models.User (empty optional fields left out). */
export async function userJson(q: Queryable, user: UserRow): Promise<Record<string, unknown>> {
  const ids = await q.query<IdentityRow>('select * from auth.identities where user_id = $1 order by created_at, id', [user.id]);
  return {
    id: user.id,
    aud: user.aud ?? 'authenticated',
    role: user.role ?? 'authenticated',
    email: user.email,
    email_confirmed_at: iso(user.email_confirmed_at),
    phone: user.phone ?? '',
    phone_confirmed_at: iso(user.phone_confirmed_at),
    confirmation_sent_at: iso(user.confirmation_sent_at),
    confirmed_at: iso(user.confirmed_at),
    recovery_sent_at: iso(user.recovery_sent_at),
    last_sign_in_at: iso(user.last_sign_in_at),
    app_metadata: user.raw_app_meta_data ?? {},
    user_metadata: user.raw_user_meta_data ?? {},
    identities: ids.rows.map((i) => ({
      identity_id: i.id,
      id: i.provider_id,
      user_id: i.user_id,
      identity_data: i.identity_data,
      provider: i.provider,
      last_sign_in_at: iso(i.last_sign_in_at),
      created_at: iso(i.created_at),
      updated_at: iso(i.updated_at),
      email: i.email ?? undefined,
    })),
    created_at: iso(user.created_at),
    updated_at: iso(user.updated_at),
    banned_until: iso(user.banned_until),
    is_anonymous: user.is_anonymous ?? false,
  };
}
