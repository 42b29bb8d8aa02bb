import type { Db } from '@aim/supabase/db';
import { taskRepository } from '../../repositories/task-repository.ts';
import { userRepository, type Account } from '../../repositories/user-repository.ts';
import { accountGone } from './account-gone.ts';

export interface AccountInfo {
  email: string;
  /** The balance now. */
  credits: number;
  /** Pictures the account's finished generations delivered, live and archived (see `countGeneratedImages`). */
  total_images: number;
  /** The plan id (spec §3), `zero` without a subscription. */
  plan: string;
}

/** GET /account (APIFRAME v1): who the key belongs to, the balance, the plan and how many images it made. */
export async function getAccountInfo(deps: { db: Db }, account: Account): Promise<AccountInfo> {
  const row = await userRepository(deps.db).findAccountInfo(account.id);
  if (!row) throw accountGone();
  const totalImages = await taskRepository(deps.db).countGeneratedImages(account.id);
  return { email: row.email, credits: row.credits, total_images: totalImages, plan: row.plan };
}
