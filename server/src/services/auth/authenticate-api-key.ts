/**
 * @module Who is calling: the API key from the Authorization header. The primary key (64 hex
 * characters) is looked up in mdusers and may do everything; a named key (`ak_…`) by its
 * SHA-256 in public.api_keys, with its own scopes, unless revoked or expired. No cache: a
 * rotation or revocation refuses the old key on the very next request in every API process.
 * A route says which scope it needs (`requireScope`, through apiKeyAuth).
 */
import type { Db } from '@aim/supabase/db';
import { ApiError } from '../../errors.ts';
import { apiKeyRepository, type ApiKeyScope } from '../../repositories/api-key-repository.ts';
import { userRepository, type Account } from '../../repositories/user-repository.ts';
import { hashKey, isNamedKeyForm, isWellFormedNamedKey } from '../api-keys/key-material.ts';

// Keys are 64 hex characters (primary) or 43 (named); the cap only keeps absurd headers away from the database.
const MAX_KEY_LENGTH = 256;

const INVALID_KEY_MESSAGE = 'Invalid API key';
const EXPIRED_KEY_MESSAGE = 'API key expired';

/**
 * What a route asks of the credential: a scope, any of several, or `primary` (the account's
 * primary key or the dashboard session only; what every route was before named keys).
 */
export type KeyRequirement = ApiKeyScope | readonly ApiKeyScope[] | 'primary';

/**
 * The key in an Authorization header: the raw key, or `Bearer <key>` (scheme case-insensitive).
 * Returns undefined when the header is absent or carries no key.
 */
export function parseApiKey(header: string | undefined): string | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  const bearer = /^bearer(?:\s+(.*))?$/i.exec(value);
  const key = bearer ? (bearer[1] ?? '').trim() : value;
  return key || undefined;
}

/** Looks a primary key up (the default, userRepository.findByApiKey; the middleware folds its rate limit into it). */
export type PrimaryKeyLookup = (apiKey: string) => Promise<Account | undefined>;

/** The account owning the key in `authorization`, or a 401 ApiError. */
export async function authenticateApiKey(deps: { db: Db }, authorization: string | undefined, findPrimary?: PrimaryKeyLookup): Promise<Account> {
  const key = parseApiKey(authorization);
  if (!key) throw new ApiError('missing_api_key', 'Missing API key');
  // A key with whitespace or control characters inside cannot exist: refuse without a query.
  if (key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) throw new ApiError('invalid_api_key', INVALID_KEY_MESSAGE);
  if (isNamedKeyForm(key)) return authenticateNamedKey(deps, key);
  const account = await (findPrimary ?? userRepository(deps.db).findByApiKey)(key);
  if (!account) throw new ApiError('invalid_api_key', INVALID_KEY_MESSAGE);
  return account;
}

async function authenticateNamedKey(deps: { db: Db }, key: string): Promise<Account> {
  if (!isWellFormedNamedKey(key)) throw new ApiError('invalid_api_key', INVALID_KEY_MESSAGE);
  const row = await apiKeyRepository(deps.db).findForAuth(hashKey(key));
  if (!row || row.revoked) throw new ApiError('invalid_api_key', INVALID_KEY_MESSAGE);
  if (row.expired) throw new ApiError('api_key_expired', EXPIRED_KEY_MESSAGE);
  return { id: row.user_id, email: row.email, keyId: row.key_id, scopes: row.scopes };
}

/** Whether the account's credential meets the route's requirement. */
function meetsRequirement(account: Account, need: KeyRequirement): boolean {
  if (need === 'primary') return account.keyId === null;
  const anyOf: readonly ApiKeyScope[] = typeof need === 'string' ? [need] : need;
  return anyOf.some((scope) => account.scopes.includes(scope));
}

/** Throws the 403 a named key gets on a route its scopes do not cover. */
export function requireScope(account: Account, need: KeyRequirement): void {
  if (meetsRequirement(account, need)) return;
  if (need === 'primary') throw new ApiError('insufficient_scope', 'This call needs the primary API key (or the dashboard): named API keys cannot make it');
  const anyOf: readonly ApiKeyScope[] = typeof need === 'string' ? [need] : need;
  throw new ApiError('insufficient_scope', `This API key lacks the ${anyOf.join(' or ')} scope`);
}
