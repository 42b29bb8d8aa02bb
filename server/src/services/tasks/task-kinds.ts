/**
 * @module Task types (spec §3) ↔ engine job kinds, and the names of indexed types.
 */
import type { AspectRatio, CellIndex, EngineJobKind, UpscaleType } from '../../engines/engine.ts';

export const ASPECT_RATIOS = ['1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3'] as const satisfies readonly AspectRatio[];

export const UPSCALE_TYPE_NAMES = ['1x', 'subtle', 'creative', '2x', '4x'] as const satisfies readonly UpscaleType[];

/** `upscale#2` for the plain U2 button, `upscale-2x` etc. for the enlarging ones (spec §3). */
export function upscaleTaskType(type: UpscaleType, index: CellIndex): string {
  return type === '1x' ? `upscale#${index}` : `upscale-${type}`;
}

export function variationTaskType(index: CellIndex): string {
  return `variation-${index}`;
}

/** The engine job kind that produces a task of `type`, or undefined when we do not run that type. */
export function engineKindOf(type: string): EngineJobKind | undefined {
  if (
    type === 'imagine' ||
    type === 'reroll' ||
    type === 'seed' ||
    type === 'flux-imagine' ||
    type === 'ideogram-imagine' ||
    type === 'faceswap' ||
    type === 'ai-photo-upload' ||
    type === 'ai-photo-train' ||
    type === 'ai-photo-generate'
  )
    return type;
  if (/^variation-[1-4]$/.test(type)) return 'variation';
  if (/^upscale(#[1-4]|-(subtle|creative|2x|4x))$/.test(type)) return 'upscale';
  return undefined;
}
