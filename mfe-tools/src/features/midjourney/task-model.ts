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
  result: { message?: string | null } | null;
  refund: number | null;
  parent_id?: string | null;
};

// Spec texts: these must match exactly.
export const NOT_MIDJOURNEY_TASK = 'This task is not a Midjourney task!';
export const ERROR_DOWNLOADING_IMAGE = 'Error downloading image';

export const EMPTY_PROMPT_MESSAGE = 'Enter a prompt to imagine.';

/** The chips under the prompt box: the onboarding wizard's templates, so both screens agree. */
export const EXAMPLE_PROMPTS = ['A beautiful sunset over a serene lake', 'Modern luxury villa', 'Minimal gradient logo', 'Cyberpunk city at sunset'] as const;

export function isMidjourneyTask(type: string | null | undefined): boolean {
  return !!type && taskFamily(type) === 'midjourney';
}

export type ResultLayout = 'grid' | 'single' | 'none';

/**
 * Spec §4: a 4-image grid for imagine, reroll, blend, variation, outpaint and pan tasks, one
 * image for upscales. Inpaint (Vary Region) also answers four images. describe, seed and
 * shorten produce text, not pictures.
 */
export function resultLayout(type: string): ResultLayout {
  if (type.startsWith('upscale')) return 'single';
  if (['imagine', 'reroll', 'blend', 'inpaint'].includes(type)) return 'grid';
  if (/^(variation|outpaint|pan)-/.test(type)) return 'grid';
  return 'none';
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

export type UpscaleType = 'subtle' | 'creative' | '2x' | '4x';

/** Further upscales of an upscaled cell (upscale#N), Midjourney's Upscale (Subtle)/(Creative) and the enlargements. */
export const FURTHER_UPSCALES: readonly { type: UpscaleType; label: string }[] = [
  { type: 'subtle', label: 'Upscale (Subtle)' },
  { type: 'creative', label: 'Upscale (Creative)' },
  { type: '2x', label: 'Upscale 2x' },
  { type: '4x', label: 'Upscale 4x' },
];

/** What the result panel may offer for a task (spec §2, §6: archived items hide Seed and Reroll). */
export function availableActions(task: MidjourneyTask, archived: boolean) {
  const done = taskPhase(task.status) === 'done';
  const layout = resultLayout(task.type);
  const hasImage = primaryImage(task) !== null;
  return {
    cellActions: done && layout === 'grid',
    furtherUpscales: done && /^upscale#[1-4]$/.test(task.type) && hasImage,
    seed: done && !archived && layout !== 'none',
    reroll: done && !archived && layout === 'grid',
    favorite: done,
    download: done && hasImage,
  };
}
