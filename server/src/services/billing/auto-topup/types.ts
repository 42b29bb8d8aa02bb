/**
 * @module The types the auto top-up steps share (trigger.ts, charge-attempt.ts), kept here so
 * the steps import each other's functions only one way.
 */
import type { RefusalReason } from '../../../repositories/billing/open-charge.ts';

export type AutoTopUpOutcome =
  | { status: 'skipped'; reason: 'disabled' | 'above_threshold' | 'no_subscription' | 'in_progress' | 'backoff' | 'on_hold' }
  | { status: 'skipped'; reason: 'limit_reached' }
  | { status: 'refused'; reason: RefusalReason; message: string }
  | { status: 'disabled'; reason: string }
  | { status: 'succeeded' | 'processing'; intentId: string }
  | { status: 'failed'; intentId: string | null; code: string; message: string };

/** Where an attempt stands after a try to finish it: 'open' while its outcome is still unknown. */
export type AttemptProgress = 'open' | 'closed';
