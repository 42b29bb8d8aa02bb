/**
 * @module What most submits take besides their own fields: the per-task webhook
 * (`webhook_url`, `webhook_secret`, v1), normalised the way the account's webhook URL is.
 */
import { normalizeWebhookEvents, type WebhookEventInput, type WebhookEventName } from '../../webhooks/webhook-events.ts';
import { normalizeWebhookUrl } from '../account/webhook-url.ts';

export interface WebhookInput {
  webhook_url?: string | null;
  webhook_secret?: string | null;
  /** The events this task's webhooks are sent (null or omitted: the account's filter). */
  webhook_events?: readonly WebhookEventInput[] | null;
}

/**
 * The task's webhook: the URL checked and trimmed (400 when malformed), the secret trimmed, the
 * event filter in its stored form; null when absent.
 */
export function webhookOf(input: WebhookInput): { url: string | null; secret: string | null; events: WebhookEventName[] | null } {
  return {
    url: normalizeWebhookUrl(input.webhook_url),
    secret: input.webhook_secret?.trim() || null,
    events: normalizeWebhookEvents(input.webhook_events),
  };
}
