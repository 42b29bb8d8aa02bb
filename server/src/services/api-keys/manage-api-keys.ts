/**
 * @module The named API keys of the signed-in user (GET/POST /auth/api-keys, POST
 * /auth/api-keys/{id}/revoke): list, create (the key is answered once, only its hash is kept)
 * and revoke (refused on the very next request: authentication reads the table every time).
 */
import type { Db } from '@aim/supabase/db';
import { ApiError } from '../../errors.ts';
import { apiKeyRepository, type ApiKeyRow, type ApiKeyScope } from '../../repositories/api-key-repository.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { accountGone } from '../account/account-gone.ts';
import { displayParts, generateNamedKey, hashKey } from './key-material.ts';

/** Keys that can still authenticate (not revoked, not expired) per account. */
export const MAX_ACTIVE_KEYS = 25;

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  last4: string;
  scopes: ApiKeyScope[];
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  revoked: boolean;
  expired: boolean;
  monthly_credit_limit: number | null;
  used_this_month: number;
}

export interface NewApiKey {
  name: string;
  scopes: ApiKeyScope[];
  expires_at?: string | null;
  monthly_credit_limit?: number | null;
}

function toView(row: ApiKeyRow, now = new Date()): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    last4: row.last4,
    scopes: row.scopes,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
    expires_at: row.expires_at?.toISOString() ?? null,
    revoked_at: row.revoked_at?.toISOString() ?? null,
    revoked: row.revoked_at !== null,
    expired: row.expires_at !== null && row.expires_at.getTime() <= now.getTime(),
    monthly_credit_limit: row.monthly_credit_limit,
    used_this_month: row.used_this_month,
  };
}

export async function listApiKeys(deps: { db: Db }, account: Account): Promise<{ keys: ApiKeyView[] }> {
  const rows = await apiKeyRepository(deps.db).list(account.id);
  return { keys: rows.map((row) => toView(row)) };
}

/** Creates a key; the answer is the only place the key itself ever appears. */
export async function createApiKey(deps: { db: Db }, account: Account, input: NewApiKey): Promise<ApiKeyView & { key: string }> {
  const expiresAt = input.expires_at ? new Date(input.expires_at) : null;
  if (expiresAt && expiresAt.getTime() <= Date.now()) throw new ApiError('validation_failed', 'expires_at: Must be in the future');
  const key = generateNamedKey();
  const scopes = [...new Set(input.scopes)].sort() as ApiKeyScope[];
  const created = await deps.db.transaction((tx) =>
    apiKeyRepository(tx).create(
      account.id,
      { name: input.name, hashHex: hashKey(key), ...displayParts(key), scopes, expiresAt, monthlyCreditLimit: input.monthly_credit_limit ?? null },
      MAX_ACTIVE_KEYS,
    ),
  );
  if (!created) throw accountGone();
  if (created === 'limit') {
    throw new ApiError('conflict', `You already have ${MAX_ACTIVE_KEYS} active API keys. Revoke one before creating another.`);
  }
  return { ...toView(created), key };
}

/** Revokes one of the caller's keys (again: no change); someone else's or an unknown id is a 404. */
export async function revokeApiKey(deps: { db: Db }, account: Account, keyId: string): Promise<ApiKeyView> {
  const row = await apiKeyRepository(deps.db).revoke(account.id, keyId);
  if (!row) throw new ApiError('not_found', 'API key not found');
  return toView(row);
}
