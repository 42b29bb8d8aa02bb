/**
 * @module Riding out a database restart: a call that failed because the database was
 * unreachable (`isConnectionError`) is made again after a growing delay, the others fail as
 * they are. For the writes a process must not lose when PostgreSQL restarts under it (a task's
 * settlement, a webhook attempt's outcome); the pool reconnects by itself meanwhile.
 */
import { isConnectionError } from './types.ts';

/** Delays between attempts: about 30 s in all, the usual length of a restart or a failover. */
const DEFAULT_DELAYS_MS = [250, 500, 1000, 2000, 3000, 5000, 5000, 5000, 5000, 5000];

export async function retryOnConnectionLoss<T>(
  call: () => Promise<T>,
  opts: { delaysMs?: readonly number[]; onRetry?: (error: unknown, attempt: number) => void } = {},
): Promise<T> {
  const delays = opts.delaysMs ?? DEFAULT_DELAYS_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!isConnectionError(error) || attempt >= delays.length) throw error;
      opts.onRetry?.(error, attempt + 1);
      await new Promise((resolve) => setTimeout(resolve, delays[attempt]));
    }
  }
}
