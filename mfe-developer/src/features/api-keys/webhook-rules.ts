// The webhook card's signing secret and the delivery console: what the server answers, the texts
// and how values are shown.
import { formatUtcDateTime } from '@aim/shared-kit/format';
import type { ApiSchema } from '@aim/shared-kit/api';

/** GET /auth/webhook-signing-secret and the rotation's answer. */
export type SigningSecret = ApiSchema<'WebhookSigningSecret'>;

/** The task events an account webhook can be limited to (GET/POST /auth/webhook-events), in the server's order. */
export const WEBHOOK_EVENT_OPTIONS = [
  { name: 'progress', label: 'Progress' },
  { name: 'completed', label: 'Completed' },
  { name: 'failed', label: 'Failed' },
] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENT_OPTIONS)[number]['name'];

/** The filter as stored: every event ticked is null (every event, the default), else the ticked ones in order. */
export function toWebhookEventsSetting(checked: readonly WebhookEventName[]): WebhookEventName[] | null {
  const names = WEBHOOK_EVENT_OPTIONS.map((o) => o.name).filter((n) => checked.includes(n));
  return names.length === WEBHOOK_EVENT_OPTIONS.length ? null : names;
}

/** The saved filter for people: "all events", "no events" or the labels. */
export function describeWebhookEvents(events: readonly WebhookEventName[] | null): string {
  if (events === null) return 'all events (progress, completed, failed)';
  if (events.length === 0) return 'no events';
  return WEBHOOK_EVENT_OPTIONS.filter((o) => events.includes(o.name))
    .map((o) => o.label.toLowerCase())
    .join(', ');
}

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'refused', 'superseded'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export type StatusFilter = DeliveryStatus | 'all';

/** GET /auth/webhook-deliveries: one delivery with its attempts, as the server answers it. */
export type Delivery = ApiSchema<'WebhookDeliveries'>['deliveries'][number];

/**
 * GET /auth/webhook-endpoints/paused: a webhook URL the circuit breaker paused after failing
 * repeatedly; its pending deliveries wait (no attempt counted) until `paused_until` or Resume.
 */
export type PausedEndpoint = ApiSchema<'WebhookPausedEndpoints'>['paused_endpoints'][number];

/** "Paused after 5 failures in a row; resumes at 2026-11-28 06:01:00 UTC." */
export function describePause(e: PausedEndpoint): string {
  return `Paused after ${e.consecutive_failures} failures in a row; resumes at ${formatUtc(e.paused_until)}.`;
}

export const WEBHOOK_TEXTS = {
  secretCopied: 'Signing secret copied to clipboard',
  secretRotated: 'New signing secret generated',
  rotateSecretFailed: 'Failed to rotate signing secret',
  eventsSaved: 'Webhook events updated',
  eventsFailed: 'Failed to update webhook events',
  rotateSecretConfirm: 'Rotate your signing secret?',
  secretLoadFailed: 'The signing secret could not be loaded.',
  deliveriesLoadFailed: 'Deliveries could not be loaded.',
  noDeliveries: 'No deliveries yet.',
  noDeliveriesOfStatus: 'No deliveries with this status.',
  resent: 'Delivery queued to be sent again',
  resendFailed: 'Failed to resend delivery',
  testSent: 'Test event queued',
  testFailed: 'Failed to send test event',
  resumed: 'Deliveries to this URL resumed',
  resumeFailed: 'Failed to resume deliveries',
} as const;

export const STATUS_COLOR: Record<DeliveryStatus, string> = {
  pending: 'orange',
  delivered: 'green',
  failed: 'red',
  refused: 'red',
  superseded: 'gray',
};

/** The secret as the card shows it unless revealed: the whsec_ prefix and the last 4 characters. */
export function maskSecret(secret: string, revealed: boolean): string {
  if (revealed) return secret;
  const prefix = secret.startsWith('whsec_') ? 'whsec_' : '';
  const rest = secret.slice(prefix.length);
  if (rest.length <= 4) return `${prefix}${'•'.repeat(rest.length)}`;
  return `${prefix}${'•'.repeat(Math.min(rest.length - 4, 24))}${rest.slice(-4)}`;
}

/** "2026-11-24 07:31:02 UTC": the same on every screen and in tests. */
export function formatUtc(iso: string | null): string {
  if (!iso) return '–';
  return formatUtcDateTime(iso) ?? '–';
}

export function formatLatency(ms: number | null): string {
  return ms === null ? '–' : `${ms} ms`;
}

/** The last answer: the status code, or what went wrong when no HTTP answer came. */
export function describeLastResult(d: Pick<Delivery, 'last_status_code' | 'last_error' | 'attempt_count'>): string {
  if (d.last_status_code !== null) return String(d.last_status_code);
  if (d.attempt_count === 0) return '–';
  return d.last_error ? 'No answer' : '–';
}

/** GET /auth/webhook-deliveries's query for a filter: the newest 50, of one status or all. */
export function deliveriesQuery(filter: StatusFilter): { limit: number; status?: DeliveryStatus } {
  return filter === 'all' ? { limit: 50 } : { limit: 50, status: filter };
}
