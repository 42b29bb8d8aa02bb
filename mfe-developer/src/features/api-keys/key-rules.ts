import { ApiError } from '@aim/shared-kit/api';
import { maskApiKey } from '@aim/shared-kit/format';

/** Spec §2 and §8: the texts the API Keys page shows. */
export const TEXTS = {
  keyCopied: 'API key copied to clipboard',
  keyRotated: 'New API key generated',
  webhookUpdated: 'Webhook URL updated',
  sampleCopied: 'Sample code copied',
  rotateFailed: 'Failed to rotate API key',
  webhookFailed: 'Failed to update webhook URL',
  copyFailed: 'Failed to copy',
  rotateConfirm: 'Rotate your API key?',
  /** The browser alert of spec §8 for a failed key revoke or webhook update with no server reason. */
  unexpected: 'An unexpected error occured, please refresh and try again.',
} as const;

/** The key as the page shows it: first 4 and last 4 characters unless the user revealed it. */
export function displayKey(key: string, revealed: boolean): string {
  return revealed ? key : maskApiKey(key);
}

/**
 * A value this page just changed on the server (new key, new webhook URL) wins over the user row
 * until the row catches up: a row value from before our changes is stale, any other value is newer
 * than ours (e.g. a rotation in another tab).
 */
export type LocalChange<T> = { value: T; stale: readonly T[] };

export function preferLocal<T>(server: T, local: LocalChange<T> | null): T {
  return local?.stale.includes(server) ? local.value : server;
}

/** Records `value` as the newest change; what the row or an earlier change held becomes stale. */
export function recordChange<T>(local: LocalChange<T> | null, server: T, value: T): LocalChange<T> {
  const stale = [...(local ? [...local.stale, local.value] : []), server].filter((v) => v !== value);
  return { value, stale };
}

/** POST /auth/updateWebhookURL's body: the trimmed URL, or none at all to remove it (spec §7). */
export function webhookRequestBody(input: string): { url?: string } {
  const url = input.trim();
  return url ? { url } : {};
}

/**
 * How a failed account call is reported: a 4xx carries the server's own reason (shown with the
 * toast); anything else (network, 5xx) is unexpected and also gets spec §8's browser alert.
 */
export function describeFailure(error: unknown): { reason: string | null; unexpected: boolean } {
  if (error instanceof ApiError && error.status >= 400 && error.status < 500) return { reason: error.message, unexpected: false };
  return { reason: null, unexpected: true };
}
