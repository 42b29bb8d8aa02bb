/**
 * @module Pan and zoom out (outpaint) on the local engine: the canvas geometry is real and
 * exact (the parent picture is copied pixel for pixel onto a larger canvas at a known
 * offset); only what fills the new area is a procedural stand-in, labelled SIMULATED inside
 * that area and never over the parent's pixels.
 *
 * Geometry, following Midjourney's buttons:
 * - Pan extends the picture by half its side in one direction (a 1024² picture panned left
 *   becomes 1536×1024, the parent at x = 512).
 * - Zoom out `z` makes the canvas z times the picture's size, the picture centred; with an
 *   aspect ratio (Custom Zoom, Make Square) the canvas then grows along one side until it has
 *   that ratio. The picture is never shrunk or cropped.
 */
import type { AspectRatio } from '../engine.ts';
import type { PanDirection } from '../jobs/picture-actions.ts';
import { type Rect, regionLabelSvg, tileSvg } from './procedural.ts';
import { overlay, type RawImage, rasteriseSvg } from './raster.ts';

/** The canvas and where the parent goes on it. */
export interface CanvasPlan {
  width: number;
  height: number;
  left: number;
  top: number;
}

const RATIOS: Record<AspectRatio, [number, number]> = {
  '1:1': [1, 1],
  '16:9': [16, 9],
  '9:16': [9, 16],
  '4:3': [4, 3],
  '3:4': [3, 4],
  '3:2': [3, 2],
  '2:3': [2, 3],
};

export function panPlan(width: number, height: number, direction: PanDirection): CanvasPlan {
  const extendX = Math.max(1, Math.round(width / 2));
  const extendY = Math.max(1, Math.round(height / 2));
  switch (direction) {
    case 'left':
      return { width: width + extendX, height, left: extendX, top: 0 };
    case 'right':
      return { width: width + extendX, height, left: 0, top: 0 };
    case 'up':
      return { width, height: height + extendY, left: 0, top: extendY };
    case 'down':
      return { width, height: height + extendY, left: 0, top: 0 };
  }
}

export function outpaintPlan(width: number, height: number, zoom: number, aspectRatio?: AspectRatio): CanvasPlan {
  let canvasWidth = Math.max(width, Math.round(width * zoom));
  let canvasHeight = Math.max(height, Math.round(height * zoom));
  if (aspectRatio) {
    const [w, h] = RATIOS[aspectRatio];
    if (canvasWidth * h < canvasHeight * w) canvasWidth = Math.max(canvasWidth, Math.round((canvasHeight * w) / h));
    else canvasHeight = Math.max(canvasHeight, Math.round((canvasWidth * h) / w));
  }
  return { width: canvasWidth, height: canvasHeight, left: Math.floor((canvasWidth - width) / 2), top: Math.floor((canvasHeight - height) / 2) };
}

/** The strips of the canvas the parent does not cover, largest first (empty when it covers all). */
function newAreas(plan: CanvasPlan, width: number, height: number): Rect[] {
  const right = plan.left + width;
  const bottom = plan.top + height;
  const strips: Rect[] = [
    { x: 0, y: bottom, width: plan.width, height: plan.height - bottom },
    { x: 0, y: 0, width: plan.width, height: plan.top },
    { x: 0, y: plan.top, width: plan.left, height },
    { x: right, y: plan.top, width: plan.width - right, height },
  ];
  return strips.filter((r) => r.width > 0 && r.height > 0).sort((a, b) => b.width * b.height - a.width * a.height);
}

/** Copies `picture` into `canvas` at (left, top), row by row: the parent's bytes, unchanged. */
function placeExactly(canvas: RawImage, picture: RawImage, left: number, top: number): void {
  const rowBytes = picture.width * 3;
  for (let y = 0; y < picture.height; y += 1) {
    picture.data.copy(canvas.data, ((top + y) * canvas.width + left) * 3, y * rowBytes, (y + 1) * rowBytes);
  }
}

/**
 * One candidate: a procedural scene over the whole canvas (from the prompt, seed and
 * variant), the label in the largest new strip, then the parent copied on top.
 */
export async function extendCanvas(
  picture: RawImage,
  plan: CanvasPlan,
  scene: { prompt: string; seed: number; variant: number },
  label: string,
): Promise<RawImage> {
  let canvas = await rasteriseSvg(tileSvg({ ...scene, width: plan.width, height: plan.height, style: 'midjourney', caption: null }));
  const [largest] = newAreas(plan, picture.width, picture.height);
  if (largest) canvas = await overlay(canvas, regionLabelSvg(plan.width, plan.height, largest, label));
  placeExactly(canvas, picture, plan.left, plan.top);
  return canvas;
}
