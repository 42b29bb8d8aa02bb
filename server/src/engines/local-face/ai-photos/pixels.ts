/**
 * @module Small geometric edits of RGB pixels in plain JS (exact, so face meshes found on the
 * result stay true): a rectangular cut.
 */
import type { RgbImage } from '../protocol.ts';
import type { Region } from '../warp.ts';

/** The part of `image` inside `region` (which must lie within it). */
export function cropImage(image: RgbImage, region: Region): RgbImage {
  const data = new Uint8Array(region.width * region.height * 3);
  for (let y = 0; y < region.height; y += 1) {
    const from = ((region.y + y) * image.width + region.x) * 3;
    data.set(image.data.subarray(from, from + region.width * 3), y * region.width * 3);
  }
  return { data, width: region.width, height: region.height };
}
