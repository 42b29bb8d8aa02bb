/**
 * @module The worker's own failures: `TransientError` (persisting or fetching media failed:
 * worth another attempt) and how any failure is written to the log.
 */
import { isEngineError } from '../engines/engine.ts';

/** Our own failure to persist or fetch media: worth another attempt. */
export class TransientError extends Error {}

export function errorText(error: unknown): string {
  if (isEngineError(error)) return `${error.code}: ${error.message}${error.detail ? ` (${error.detail})` : ''}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
