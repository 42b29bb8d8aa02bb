/**
 * @module What lets a Db close gracefully: it counts the calls in flight, and its close waits
 * until none is left for a whole turn of the event loop, since handlers run when a call
 * resolves may start another one (a task event writing its webhook row), before ending the
 * connections under them.
 */
export interface Drain {
  /** Runs `call`, counted as in flight until it settles. */
  track<T>(call: () => Promise<T>): Promise<T>;
  /** Resolves once nothing has been in flight for a turn of the event loop, or after `ms` (then `onTimeout`). */
  settle(ms: number, onTimeout: (inFlight: number) => void): Promise<void>;
}

export function createDrain(): Drain {
  let inFlight = 0;
  let drained: (() => void) | undefined;
  return {
    async track(call) {
      inFlight++;
      try {
        return await call();
      } finally {
        inFlight--;
        if (inFlight === 0) drained?.();
      }
    },
    async settle(ms, onTimeout) {
      const deadline = Date.now() + ms;
      while (Date.now() < deadline) {
        if (inFlight > 0) {
          await new Promise<void>((resolve) => {
            drained = resolve;
            setTimeout(resolve, Math.max(0, deadline - Date.now())).unref();
          });
          drained = undefined;
          continue;
        }
        await new Promise((resolve) => setImmediate(resolve));
        await new Promise((resolve) => setTimeout(resolve, 10));
        if (inFlight === 0) return;
      }
      onTimeout(inFlight);
    },
  };
}
