/**
 * @module What most submits take besides their own fields: the per-task webhook
 * (`webhook_url`, `webhook_secret`, v1), normalised the way the account's webhook URL is.
 */
import { normalizeWebhookUrl } from '../account/webhook-url.ts';

export interface WebhookInput {
  webhook_url?: string | null;
  webhook_secret?: string | null;
}

/** The task's webhook: the URL checked and trimmed (400 when malformed), the secret trimmed; null when absent. */
export function webhookOf(input: WebhookInput): { url: string | null; secret: string | null } {
  return { url: normalizeWebhookUrl(input.webhook_url), secret: input.webhook_secret?.trim() || null };
}
