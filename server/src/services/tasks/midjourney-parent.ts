/**
 * @module Which earlier task a Midjourney action may start from, as midjourney-proxy (and
 * Midjourney's buttons behind it) allows:
 * - U1–U4, V1–V4 and 🔄 are buttons of a grid of four: imagine, reroll, variations, blend
 *   and the grids that pan, zoom out and vary make (novicezk's /submit/change takes IMAGINE,
 *   VARIATION, REROLL and BLEND parents; trueai's buttons sit on the others).
 * - Pan, zoom out, vary (strong, subtle, region) and Upscale (Subtle/Creative) are buttons of
 *   an upscaled image (upscale#1–4, or an Upscale (Subtle/Creative) of one). The pro API
 *   names a grid cell by `index` instead and the engine upscales it first; a v1 call without
 *   an index needs the upscale first (POST /upscale-1x).
 * - Upscale 2x/4x results are end results: nothing follows them.
 * - Pictures of other families (Flux, Ideogram, faceswap, AI photos) are not Midjourney's.
 * Refusals are 409s that name the rule and the task's type; an index the parent does not have
 * is a 400 on `index`.
 */
import type { CellIndex } from '../../engines/engine.ts';
import { ApiError } from '../../errors.ts';
import type { TaskRow } from '../../repositories/task-repository.ts';

type MidjourneyPicture = 'grid' | 'upscaled' | 'enlarged' | 'other';

const GRID_TYPES = /^(imagine|reroll|blend|inpaint|variation-([1-4]|strong|subtle)|pan-(up|down|left|right)|outpaint-(1\.5x|2x|custom))$/;
const UPSCALED_TYPES = /^upscale(#[1-4]|-(subtle|creative))$/;
const ENLARGED_TYPES = /^upscale-(2x|4x)$/;

const GRIDS = 'imagine, reroll, variations, blend, pan, zoom out or vary';
const UPSCALED = 'upscale#1–4, upscale-subtle or upscale-creative';

function midjourneyPictureOf(type: string): MidjourneyPicture {
  if (GRID_TYPES.test(type)) return 'grid';
  if (UPSCALED_TYPES.test(type)) return 'upscaled';
  if (ENLARGED_TYPES.test(type)) return 'enlarged';
  return 'other';
}

/** The parent's pictures exist and `index` is one of them (400 on `index` otherwise). */
export function requireImage(parent: TaskRow, index: CellIndex): void {
  const count = parent.image_urls?.length ?? 0;
  if (count === 0 || !parent.image_url) throw new ApiError('conflict', 'The task has no images');
  if (index > count) throw new ApiError('bad_request', `index must be between 1 and ${count} for this task`);
}

/** A U, V or 🔄 button: the parent must be a Midjourney grid of four. */
export function requireGrid(parent: TaskRow, action: string): void {
  if (midjourneyPictureOf(parent.type) !== 'grid') {
    throw new ApiError('conflict', `${action} works on a Midjourney grid of four (${GRIDS}); this task is ${parent.type}`);
  }
}

/**
 * The picture a button of an upscaled image applies to: undefined for an upscaled parent
 * (the whole picture; `index` must be absent or 1), the cell for a grid parent (its `index`
 * required). `upscaleFirst` tells a caller without an index how to get an upscaled image.
 */
export function upscaledTarget(parent: TaskRow, index: CellIndex | undefined, action: string, upscaleFirst: string): CellIndex | undefined {
  switch (midjourneyPictureOf(parent.type)) {
    case 'upscaled':
      requireImage(parent, index ?? 1);
      return undefined;
    case 'grid':
      if (index === undefined) {
        throw new ApiError('conflict', `${action} works on an upscaled image: upscale one image of this grid first (${upscaleFirst}), or name it with index`);
      }
      requireImage(parent, index);
      return index;
    case 'enlarged':
      throw new ApiError('conflict', `${action} cannot follow an ${parent.type}: an enlargement is an end result; use the upscaled image it was made from`);
    default:
      throw new ApiError('conflict', `${action} works on a Midjourney image (${UPSCALED}, or one image of a grid); this task is ${parent.type}`);
  }
}
