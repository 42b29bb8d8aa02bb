import type { Db } from '@aim/supabase/db';
import { userRepository, type Account } from '../../repositories/user-repository.ts';
import { accountGone } from './account-gone.ts';

/**
 * Records who referred the caller. The first reference wins: a later call never overwrites
 * it (a referral must not be re-attributable by the referred user).
 */
export async function recordReference(deps: { db: Db }, account: Account, reference: string): Promise<{ recorded: boolean; referral_id: string | null }> {
  const row = await userRepository(deps.db).setReferralIdOnce(account.id, reference);
  if (!row) throw accountGone();
  return row;
}
