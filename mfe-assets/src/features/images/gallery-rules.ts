// Spec §2 Images gallery, §9: which tasks the gallery shows under each tab and filter. Pure, so
// the page and the query share one meaning of each choice.
import { type TaskFamily, taskFamily, typesOfFamilies } from '@aim/shared-kit/domain';

export const IMAGE_TABS = ['All', 'Midjourney', 'AI Photos', 'Ideogram', 'Flux', 'Faceswap'] as const;
export type ImageTab = (typeof IMAGE_TABS)[number];

export const IMAGE_FILTERS = ['Everything', 'Favorites', 'Generations', 'Variations', 'Upscales'] as const;
export type ImageFilter = (typeof IMAGE_FILTERS)[number];

const FAMILY_OF_TAB: Record<Exclude<ImageTab, 'All'>, TaskFamily> = {
  Midjourney: 'midjourney',
  'AI Photos': 'ai-photo',
  Ideogram: 'ideogram',
  Flux: 'flux',
  Faceswap: 'faceswap',
};

/**
 * Task types that never make a picture of their own (a seed, a text description, the
 * training photos and the model of AI Photos, Midjourney's videos): hidden from the gallery.
 */
export const HIDDEN_TYPES: readonly string[] = [
  'seed',
  'describe',
  'shorten',
  'ideogram-describe',
  'ai-photo-upload',
  'ai-photo-train',
  'imagine-video',
  'imagine-video-extend',
];

const isVariation = (type: string) => type.startsWith('variation-');
const isUpscale = (type: string) => type.startsWith('upscale') || type === 'ideogram-upscale';

function matchesFilter(type: string, filter: ImageFilter): boolean {
  if (filter === 'Variations') return isVariation(type);
  if (filter === 'Upscales') return isUpscale(type);
  if (filter === 'Generations') return !isVariation(type) && !isUpscale(type);
  return true;
}

/** The types a tab and filter show: exact types plus prefixes (outpaint-* has open-ended suffixes). */
export function galleryTypes(tab: ImageTab, filter: ImageFilter): { types: string[]; prefixes: string[] } {
  const families: TaskFamily[] = tab === 'All' ? Object.values(FAMILY_OF_TAB) : [FAMILY_OF_TAB[tab]];
  return typesOfFamilies(families, (t) => !HIDDEN_TYPES.includes(t) && matchesFilter(t, filter));
}

/** A prompt search as an ilike pattern: the words as typed, with the pattern characters taken literally. */
export function searchPattern(search: string): string | null {
  const term = search.trim();
  return term ? `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
}

/** The tool screens that reopen a task of their family (spec §2: each restores ?taskId=). */
const TOOL_OF_FAMILY: Partial<Record<TaskFamily, string>> = {
  // The Midjourney tool's grid, upscale and variation buttons; it refuses other types (spec §5).
  midjourney: '/dashboard/tools/midjourney',
  faceswap: '/dashboard/tools/faceswap',
  // Only ai-photo-generate reaches the gallery (HIDDEN_TYPES); the screen shows its photos.
  'ai-photo': '/dashboard/tools/ai-photos',
};

/** Where a picture's Open goes: its tool with the task, or null when no tool reopens that type. */
export function toolLinkOf(task: { id: string; type: string }): string | null {
  const family = taskFamily(task.type);
  const tool = family ? TOOL_OF_FAMILY[family] : undefined;
  return tool ? `${tool}?taskId=${encodeURIComponent(task.id)}` : null;
}
