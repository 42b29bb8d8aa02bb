/**
 * @module Webhook event filters (issue 23): which task events a webhook is sent. A filter is a
 * list of short event names (`progress`, `completed`, `failed`; the `task.`-prefixed names of
 * the `x-webhook-event` header are accepted too and stored short); null means every event, the
 * behaviour without a filter. A request's own `webhook_events` replaces the account's filter
 * for that task (they do not combine), whichever URL its webhooks go to. `webhook.test` is
 * never filtered. Events left out are dropped when they would be enqueued: nothing is stored
 * or sent for them.
 */

export const WEBHOOK_EVENT_NAMES = ['progress', 'completed', 'failed'] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENT_NAMES)[number];

/** Every spelling a filter accepts: the short names and the delivered event types. */
export const WEBHOOK_EVENT_INPUTS = [...WEBHOOK_EVENT_NAMES, ...WEBHOOK_EVENT_NAMES.map((n) => `task.${n}` as const)] as const;
export type WebhookEventInput = (typeof WEBHOOK_EVENT_INPUTS)[number];

export const WEBHOOK_EVENTS_MESSAGE = `Must be one of ${WEBHOOK_EVENT_NAMES.join(', ')}`;

/**
 * The stored form of a filter as given: short names, each once, in the canonical order; null
 * (or undefined) stays null, every event.
 *
 * @example
 * normalizeWebhookEvents(['task.failed', 'completed', 'failed']) // ['completed', 'failed']
 */
export function normalizeWebhookEvents(input: readonly WebhookEventInput[] | null | undefined): WebhookEventName[] | null {
  if (input == null) return null;
  const wanted = new Set(input.map((e) => e.replace(/^task\./, '')));
  return WEBHOOK_EVENT_NAMES.filter((n) => wanted.has(n));
}

/**
 * Whether a delivery of `event` (`task.progress`, `task.completed`, `task.failed`, `webhook.test`)
 * passes the task's filter: the request's own when it gave one, else the account's, else every event.
 */
export function isEventWanted(event: string, filters: { request?: readonly string[] | null; account?: readonly string[] | null }): boolean {
  if (!event.startsWith('task.')) return true;
  const filter = filters.request ?? filters.account ?? null;
  return filter === null || filter.includes(event.slice('task.'.length));
}
