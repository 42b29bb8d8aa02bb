// Issue 15 §2: where the credits went. The one place task types map to the usage chart's tool
// families, and the pure shaping of the server's per-day numbers (public.credit_usage) into 30
// day columns with totals, so the chart, its table and their accessible names agree.
import { taskFamily } from '@aim/shared-kit/domain';

export const USAGE_FAMILIES = ['midjourney', 'flux', 'ideogram', 'faceswap', 'ai-photo', 'video', 'audio', 'other'] as const;
export type UsageFamily = (typeof USAGE_FAMILIES)[number];

export const FAMILY_LABEL: Record<UsageFamily, string> = {
  midjourney: 'Midjourney',
  flux: 'Flux',
  ideogram: 'Ideogram',
  faceswap: 'Faceswap',
  'ai-photo': 'AI Photos',
  video: 'Video',
  audio: 'Audio',
  other: 'Other',
};

/** Chakra color tokens of each family's segment (solid tones read on both themes). */
export const FAMILY_COLOR: Record<UsageFamily, string> = {
  midjourney: 'purple.solid',
  flux: 'blue.solid',
  ideogram: 'teal.solid',
  faceswap: 'orange.solid',
  'ai-photo': 'pink.solid',
  video: 'cyan.solid',
  audio: 'green.solid',
  other: 'gray.solid',
};

/** The chart's family of a task type: the task families of spec §3, videos and songs grouped. */
export function usageFamily(type: string): UsageFamily {
  const family = taskFamily(type);
  switch (family) {
    case 'luma':
    case 'kling':
    case 'runway':
      return 'video';
    case 'suno':
    case 'udio':
      return 'audio';
    case null:
      return 'other';
    default:
      return family;
  }
}

/** A row of public.credit_usage: credits spent on one UTC day on one task type (net of refunds). */
export type UsageRow = { day: string; task_type: string; credits: number };

export type UsageDay = { day: string; total: number; byFamily: Record<UsageFamily, number> };

export type Usage = {
  days: UsageDay[];
  totals: Record<UsageFamily, number>;
  total: number;
  /** The largest day total (the chart's scale), at least 1. */
  max: number;
  /** Families with credits in the period, in USAGE_FAMILIES order. */
  families: UsageFamily[];
};

export const USAGE_DAYS = 30;

const zero = (): Record<UsageFamily, number> => Object.fromEntries(USAGE_FAMILIES.map((f) => [f, 0])) as Record<UsageFamily, number>;

/** 'YYYY-MM-DD' of a UTC day `back` days before `today`. */
function dayBefore(today: string, back: number): string {
  const d = new Date(`${today}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - back);
  return d.toISOString().slice(0, 10);
}

/** Every UTC day of the period, oldest first (days without spending at 0), with totals. */
export function buildUsage(rows: readonly UsageRow[], today: string, days = USAGE_DAYS): Usage {
  const list: UsageDay[] = Array.from({ length: days }, (_, i) => ({ day: dayBefore(today, days - 1 - i), total: 0, byFamily: zero() }));
  const index = new Map(list.map((d, i) => [d.day, i]));
  const totals = zero();
  for (const row of rows) {
    const at = index.get(row.day.slice(0, 10));
    if (at === undefined) continue;
    const family = usageFamily(row.task_type);
    const credits = Number(row.credits);
    list[at].byFamily[family] += credits;
    list[at].total += credits;
    totals[family] += credits;
  }
  const total = USAGE_FAMILIES.reduce((sum, f) => sum + totals[f], 0);
  return {
    days: list,
    totals,
    total,
    max: Math.max(1, ...list.map((d) => d.total)),
    families: USAGE_FAMILIES.filter((f) => totals[f] !== 0),
  };
}

/** The chart's axis: `ticks` gridlines above 0 at a round step (1, 2 or 5 × 10ⁿ whole credits), the top at least `max`. */
export function axisTicks(max: number, ticks = 4): number[] {
  const rough = Math.max(1, max / ticks);
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power;
  return Array.from({ length: ticks + 1 }, (_, i) => i * Math.max(1, Math.round(step)));
}

/** 'Nov 24' for a 'YYYY-MM-DD' UTC day. */
export function formatDay(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

const credits = (n: number) => `${n.toLocaleString('en-US')} credit${n === 1 ? '' : 's'}`;

/** The accessible name of a day's bar: the date, its total, then each family's part. */
export function dayLabel(day: UsageDay): string {
  const parts = USAGE_FAMILIES.filter((f) => day.byFamily[f] !== 0).map((f) => `${FAMILY_LABEL[f]} ${day.byFamily[f].toLocaleString('en-US')}`);
  return `${formatDay(day.day)}: ${credits(day.total)}${parts.length ? ` (${parts.join(', ')})` : ''}`;
}
