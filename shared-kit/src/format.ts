/** Spec §2: the email's local part, cut at the first '.', '_', '-' or '+', at most 11 characters. */
export function shortName(email: string | null | undefined): string {
  const local = (email ?? '').split('@')[0] ?? '';
  return local.split(/[._+-]/)[0]!.slice(0, 11);
}

/** Upper-case first letter of the email, for the avatar. */
export function userInitial(email: string | null | undefined): string {
  return (email ?? '').trim().charAt(0).toUpperCase();
}

/** First 4 and last 4 characters visible; shorter keys are masked whole so nothing leaks. */
export function maskApiKey(key: string | null | undefined, maskChar = '•'): string {
  const value = key ?? '';
  if (value.length <= 8) return maskChar.repeat(value.length);
  return value.slice(0, 4) + maskChar.repeat(value.length - 8) + value.slice(-4);
}

const UNITS: readonly [name: string, seconds: number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/** Spec §9: 'just now' under 10 seconds, then seconds up to years; 'in the future' for negative. */
export function relativeTime(date: Date | string | number, now: Date | number = Date.now()): string {
  const seconds = Math.floor((+new Date(now) - +new Date(date)) / 1000);
  if (Number.isNaN(seconds)) return '';
  if (seconds < 0) return 'in the future';
  if (seconds < 10) return 'just now';
  for (const [name, size] of UNITS) {
    const count = Math.floor(seconds / size);
    if (count >= 1) return `${count} ${name}${count === 1 ? '' : 's'} ago`;
  }
  return 'just now';
}

export function formatCredits(credits: number | null | undefined): string {
  return new Intl.NumberFormat('en-US').format(credits ?? 0);
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/** The date, or null when `value` does not name one (each screen keeps its own fallback text). */
function validDate(value: Date | string | number): Date | null {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * '2026-11-24 07:05:09 UTC' (or '2026-11-24 07:05 UTC' to the minute): how every screen shows a
 * time unless it offers local time. Null for an invalid date.
 */
export function formatUtcDateTime(value: Date | string | number, precision: 'second' | 'minute' = 'second'): string | null {
  const d = validDate(value);
  if (!d) return null;
  const time = `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}${precision === 'second' ? `:${pad2(d.getUTCSeconds())}` : ''}`;
  return `${formatUtcDate(d)} ${time} UTC`;
}

/** The UTC day as 'YYYY-MM-DD' (a date input's value). */
export function formatUtcDate(value: Date | string | number): string | null {
  const d = validDate(value);
  return d && `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`;
}

/** '2026-11-22 15:05:09' in the browser's time zone (Task Logs' Show Local Time). Null for an invalid date. */
export function formatLocalDateTime(value: Date | string | number): string | null {
  const d = validDate(value);
  if (!d) return null;
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
}
