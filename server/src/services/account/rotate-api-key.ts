import type { Db } from '@aim/supabase/db';
import { userRepository, type Account } from '../../repositories/user-repository.ts';
import { accountGone } from './account-gone.ts';

/** Replaces the caller's API key; the old one is refused from this moment (no key cache). */
export async function rotateApiKey(deps: { db: Db }, account: Account): Promise<{ api_key: string }> {
  const apiKey = await userRepository(deps.db).rotateApiKey(account.id);
  if (!apiKey) throw accountGone();
  return { api_key: apiKey };
}
