/**
 * @module The account webhook's event filter (issue 23): read it, set it (null: every event).
 * The rules of a filter are in webhooks/webhook-events.ts.
 */
import type { Db } from '@aim/supabase/db';
import { userRepository, type Account } from '../../repositories/user-repository.ts';
import { normalizeWebhookEvents, type WebhookEventInput, type WebhookEventName } from '../../webhooks/webhook-events.ts';
import { accountGone } from './account-gone.ts';

export interface WebhookEventsSetting {
  /** The events the account webhook is sent; null: every event. */
  webhook_events: WebhookEventName[] | null;
}

export async function getWebhookEvents(deps: { db: Db }, account: Pick<Account, 'id'>): Promise<WebhookEventsSetting> {
  const { events } = await userRepository(deps.db).findWebhookSettings(account.id);
  return { webhook_events: events as WebhookEventName[] | null };
}

/** Sets the filter as given (short names, each once); null or omitted: every event again. */
export async function updateWebhookEvents(
  deps: { db: Db },
  account: Pick<Account, 'id'>,
  events: readonly WebhookEventInput[] | null | undefined,
): Promise<WebhookEventsSetting> {
  const row = await userRepository(deps.db).setWebhookEvents(account.id, normalizeWebhookEvents(events));
  if (!row) throw accountGone();
  return { webhook_events: row.webhook_events as WebhookEventName[] | null };
}
