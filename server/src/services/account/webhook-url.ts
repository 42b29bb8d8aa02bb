/**
 * @module The webhook URL rule (spec §5), shared by the account setting and any call that
 * takes a per-request webhook_url.
 */
import { ApiError } from '../../errors.ts';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export const WEBHOOK_SCHEME_MESSAGE = 'Webhook must start with http:// or https://';
export const WEBHOOK_INVALID_MESSAGE = 'Enter a valid webhook URL or leave blank to remove the webhook URL';

/**
 * Normalises a webhook URL as entered: trimmed; blank, whitespace-only, null or omitted
 * means "no webhook" (null). Otherwise it must start with http:// or https://
 * (case-insensitive) and parse as a URL with a host, else a 400 ApiError with the spec's message.
 * The value is stored as entered (trimmed), not re-serialised, so the user sees what they typed.
 */
export function normalizeWebhookUrl(input: string | null | undefined): string | null {
  const url = input?.trim() ?? '';
  if (!url) return null;
  if (url.length > MAX_WEBHOOK_URL_LENGTH) {
    throw new ApiError('invalid_webhook_url', `Webhook URL must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  }
  if (!/^https?:\/\//i.test(url)) throw new ApiError('invalid_webhook_url', WEBHOOK_SCHEME_MESSAGE);
  // The URL parser would quietly percent-encode inner spaces and drop control characters.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this refuses
  if (/[\s\x00-\x1f\x7f]/.test(url) || !URL.canParse(url) || !new URL(url).hostname) {
    throw new ApiError('invalid_webhook_url', WEBHOOK_INVALID_MESSAGE);
  }
  return url;
}
