/**
 * @module Structured logs: one JSON object per line on stdout (pino), with `level`, `time`
 * (ISO 8601), `pid`, `role` (api or worker), the fields of the current log context (the
 * `request_id` of the API request being served, the `task_id` and `request_id` of the job
 * a worker runs) and the caller's fields. Callers never pass secrets (API keys, tokens,
 * request bodies) as fields; keys that name one are redacted all the same.
 * docs/operations/observability.md describes the format and how to follow a request id.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import pino, { type DestinationStream } from 'pino';

export type LogFields = Record<string, string | number | boolean | null | undefined>;

/** Which kind of process (or part of one: embedded mode runs a worker inside the API) wrote a line. */
export type LogRole = 'api' | 'worker';

/** What code that logs needs (tests and benchmarks pass their own). */
export interface Logger {
  info(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

/** The JSON-lines logger: also `warn`, and `child` loggers. */
export interface JsonLogger extends Logger {
  warn(msg: string, fields?: LogFields): void;
  /** A logger that adds `fields` to each of its lines; a `role` there replaces the role. */
  child(fields: LogFields & { role?: LogRole }): JsonLogger;
}

// ---- the log context -------------------------------------------------------------------

const context = new AsyncLocalStorage<LogFields>();

/**
 * Runs `fn` with `fields` (on top of the current context) added to every line logged while
 * it runs, however deep in its async work; `fn` receives the context object, which it may
 * fill in later (a field learnt after the start). Explicit fields of a line win.
 */
export function withLogContext<T>(fields: LogFields, fn: (store: LogFields) => T): T {
  const store = { ...context.getStore(), ...fields };
  return context.run(store, () => fn(store));
}

/** The request id of the current log context (the API request being served), or null. */
export function currentRequestId(): string | null {
  const id = context.getStore()?.request_id;
  return typeof id === 'string' ? id : null;
}

/**
 * `fn` run outside any log context: for timers and loops that start on behalf of one request
 * or job but then serve everything (a webhook dispatch round woken by one task's event).
 */
export function detachLogContext<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  return (...args) => context.exit(() => fn(...args));
}

// ---- the logger ------------------------------------------------------------------------

/** Field names that hold secrets; redacted should a caller ever pass one. */
const SECRET_KEYS = [
  'api_key',
  'apiKey',
  'authorization',
  'cookie',
  'password',
  'secret',
  'webhook_secret',
  'token',
  'access_token',
  'refresh_token',
  'client_secret',
];

let stdout: DestinationStream | undefined;

/** Every logger of the process shares one synchronous stdout stream: a line is out before a crash or process.exit. */
function stdoutStream(): DestinationStream {
  if (!stdout) stdout = pino.destination({ dest: 1, sync: true });
  return stdout;
}

function rootLogger(destination: DestinationStream | undefined) {
  return pino(
    {
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => ({ ...context.getStore() }),
      redact: { paths: SECRET_KEYS, censor: '[redacted]' },
    },
    destination ?? stdoutStream(),
  );
}

function wrap(root: pino.Logger, role: LogRole, bindings: LogFields): JsonLogger {
  const line = (level: 'info' | 'warn' | 'error') => (msg: string, fields?: LogFields) => root[level]({ role, ...bindings, ...fields }, msg);
  return {
    info: line('info'),
    warn: line('warn'),
    error: line('error'),
    child: ({ role: childRole, ...fields }) => wrap(root, childRole ?? role, { ...bindings, ...fields }),
  };
}

/**
 * A JSON-lines logger for a process of `role`, writing to stdout or to `destination`
 * (anything with `write(line)`: tests capture lines with it).
 *
 * @example
 * const log = createLogger({ role: 'worker' })
 * log.info('task finished', { task_id, ms: 1200 })
 * // {"level":"info","time":"2026-11-24T07:30:00.000Z","pid":42,"role":"worker","task_id":"…","ms":1200,"msg":"task finished"}
 */
export function createLogger(options: { role: LogRole; destination?: DestinationStream }): JsonLogger {
  return wrap(rootLogger(options.destination), options.role, {});
}

/** The stdout logger of a process of `role` (default api). */
export function consoleLogger(role: LogRole = 'api'): JsonLogger {
  return createLogger({ role });
}

function formatValue(value: string | number | boolean | null): string {
  const s = String(value);
  return /^[^\s"=]+$/.test(s) ? s : JSON.stringify(s);
}

/** Formats `msg key=value ...`, quoting values with spaces, quotes or `=` (tests' readable capture). */
export function formatLogLine(msg: string, fields: LogFields = {}): string {
  const parts = [msg];
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) parts.push(`${key}=${formatValue(value)}`);
  }
  return parts.join(' ');
}
