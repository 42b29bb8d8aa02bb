// The Midjourney tool's rules (spec §2, §4, §5), kept free of React so they can be table-tested.
import { taskFamily } from '@aim/shared-kit/domain';
import { taskPhase } from '../tasks/task-rules.ts';

/** The fields of a task row (spec §3) the tool reads. */
export type MidjourneyTask = {
  id: string;
  type: string;
  status: string;
  percentage: number | null;
  prompt: string | null;
  image_url: string | null;
  image_urls: string[] | null;
  seed: string | number | null;
  favorite: boolean | null;
  /** How it ended: a failure's message; describe/shorten's prompts; the picture's size. */
  result: { message?: string | null; prompts?: unknown; width?: unknown; height?: unknown } | null;
  refund: number | null;
  parent_id?: string | null;
  /** What the task was asked (describe: the image_url it describes; blend: its image_urls). */
  input_data?: Record<string, unknown> | null;
};

// Spec texts: these must match exactly.
export const NOT_MIDJOURNEY_TASK = 'This task is not a Midjourney task!';
export const ERROR_DOWNLOADING_IMAGE = 'Error downloading image';

export const EMPTY_PROMPT_MESSAGE = 'Enter a prompt to imagine.';

/** The chips under the prompt box: the onboarding wizard's templates, so both screens agree. */
export const EXAMPLE_PROMPTS = ['A beautiful sunset over a serene lake', 'Modern luxury villa', 'Minimal gradient logo', 'Cyberpunk city at sunset'] as const;

/**
 * Spec §3 names the Midjourney types; variation-*, upscale-*, outpaint-* and pan-* are families
 * (Vary (Strong) is variation-strong), so any member of them is one too.
 */
export function isMidjourneyTask(type: string | null | undefined): boolean {
  return !!type && (taskFamily(type) === 'midjourney' || /^(variation|upscale|outpaint|pan)-./.test(type));
}

export type ResultLayout = 'grid' | 'single' | 'prompts' | 'none';

/**
 * Spec §4: a 4-image grid for imagine, reroll, blend, variation, outpaint and pan tasks, one
 * image for upscales. Inpaint (Vary Region) also answers four images. describe and shorten
 * answer prompts to pick from; a seed task only its seed.
 */
export function resultLayout(type: string): ResultLayout {
  if (type.startsWith('upscale')) return 'single';
  if (['imagine', 'reroll', 'blend', 'inpaint'].includes(type)) return 'grid';
  if (/^(variation|outpaint|pan)-/.test(type)) return 'grid';
  if (type === 'describe' || type === 'shorten') return 'prompts';
  return 'none';
}

/** The prompts a finished describe or shorten task answered (result.prompts), blanks dropped. */
export function promptChoices(task: Pick<MidjourneyTask, 'result'>): string[] {
  const prompts = task.result?.prompts;
  if (!Array.isArray(prompts)) return [];
  return prompts.filter((p): p is string => typeof p === 'string' && p.trim().length > 0).map((p) => p.trim());
}

/** The picture a describe task was asked about (input_data.image_url), when the row says. */
export function describedImage(task: Pick<MidjourneyTask, 'input_data'>): string | null {
  const url = task.input_data?.image_url;
  return typeof url === 'string' && url ? url : null;
}

/** The picture's size in pixels as the task recorded it (result.width/height), else null. */
export function recordedSize(task: Pick<MidjourneyTask, 'result'>): { width: number; height: number } | null {
  const { width, height } = task.result ?? {};
  if (typeof width !== 'number' || typeof height !== 'number' || !(width > 0) || !(height > 0)) return null;
  return { width: Math.round(width), height: Math.round(height) };
}

/** The pictures of a finished grid task: its four cells, or else the composed grid picture. */
export function gridImages(task: Pick<MidjourneyTask, 'image_url' | 'image_urls'>): { cells: string[]; composite: string | null } {
  const cells = (task.image_urls ?? []).filter((u) => typeof u === 'string' && u.length > 0);
  if (cells.length >= 4) return { cells: cells.slice(0, 4), composite: null };
  return { cells: [], composite: task.image_url ?? cells[0] ?? null };
}

/** The one picture of a single-image result (or the picture Download saves). */
export function primaryImage(task: Pick<MidjourneyTask, 'image_url' | 'image_urls'>): string | null {
  return task.image_url ?? task.image_urls?.find((u) => !!u) ?? null;
}

const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif' };

/** Download saves a file named from the task id, with the extension of what the server sent. */
export function downloadFileName(taskId: string, contentType: string | null | undefined): string {
  const ext = EXTENSIONS[(contentType ?? '').split(';')[0]!.trim().toLowerCase()] ?? 'png';
  return `${taskId}.${ext}`;
}

export function seedText(seed: string | number | null | undefined): string | null {
  if (seed === null || seed === undefined) return null;
  const text = String(seed).trim();
  return text ? text : null;
}

