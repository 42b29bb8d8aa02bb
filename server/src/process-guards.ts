/**
 * @module The last line of defence of a process (the launcher, a worker): what happens to an
 * error no code caught. README.md "Operating it" states the policy:
 * - an uncaught exception is fatal: one JSON line, then exit 1 for the supervisor to restart
 *   the process. A throw that escaped to the event loop may have left a pool, a socket or a
 *   counter half-updated, and Node does not promise that resuming is safe;
 * - an unhandled rejection is logged and the process keeps serving: requests and jobs settle
 *   their own errors (the API's error handler, the job runner), so one that reaches here is a
 *   fire-and-forget step (a notification, a timer's round) whose failure leaves nothing
 *   half-done, and dying for it would drop every request in flight.
 * Malformed requests never get this far: each listener answers them 400 (guardHttpServer).
 */
import type { Logger } from './logger.ts';

type ProcessLike = Pick<NodeJS.Process, 'on'> & { exit(code: number): void };

const describe = (error: unknown) =>
  error instanceof Error ? { error: `${error.name}: ${error.message}`, stack: error.stack ?? null } : { error: String(error), stack: null };

/** Installs the handlers on `proc` (default: this process). */
export function installProcessGuards(log: Logger, proc: ProcessLike = process): void {
  proc.on('uncaughtException', (error: unknown, origin: string) => {
    log.error('uncaught exception: exiting', { ...describe(error), origin, fatal: true });
    proc.exit(1);
  });
  proc.on('unhandledRejection', (reason: unknown) => {
    log.error('unhandled rejection: still serving', { ...describe(reason), fatal: false });
  });
}
