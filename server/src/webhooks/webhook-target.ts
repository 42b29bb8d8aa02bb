/**
 * @module Where a task's webhooks go. The request's webhook_url wins over the account's
 * integration_webhook_url (the account URL is the default for calls that name none), as
 * midjourney-proxy's notifyHook falls back to its global hook. A webhook_secret given
 * with the request travels with whichever URL is used.
 */

export interface WebhookTarget {
  url: string;
  secret: string | null;
}

export function resolveWebhookTarget(input: { requestUrl?: string | null; requestSecret?: string | null; accountUrl?: string | null }): WebhookTarget | null {
  const url = input.requestUrl?.trim() || input.accountUrl?.trim();
  if (!url) return null;
  return { url, secret: input.requestSecret || null };
}
