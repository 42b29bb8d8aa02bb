/**
 * @module The periodic idempotency-key sweep: keys first used more than 24 hours ago (whose
 * answers are no longer replayed) are deleted from public.idempotency_keys, in batches so no
 * statement holds many row locks. Every API instance runs one; they share the work safely (a
 * row is deleted once). A key past 24 hours that the sweep has not reached yet is already
 * treated as new by the middleware (public.idempotency_reserve), so the sweep only keeps the
 * table small.
 */
import type { Db } from '@aim/supabase/db';
import type { Logger } from '../logger.ts';
import { idempotencyRepository } from '../repositories/idempotency-repository.ts';
import { periodic } from './periodic.ts';

const DEFAULT_INTERVAL_MS = 10 * 60_000;
const BATCH = 5_000;

interface IdempotencySweeper {
  start(): void;
  /** Stops and waits for a sweep in progress. */
  stop(): Promise<void>;
  /** One sweep; answers how many keys were deleted. */
  sweep(): Promise<number>;
}

export function createIdempotencySweeper(options: { db: Db; log: Logger; intervalMs?: number }): IdempotencySweeper {
  const repo = idempotencyRepository(options.db);
  async function sweep(): Promise<number> {
    let removed = 0;
    for (let n = await repo.sweep(BATCH); ; n = await repo.sweep(BATCH)) {
      removed += n;
      if (n < BATCH) break;
    }
    if (removed > 0) options.log.info('expired idempotency keys removed', { count: removed });
    return removed;
  }
  const timer = periodic(sweep, {
    intervalMs: options.intervalMs ?? DEFAULT_INTERVAL_MS,
    onError: (error) => options.log.error('idempotency key sweep failed', { error: error instanceof Error ? error.message : String(error) }),
  });
  return { start: timer.start, stop: timer.stop, sweep };
}
