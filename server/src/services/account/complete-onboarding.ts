import type { Db } from '@aim/supabase/db';
import { userRepository, type Account } from '../../repositories/user-repository.ts';
import { accountGone } from './account-gone.ts';

/** Marks the caller as onboarded (idempotent); the landing route follows this flag (spec §6). */
export async function completeOnboarding(deps: { db: Db }, account: Account): Promise<{ onboarded: boolean }> {
  const row = await userRepository(deps.db).setOnboarded(account.id);
  if (!row) throw accountGone();
  return row;
}
