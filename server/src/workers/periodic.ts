/**
 * @module A job run every interval in the background (the sweeps): never two runs at once, the
 * first one interval after the start, errors reported and the schedule kept, and a stop that
 * waits for a run in progress. The timer does not keep the process alive.
 */

export interface Periodic {
  start(): void;
  /** Stops and waits for a run in progress. */
  stop(): Promise<void>;
}

/**
 * @example
 * const sweep = periodic(() => finishAbandonedAttempts(billing), { intervalMs: 60_000, onError: (e) => log.error('sweep failed', { error: String(e) }) })
 * sweep.start()
 */
export function periodic(run: () => Promise<unknown>, options: { intervalMs: number; onError: (error: unknown) => void }): Periodic {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = true;

  function schedule() {
    timer = setTimeout(round, options.intervalMs);
    timer.unref();
  }

  function round() {
    running = run()
      .catch(options.onError)
      .finally(() => {
        running = undefined;
        if (!stopped) schedule();
      });
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      schedule();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
