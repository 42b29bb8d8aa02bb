/**
 * @module Task types (spec §3) ↔ engine job kinds, and the names of indexed types.
 */
import { type AspectRatio, type CellIndex, ENGINE_JOB_KINDS, type EngineJobKind, type UpscaleType } from '../../engines/engine.ts';
import type { PanDirection, VaryType } from '../../engines/jobs/picture-actions.ts';

export const ASPECT_RATIOS = ['1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3'] as const satisfies readonly AspectRatio[];

export const UPSCALE_TYPE_NAMES = ['1x', 'subtle', 'creative', '2x', '4x'] as const satisfies readonly UpscaleType[];

/** `upscale#2` for the plain U2 button, `upscale-2x` etc. for the enlarging ones (spec §3). */
export function upscaleTaskType(type: UpscaleType, index: CellIndex): string {
  return type === '1x' ? `upscale#${index}` : `upscale-${type}`;
}

export function variationTaskType(index: CellIndex): string {
  return `variation-${index}`;
}

/** pan-up … pan-right (spec §3). */
export function panTaskType(direction: PanDirection): string {
  return `pan-${direction}`;
}

/** Midjourney Zoom Out: outpaint-1.5x and outpaint-2x are its buttons, outpaint-custom is Custom Zoom (spec §3 outpaint-*). */
export function outpaintTaskType(zoom: number, custom: boolean): string {
  if (!custom && zoom === 1.5) return 'outpaint-1.5x';
  if (!custom && zoom === 2) return 'outpaint-2x';
  return 'outpaint-custom';
}

/** Vary (Strong) / Vary (Subtle) of an upscaled image: variation-strong, variation-subtle (spec §3 variation-*). */
export function varyTaskType(type: VaryType): string {
  return `variation-${type}`;
}

// Kinds whose task types are named by pattern only: no task is called just `pan`.
const PATTERN_KINDS: ReadonlySet<string> = new Set(['variation', 'upscale', 'pan', 'outpaint', 'vary']);

/** Job kinds whose task type has another name (indexed types), or undefined. */
function indexedKindOf(type: string): EngineJobKind | undefined {
  if (/^variation-[1-4]$/.test(type)) return 'variation';
  if (/^variation-(strong|subtle)$/.test(type)) return 'vary';
  if (/^upscale(#[1-4]|-(subtle|creative|2x|4x))$/.test(type)) return 'upscale';
  if (/^pan-(up|down|left|right)$/.test(type)) return 'pan';
  if (/^outpaint-(1\.5x|2x|custom)$/.test(type)) return 'outpaint';
  return undefined;
}

/**
 * The engine job kind that produces a task of `type`, or undefined when we do not run that
 * type. Most task types are named like their job kind (imagine, faceswap, blend, describe,
 * luma, suno …); indexed ones map by pattern.
 */
export function engineKindOf(type: string): EngineJobKind | undefined {
  if (type === 'luma-ext') return 'luma-extend'; // spec §3's name for a Luma extension
  if (type === 'suno-ext') return 'suno-extend'; // spec §3's name for a Suno extension
  if (!PATTERN_KINDS.has(type) && (ENGINE_JOB_KINDS as readonly string[]).includes(type)) return type as EngineJobKind;
  return indexedKindOf(type);
}
