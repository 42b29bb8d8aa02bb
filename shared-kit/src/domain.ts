// Business constants of spec §3, §4 and §9. Other packages import these instead of restating them.

/**
 * Plan 'zero' means no subscription and is shown as 'free'. Plans, prices, top-up amounts, auto
 * top-up limits and the trial are not here: the server's catalog is their one source, read by
 * the billing screens from GET /billing/config.
 */
export const NO_PLAN = 'zero';

export function planLabel(plan: string | null | undefined): string {
  return !plan || plan === NO_PLAN ? 'free' : plan;
}

export const SCALE_SLIDER = { min: 0.5, max: 4, step: 0.01 } as const;

/** Slider up to 1 gives scale1, up to 2 scale2, above 2 scale3 (their prices come from the catalog). */
export function scalePlanForSlider(value: number): 'scale1' | 'scale2' | 'scale3' {
  if (value <= 1) return 'scale1';
  if (value <= 2) return 'scale2';
  return 'scale3';
}

/** Images per day shown for the Scale slider: 1000 × value, at least 500. */
export function scaleImagesDaily(value: number): number {
  return Math.max(500, Math.round(1000 * value));
}

/** Failed auto top-up payments in a row after which the server turns auto top-up off. */
export const AUTO_TOP_UP_MAX_FAILURES = 3;

/**
 * Task statuses as rows carry them (spec §4). Terminal success is `finished` (what the API writes
 * and APIFRAME v1 clients wait for); `success` is the same outcome as rows written before
 * v1 compatibility say it, read everywhere as finished (`normalizeTaskStatus`).
 */
export const TASK_STATUSES = ['staged', 'pending', 'processing', 'queued', 'submitted', 'starting', 'running', 'success', 'finished', 'failed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const TERMINAL_STATUSES: readonly TaskStatus[] = ['success', 'finished', 'failed'];
export const LOG_STATUS_FILTER = ['all', 'staged', 'pending', 'processing', 'finished', 'failed'] as const;

export function isTerminalStatus(status: string): boolean {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}

/** A row's status as the dashboard shows and reasons about it: the older `success` reads as `finished`. */
export function normalizeTaskStatus(status: string): string {
  return status === 'success' ? 'finished' : status;
}

/** A task row (or any object with a status) with its status normalized; the same object when nothing changes. */
export function withNormalizedStatus<T extends { status?: unknown }>(row: T): T {
  return typeof row.status === 'string' && row.status !== normalizeTaskStatus(row.status) ? { ...row, status: normalizeTaskStatus(row.status) } : row;
}

export const TASK_FAMILIES = ['midjourney', 'ai-photo', 'ideogram', 'suno', 'udio', 'flux', 'luma', 'kling', 'runway', 'faceswap'] as const;
export type TaskFamily = (typeof TASK_FAMILIES)[number];

const MIDJOURNEY_TYPES = [
  'imagine',
  'reroll',
  'blend',
  'inpaint',
  'variation-1',
  'variation-2',
  'variation-3',
  'variation-4',
  'variation-strong',
  'variation-subtle',
  'pan-up',
  'pan-down',
  'pan-left',
  'pan-right',
  'upscale#1',
  'upscale#2',
  'upscale#3',
  'upscale#4',
  'upscale-creative',
  'upscale-subtle',
  'upscale-2x',
  'upscale-4x',
  'describe',
  'seed',
  'shorten',
];

const FAMILY_OF_TYPE: Record<string, TaskFamily> = {
  ...Object.fromEntries(MIDJOURNEY_TYPES.map((t) => [t, 'midjourney'])),
  faceswap: 'faceswap',
  'ai-photo-upload': 'ai-photo',
  'ai-photo-train': 'ai-photo',
  'ai-photo-generate': 'ai-photo',
  'ideogram-imagine': 'ideogram',
  'ideogram-remix': 'ideogram',
  'ideogram-upscale': 'ideogram',
  'ideogram-describe': 'ideogram',
  'flux-imagine': 'flux',
  luma: 'luma',
  'luma-ext': 'luma',
  runway: 'runway',
  'kling-video': 'kling',
  // issue 13's video calls beyond spec §3's list: Kling's try-on (a picture) and Midjourney's video actions
  'kling-tryon': 'kling',
  'imagine-video': 'midjourney',
  'imagine-video-extend': 'midjourney',
  suno: 'suno',
  'suno-ext': 'suno',
  'suno-lyrics': 'suno',
  'suno-upload': 'suno',
  udio: 'udio',
};

/** All task types of spec §3; outpaint-* is a family of types, represented by its prefix. */
export const TASK_TYPES: readonly string[] = [...Object.keys(FAMILY_OF_TYPE), 'outpaint-*'];

export function taskFamily(type: string): TaskFamily | null {
  if (type.startsWith('outpaint-')) return 'midjourney';
  return FAMILY_OF_TYPE[type] ?? null;
}

/**
 * The task types of some families, as exact types plus prefixes for the open-ended ones
 * (outpaint-* → 'outpaint-'); `keep` narrows them further (it sees 'outpaint-*' as written).
 */
export function typesOfFamilies(families: readonly TaskFamily[], keep: (type: string) => boolean = () => true): { types: string[]; prefixes: string[] } {
  const shown = TASK_TYPES.filter((t) => {
    const family = taskFamily(t.endsWith('*') ? t.slice(0, -1) : t);
    return family !== null && families.includes(family) && keep(t);
  });
  return { types: shown.filter((t) => !t.endsWith('*')), prefixes: shown.filter((t) => t.endsWith('*')).map((t) => t.slice(0, -1)) };
}

export const LOG_TYPE_FILTER = ['all', 'midjourney', 'ai-photos', 'ideogram', 'faceswap', 'suno', 'udio', 'flux', 'luma', 'kling', 'runway'] as const;

export const PAGE_SIZES = { images: 25, videos: 20, audios: 20 } as const;
export const NEXT_PAGE_DELAY_MS = 1000;
export const MAX_SKELETONS = 10;
export const LOG_PAGE_SIZES = [10, 20, 50, 100, 200, 500] as const;
export const DEFAULT_LOG_PAGE_SIZE = 20;

export const AI_PHOTO = {
  minImages: 10,
  maxImages: 30,
  generatedImages: 4,
  minPixels: 512 * 512,
  triggerWord: { min: 6, max: 12 },
} as const;
export const FACESWAP_MAX_BYTES = 3 * 1024 * 1024;
export const ACCEPTED_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
export const SEED_FETCH_DELAY_MS = 2000;
export const CALLBACK_RELOAD_MS = 2000;

export const SAMPLE_LANGUAGES = ['nodejs', 'python', 'php', 'curl'] as const;
