/**
 * @module Who is calling: the API key from the Authorization header, looked up in mdusers.
 */
import type { Db } from '@aim/supabase/db';
import { ApiError } from '../../errors.ts';
import { userRepository, type Account } from '../../repositories/user-repository.ts';

// Keys are 64 hex characters today; the cap only keeps absurd headers away from the database.
const MAX_KEY_LENGTH = 256;

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

/** The account owning the key in `authorization`, or a 401 ApiError. */
export async function authenticateApiKey(deps: { db: Db }, authorization: string | undefined): Promise<Account> {
  const key = parseApiKey(authorization);
  if (!key) throw new ApiError('missing_api_key', 'Missing API key');
  // A key with whitespace or control characters inside cannot exist: refuse without a query.
  if (key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) throw new ApiError('invalid_api_key', 'Invalid API key');
  const account = await userRepository(deps.db).findByApiKey(key);
  if (!account) throw new ApiError('invalid_api_key', 'Invalid API key');
  return account;
}
