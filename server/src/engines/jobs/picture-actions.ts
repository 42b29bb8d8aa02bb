/**
 * @module The Engine port's Midjourney actions beyond imagine/variation/upscale (blend,
 * describe, shorten, pan, outpaint/zoom, inpaint, vary strong/subtle) and the Ideogram jobs
 * beyond imagine (remix, upscale, describe): each job's shape, and its kind in the list every
 * engine registry and the worker know. Defined here, not in engine.ts, so each family grows in
 * its own file.
 *
 * Conventions every engine can rely on (the worker builds the jobs, workers/jobs/picture-actions.ts):
 * - A picture the user named by URL (describe, blend, the Ideogram image) or sent inline (the
 *   inpaint mask) arrives as checked bytes (`ImageInput`: jpeg, png, gif or webp read from the
 *   bytes), never as a bare URL to fetch.
 * - An action on an earlier picture (pan, outpaint, inpaint, vary) gets the parent task as a
 *   `ParentRef`. When the parent is a 2×2 grid (`parent.layout === 'grid'`), `index` names the
 *   cell the action applies to (Midjourney's U-then-action of the pro API); when the parent is
 *   an upscaled single picture, `index` is absent and the whole picture is meant. The API
 *   refuses other combinations before a job exists.
 * - Optional fields are omitted, never present as `undefined`.
 *
 * What comes back: pan, outpaint, inpaint, vary and blend are four candidates (`layout: 'grid'`,
 * spec §4); describe and shorten answer text (`texts`: the prompts, in order; no picture,
 * `layout: 'none'`), ideogram-describe one description in `texts[0]`; ideogram remix and
 * upscale answer pictures (`single` or `set`).
 */
import type { AspectRatio, CellIndex, ImageInput, ParentRef } from '../engine.ts';

export type PanDirection = 'up' | 'down' | 'left' | 'right';

/** Midjourney /blend dimensions: square 1:1, portrait 2:3, landscape 3:2. */
export type BlendDimension = 'square' | 'portrait' | 'landscape';

export type VaryType = 'strong' | 'subtle';

/** Ideogram style types (v1 `style_type`). */
export type IdeogramStyleType = 'AUTO' | 'GENERAL' | 'REALISTIC' | 'DESIGN' | 'RENDER_3D' | 'ANIME' | 'FICTION';

/** Ideogram MagicPrompt (v1 `magic_prompt_option`): let the model rewrite the prompt. */
export type MagicPromptOption = 'AUTO' | 'ON' | 'OFF';

/** An exact output size (Ideogram `resolution`, Flux width/height), in pixels. */
export interface PictureSize {
  width: number;
  height: number;
}

/** An action on one picture of an earlier task (see the module comment for `index`). */
interface OnParent {
  parent: ParentRef;
  /** The grid cell, when the parent is a grid; absent for an upscaled single picture. */
  index?: CellIndex;
}

export type PictureActionJob =
  /** 2–5 pictures fused into new ones of the chosen shape (Midjourney /blend). */
  | { kind: 'blend'; images: ImageInput[]; dimension: BlendDimension }
  /** Four prompts that could have made `image` (Midjourney /describe) → `texts`. */
  | { kind: 'describe'; image: ImageInput }
  /** Shorter versions of a long prompt (Midjourney /shorten) → `texts`; `data.full_content`: the analysis. */
  | { kind: 'shorten'; prompt: string }
  /** The canvas extended on one side; the parent's pixels kept (Midjourney Pan ⬅️➡️⬆️⬇️). */
  | ({ kind: 'pan'; direction: PanDirection; prompt?: string } & OnParent)
  /**
   * The canvas enlarged around the parent (Midjourney Zoom Out): `zoom` 1.5 or 2 are the
   * buttons; any other value in [1, 2], or an `aspectRatio` or `prompt`, is Custom Zoom
   * (`--zoom <zoom> --ar <aspectRatio>`; zoom 1 with a new aspect ratio is Make Square and the like).
   */
  | ({ kind: 'outpaint'; zoom: number; aspectRatio?: AspectRatio; prompt?: string } & OnParent)
  /**
   * A region redrawn (Midjourney Vary (Region)): `mask` is a picture whose white (bright)
   * pixels mark the region, black the rest; transparent pixels count as black. It is scaled to
   * the picture's size when it differs.
   */
  | ({ kind: 'inpaint'; mask: ImageInput; prompt: string } & OnParent)
  /** Variations of an upscaled picture (Midjourney Vary (Strong) / Vary (Subtle)). */
  | ({ kind: 'vary'; type: VaryType } & OnParent)
  /** A new picture from `image` and a prompt (Ideogram remix); `imageWeight` 1–100 (default 50): how much of the image to keep. */
  | {
      kind: 'ideogram-remix';
      image: ImageInput;
      prompt: string;
      imageWeight?: number;
      seed?: number;
      aspectRatio?: AspectRatio;
      resolution?: PictureSize;
      styleType?: IdeogramStyleType;
      negativePrompt?: string;
      magicPrompt?: MagicPromptOption;
    }
  /**
   * `image` enlarged (Ideogram upscale); `resemblance` and `detail` 1–100 (default 50): how
   * close to the original, how much fine detail to add; `prompt` guides the added detail.
   */
  | { kind: 'ideogram-upscale'; image: ImageInput; prompt?: string; resemblance?: number; detail?: number; seed?: number; magicPrompt?: MagicPromptOption }
  /** One description of `image` (Ideogram describe) → `texts[0]`. */
  | { kind: 'ideogram-describe'; image: ImageInput };

export const PICTURE_ACTION_JOB_KINDS: readonly PictureActionJob['kind'][] = [
  'blend',
  'describe',
  'shorten',
  'pan',
  'outpaint',
  'inpaint',
  'vary',
  'ideogram-remix',
  'ideogram-upscale',
  'ideogram-describe',
];
