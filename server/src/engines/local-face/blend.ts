/**
 * @module Reading the work region out of the target and the alpha blend of the new face into it
 * (the masks and the tone correction that make the seam invisible are in swap.ts).
 */
import type { RgbImage } from './protocol.ts';
import type { Region } from './warp.ts';

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
