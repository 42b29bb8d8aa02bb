/**
 * @module A minimal structured logger: one line per event, `msg key=value ...`.
 * Callers never pass secrets (API keys, tokens, request bodies) as fields.
 */

export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
  info(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

function formatValue(value: string | number | boolean | null): string {
  const s = String(value);
  return /^[^\s"=]+$/.test(s) ? s : JSON.stringify(s);
}

/** Formats `msg key=value ...`, quoting values with spaces, quotes or `=`. */
export function formatLogLine(msg: string, fields: LogFields = {}): string {
  const parts = [msg];
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) parts.push(`${key}=${formatValue(value)}`);
  }
  return parts.join(' ');
}

/** Logs to stdout (info) and stderr (error), prefixed with `[api]`. */
export function consoleLogger(): Logger {
  return {
    info: (msg, fields) => console.log(`[api] ${formatLogLine(msg, fields)}`),
    error: (msg, fields) => console.error(`[api] ${formatLogLine(msg, fields)}`),
  };
}
