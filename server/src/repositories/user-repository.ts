/**
 * @module public.mdusers for the API server. The only SQL about users; parameters only.
 * The server connects as the table owner, so RLS does not apply: every statement here
 * is scoped by the caller's id explicitly.
 */
import type { Queryable } from '@aim/supabase/db';
import { API_KEY_SCOPES, type ApiKeyScope } from './api-key-repository.ts';

/** The authenticated caller: who they are and what the credential may do, never the key itself. */
export interface Account {
  id: string;
  email: string;
  /** The named key (public.api_keys) the request came with; null for the primary key and the dashboard session. */
  keyId: string | null;
  /** What the credential may do: every scope for the primary key and the session, a named key's own. */
  scopes: readonly ApiKeyScope[];
}

/** The account as the primary key (mdusers.api_key) or a dashboard session authenticates it: every scope. */
export function primaryAccount(user: { id: string; email: string }): Account {
  return { id: user.id, email: user.email, keyId: null, scopes: API_KEY_SCOPES };
}

export function userRepository(q: Queryable) {
  return {
    /** The account whose primary key is `apiKey` (named keys: apiKeyRepository.findForAuth). */
    async findByApiKey(apiKey: string): Promise<Account | undefined> {
      const { rows } = await q.query<{ id: string; email: string }>('select id, email from public.mdusers where api_key = $1', [apiKey]);
      return rows[0] && primaryAccount(rows[0]);
    },

    async findAccountInfo(userId: string): Promise<{ email: string; credits: number; plan: string } | undefined> {
      const { rows } = await q.query<{ email: string; credits: number; plan: string }>('select email, credits, plan from public.mdusers where id = $1', [
        userId,
      ]);
      return rows[0];
    },

    /** Replaces the key with a fresh one; the old key stops matching at commit. */
    async rotateApiKey(userId: string): Promise<string | undefined> {
      const { rows } = await q.query<{ api_key: string }>('update public.mdusers set api_key = public.new_api_key() where id = $1 returning api_key', [userId]);
      return rows[0]?.api_key;
    },

    async findWebhookUrl(userId: string): Promise<string | null> {
      const { rows } = await q.query<{ url: string | null }>('select integration_webhook_url as url from public.mdusers where id = $1', [userId]);
      return rows[0]?.url ?? null;
    },

    /** The account's webhook URL and event filter (null events: every event), for the webhook sender. */
    async findWebhookSettings(userId: string): Promise<{ url: string | null; events: string[] | null }> {
      const { rows } = await q.query<{ url: string | null; events: string[] | null }>(
        'select integration_webhook_url as url, webhook_events as events from public.mdusers where id = $1',
        [userId],
      );
      return rows[0] ?? { url: null, events: null };
    },

    /** Sets the account's webhook event filter (null: every event); undefined when the account is gone. */
    async setWebhookEvents(userId: string, events: readonly string[] | null): Promise<{ webhook_events: string[] | null } | undefined> {
      const { rows } = await q.query<{ webhook_events: string[] | null }>(
        'update public.mdusers set webhook_events = $2::text[] where id = $1 returning webhook_events',
        [userId, events ? [...events] : null],
      );
      return rows[0];
    },

    async setWebhookUrl(userId: string, url: string | null): Promise<{ integration_webhook_url: string | null } | undefined> {
      const { rows } = await q.query<{ integration_webhook_url: string | null }>(
        'update public.mdusers set integration_webhook_url = $2 where id = $1 returning integration_webhook_url',
        [userId, url],
      );
      return rows[0];
    },

    async setOnboarded(userId: string): Promise<{ onboarded: boolean } | undefined> {
      const { rows } = await q.query<{ onboarded: boolean }>('update public.mdusers set onboarded = true where id = $1 returning onboarded', [userId]);
      return rows[0];
    },

    /**
     * Sets referral_id only while it is still empty, in one statement, so two concurrent
     * calls cannot both record. Answers whether this call recorded it and the stored value.
     */
    async setReferralIdOnce(userId: string, referralId: string): Promise<{ recorded: boolean; referral_id: string | null } | undefined> {
      const { rows } = await q.query<{ recorded: boolean; referral_id: string | null }>(
        `with recorded as (
           update public.mdusers set referral_id = $2
            where id = $1 and referral_id is null
           returning referral_id
         )
         select (select count(*) from recorded) > 0 as recorded,
                coalesce((select referral_id from recorded), u.referral_id) as referral_id
           from public.mdusers u where u.id = $1`,
        [userId, referralId],
      );
      return rows[0];
    },
  };
}