/** POST /pro/upscale `type`: Midjourney's upscalers, and the enlargements of an upscaled image. */
export type UpscaleType = 'subtle' | 'creative' | '2x' | '4x';
/** The upscalers a grid cell offers (spec §7 sends `type creative`; subtle is the other one). */
export type CellUpscaleType = 'subtle' | 'creative';
export type VaryType = 'strong' | 'subtle';
export type PanDirection = 'up' | 'down' | 'left' | 'right';
export type BlendDimension = 'square' | 'portrait' | 'landscape';

/** What Upscale image N sends when the user did not pick one: spec §7's `type creative`. */
export const DEFAULT_CELL_UPSCALE: CellUpscaleType = 'creative';

export const CELL_UPSCALES: readonly { type: CellUpscaleType; label: string }[] = [
  { type: 'subtle', label: 'Upscale (Subtle)' },
  { type: 'creative', label: 'Upscale (Creative)' },
];

/** Further upscales of an upscaled cell (upscale#N), Midjourney's Upscale (Subtle)/(Creative) and the enlargements. */
export const FURTHER_UPSCALES: readonly { type: UpscaleType; label: string }[] = [
  ...CELL_UPSCALES,
  { type: '2x', label: 'Upscale 2x' },
  { type: '4x', label: 'Upscale 4x' },
];

export const VARY_TYPES: readonly { type: VaryType; label: string }[] = [
  { type: 'strong', label: 'Vary (Strong)' },
  { type: 'subtle', label: 'Vary (Subtle)' },
];

export const PAN_DIRECTIONS: readonly PanDirection[] = ['up', 'left', 'right', 'down'];

/** Zoom Out's buttons; Custom Zoom takes any ratio in the API's zoom_ratio range (1 with a new shape: Make Square and its like). */
export const ZOOM_OUTS: readonly { ratio: number; label: string }[] = [
  { ratio: 2, label: 'Zoom Out 2x' },
  { ratio: 1.5, label: 'Zoom Out 1.5x' },
];
export const CUSTOM_ZOOM_RANGE = { min: 1, max: 2, step: 0.1 } as const;

/** The canvas shapes Custom Zoom may ask for (the API's aspect_ratio values). */
export const ZOOM_ASPECT_RATIOS = ['1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3'] as const;
export type CustomZoom = { prompt?: string; aspectRatio?: (typeof ZOOM_ASPECT_RATIOS)[number] };

/** A slider value as the API gets it: on the 0.1 grid, without float noise (1.2000000000000002). */
export function zoomRatioOf(value: number): number {
  return Math.min(CUSTOM_ZOOM_RANGE.max, Math.max(CUSTOM_ZOOM_RANGE.min, Math.round(value * 10) / 10));
}

export const BLEND_DIMENSIONS: readonly { value: BlendDimension; label: string }[] = [
  { value: 'square', label: 'Square' },
  { value: 'portrait', label: 'Portrait' },
  { value: 'landscape', label: 'Landscape' },
];
export const BLEND_IMAGES = { min: 2, max: 5 } as const;

export const BLEND_COUNT_MESSAGE = 'Blend takes 2 to 5 images.';
export const DESCRIBE_IMAGE_MESSAGE = 'Choose an image to describe.';
export const EMPTY_SHORTEN_MESSAGE = 'Enter a prompt to shorten.';
export const EMPTY_REGION_MESSAGE = 'Mark the part of the picture to vary.';

/**
 * The upscaled images that can be worked on further (pan, zoom out, vary, vary region): a cell
 * taken out of a grid (upscale#N) and Midjourney's upscalers' results (upscale-subtle,
 * -creative); an enlargement (2x, 4x) is an end result. Only upscale#N can be upscaled again.
 * The same rule as the API's `actions` of an upscaled image (server task-view-families.ts).
 */
export function isEditableUpscale(type: string): boolean {
  return /^upscale(#[1-4]|-(subtle|creative))$/.test(type);
}

/**
 * What the result panel may offer for a task (spec §2; §6: archived items hide Seed, Reroll
 * and the edits). Every edit creates a new task (§4).
 */
export function availableActions(task: MidjourneyTask, archived: boolean) {
  const done = taskPhase(task.status) === 'done';
  const layout = resultLayout(task.type);
  const hasImage = primaryImage(task) !== null;
  const pictures = layout === 'grid' || layout === 'single';
  const editable = done && !archived && layout === 'single' && isEditableUpscale(task.type) && hasImage;
  return {
    cellActions: done && !archived && layout === 'grid',
    furtherUpscales: editable && task.type.startsWith('upscale#'),
    imageEdits: editable,
    promptChoices: done && layout === 'prompts',
    seed: done && !archived && pictures,
    reroll: done && !archived && layout === 'grid',
    favorite: done,
    download: done && hasImage && pictures,
  };
}
