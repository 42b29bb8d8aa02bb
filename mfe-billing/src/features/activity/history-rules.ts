// The credit history's words and the keyset cursor of its pages. Pure, tested with tables.

import { formatUtcDateTime } from '@aim/shared-kit/format';

/** What a ledger movement is (public.credit_history.kind). */
const KIND_LABEL: Record<string, string> = {
  plan: 'Plan credits',
  topup: 'Top-up',
  auto_topup: 'Auto top-up',
  trial: 'Trial',
  hold: 'Task hold',
  refund: 'Refund',
  adjustment: 'Adjustment',
};

export const kindLabel = (kind: string) => KIND_LABEL[kind] ?? kind;

export const HISTORY_PAGE_SIZE = 25;

export const ACTIVITY_TEXTS = {
  usageFailed: 'Your usage could not be loaded.',
  usageEmpty: 'No credits spent in the last 30 days.',
  historyFailed: 'Your credit history could not be loaded.',
  historyEmpty: 'No credit movements yet.',
  exportFailed: 'The export could not be started. Please try again.',
} as const;

/** '+250' for credits in, '-4' for credits out. */
export function formatDelta(delta: number): string {
  return delta > 0 ? `+${delta.toLocaleString('en-US')}` : delta.toLocaleString('en-US');
}

/** '2026-11-24 07:05:09 UTC', as Task Logs shows times by default. */
export function formatWhen(iso: string): string {
  return formatUtcDateTime(iso) ?? iso;
}

/** Where a page ends: created_at exactly as the server sent it (microseconds; never through Date) and the id. */
export type HistoryCursor = { created_at: string; id: number };

/**
 * The `or=(…)` half of "older than `last`" (the other half is created_at <= last.created_at),
 * the galleries' keyset: the (user_id, created_at desc, id desc) index answers it flat at any depth,
 * and the id keeps movements of one transaction (same created_at) apart.
 */
export function olderThan(last: HistoryCursor): string {
  return `created_at.lt."${last.created_at.replace(/(["\\])/g, '\\$1')}",id.lt.${Math.trunc(last.id)}`;
}
