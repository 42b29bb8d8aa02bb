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
