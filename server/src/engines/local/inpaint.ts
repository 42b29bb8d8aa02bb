/**
 * @module Vary (Region) on the local engine: the mask is real and respected exactly (every
 * pixel outside it is the parent's, byte for byte); inside it a procedural stand-in from the
 * prompt is drawn, with the SIMULATED label inside the region.
 */
import { EngineError } from '../engine.ts';
import { type Rect, regionLabelSvg, tileSvg } from './procedural.ts';
import { overlay, type RawImage, rasteriseSvg } from './raster.ts';

/** The bounding box of the mask's selected pixels, or undefined when it selects none. */
function maskBounds(mask: Uint8Array, width: number, height: number): Rect | undefined {
  let minX = width;
  let minY = height;
  let maxX = -1;
  let maxY = -1;
  for (let y = 0; y < height; y += 1) {
    const row = y * width;
    for (let x = 0; x < width; x += 1) {
      if (mask[row + x]) {
        if (x < minX) minX = x;
        if (x > maxX) maxX = x;
        if (y < minY) minY = y;
        if (y > maxY) maxY = y;
      }
    }
  }
  return maxX < 0 ? undefined : { x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1 };
}

const EMPTY_MASK_MESSAGE = 'The mask selects no region: paint the region to vary in white on black.';

/** One candidate: `picture` outside the mask, a labelled procedural render inside it. */
export async function repaintRegion(
  picture: RawImage,
  mask: Uint8Array,
  scene: { prompt: string; seed: number; variant: number },
  label: string,
): Promise<RawImage> {
  const bounds = maskBounds(mask, picture.width, picture.height);
  if (!bounds) throw new EngineError('invalid_input', EMPTY_MASK_MESSAGE);
  const { width, height } = picture;
  const render = await overlay(
    await rasteriseSvg(tileSvg({ ...scene, width, height, style: 'midjourney', caption: null })),
    // across the middle of the region, where a round or irregular region is usually widest
    regionLabelSvg(width, height, bounds, label, { middle: true }),
  );
  const out = Buffer.from(picture.data);
  for (let i = 0; i < mask.length; i += 1) {
    if (mask[i]) {
      const at = i * 3;
      out[at] = render.data[at];
      out[at + 1] = render.data[at + 1];
      out[at + 2] = render.data[at + 2];
    }
  }
  return { data: out, width, height };
}
