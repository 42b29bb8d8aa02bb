/**
 * @module The seam: a feathered mask (the warp mask blurred, cut at 0.97 so it shrinks away
 * from the face border, blurred again) and the alpha blend of the new face into the target.
 */
import { gaussianBlur } from './blur.ts';
import type { RgbImage } from './protocol.ts';
import type { Region } from './warp.ts';

export interface FeatheredMask {
  /** 1 well inside the face, 0 elsewhere (the eroded mask). */
  interior: Float32Array;
  /** Blend weight of the new face, 0–1, soft at the border. */
  alpha: Float32Array;
}

export function featherMask(mask: Float32Array, width: number, height: number, sigma: number): FeatheredMask {
  const blurred = gaussianBlur(mask, width, height, sigma);
  const interior = new Float32Array(mask.length);
  for (let i = 0; i < mask.length; i += 1) interior[i] = blurred[i] >= 0.97 ? 1 : 0;
  return { interior, alpha: gaussianBlur(interior, width, height, sigma) };
}

/** The region's target pixels as RGB floats. */
export function readRegion(image: RgbImage, region: Region): Float32Array {
  const out = new Float32Array(region.width * region.height * 3);
  for (let y = 0; y < region.height; y += 1) {
    const from = ((region.y + y) * image.width + region.x) * 3;
    out.set(image.data.subarray(from, from + region.width * 3), y * region.width * 3);
  }
  return out;
}

/** A copy of `image` with `face` (RGB floats of `region`) blended in by `alpha`. */
export function blendInto(image: RgbImage, region: Region, face: Float32Array, alpha: Float32Array): RgbImage {
  const data = Uint8Array.from(image.data);
  for (let y = 0; y < region.height; y += 1) {
    for (let x = 0; x < region.width; x += 1) {
      const at = y * region.width + x;
      const weight = alpha[at];
      if (weight <= 0) continue;
      const pixel = ((region.y + y) * image.width + region.x + x) * 3;
      for (let c = 0; c < 3; c += 1) {
        data[pixel + c] = Math.round(data[pixel + c] * (1 - weight) + face[at * 3 + c] * weight);
      }
    }
  }
  return { data, width: image.width, height: image.height };
}
