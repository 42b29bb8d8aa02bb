/**
 * @module The Ideogram parameters imagine and remix share, as the v1 API names them, checked
 * and normalised for `input_data`: `aspect_ratio` as `16:9` or Ideogram's `ASPECT_16_9`,
 * `resolution` as `RESOLUTION_<width>_<height>` (256–2048 a side), never both.
 */
import type { AspectRatio } from '../../engines/engine.ts';
import type { IdeogramStyleType, MagicPromptOption } from '../../engines/jobs/picture-actions.ts';
import { ApiError } from '../../errors.ts';
import { ASPECT_RATIOS } from './task-kinds.ts';

/** Ideogram's spelling of the aspect ratios we render. */
export const IDEOGRAM_ASPECT_RATIOS = ASPECT_RATIOS.map((ratio) => `ASPECT_${ratio.replace(':', '_')}`) as `ASPECT_${string}`[];

export const RESOLUTION_PATTERN = /^RESOLUTION_(\d{3,4})_(\d{3,4})$/;
export const MIN_RESOLUTION_SIDE = 256;
export const MAX_RESOLUTION_SIDE = 2048;

export interface IdeogramInput {
  aspect_ratio?: string;
  resolution?: string;
  style_type?: IdeogramStyleType;
  negative_prompt?: string;
  magic_prompt_option?: MagicPromptOption;
  seed?: number;
}

/** `input_data` fields of the Ideogram parameters given, or a 400 naming the field. */
export function ideogramInputData(input: IdeogramInput): Record<string, unknown> {
  if (input.aspect_ratio !== undefined && input.resolution !== undefined) {
    throw new ApiError('validation_failed', 'resolution: Give either aspect_ratio or resolution, not both');
  }
  const data: Record<string, unknown> = {};
  if (input.aspect_ratio !== undefined) data.aspect_ratio = input.aspect_ratio.replace(/^ASPECT_(\d+)_(\d+)$/, '$1:$2') as AspectRatio;
  if (input.resolution !== undefined) {
    const [, width, height] = RESOLUTION_PATTERN.exec(input.resolution) ?? [];
    data.resolution = { width: Number(width), height: Number(height) };
  }
  if (input.style_type !== undefined) data.style_type = input.style_type;
  if (input.negative_prompt !== undefined) data.negative_prompt = input.negative_prompt;
  if (input.magic_prompt_option !== undefined) data.magic_prompt_option = input.magic_prompt_option;
  if (input.seed !== undefined) data.seed = input.seed;
  return data;
}
