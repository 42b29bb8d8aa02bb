import type { Db } from '@aim/supabase/db';
import { userRepository, type Account } from '../../repositories/user-repository.ts';
import { accountGone } from './account-gone.ts';
import { normalizeWebhookUrl } from './webhook-url.ts';

/** Sets (or, when blank or omitted, removes) the caller's integration webhook URL. */
export async function updateWebhookUrl(
  deps: { db: Db },
  account: Account,
  url: string | null | undefined,
): Promise<{ integration_webhook_url: string | null }> {
  const row = await userRepository(deps.db).setWebhookUrl(account.id, normalizeWebhookUrl(url));
  if (!row) throw accountGone();
  return row;
}
