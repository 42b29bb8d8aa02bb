/**
 * @module The classic face swap (local-engine.md §2), pure JS on RGB pixels: warp the source
 * face onto the target's mesh, match its colour and lighting to the target face, blend it in
 * with a feathered seam. Only the target's face box plus a margin is touched.
 */
import { featherMask, blendInto, readRegion } from './blend.ts';
import { transferColour, transferShading } from './colour.ts';
import type { Point } from './face-models.ts';
import type { RgbImage } from './protocol.ts';
import { type Region, warpFace } from './warp.ts';

export interface SwapInput {
  source: RgbImage;
  /** The source face's mesh, in `source` pixels. */
  sourceMesh: readonly Point[];
  target: RgbImage;
  /** The target face's mesh, in `target` pixels. */
  targetMesh: readonly Point[];
  /** Mesh triangles, three indices each (human.faceTriangulation). */
  triangles: readonly number[];
}

/** Share of the face size added around the target face for the work region. */
const MARGIN = 0.15;

/** The target face's bounding box plus a margin, inside the image; and the face's width. */
function faceRegion(mesh: readonly Point[], image: RgbImage): { region: Region; faceWidth: number } {
  let [minX, minY, maxX, maxY] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY];
  for (const [x, y] of mesh) {
    minX = Math.min(minX, x);
    minY = Math.min(minY, y);
    maxX = Math.max(maxX, x);
    maxY = Math.max(maxY, y);
  }
  const faceWidth = Math.max(maxX - minX, 1);
  const marginX = (maxX - minX) * MARGIN;
  const marginY = (maxY - minY) * MARGIN;
  const x = Math.max(0, Math.floor(minX - marginX));
  const y = Math.max(0, Math.floor(minY - marginY));
  const right = Math.min(image.width, Math.ceil(maxX + marginX) + 1);
  const bottom = Math.min(image.height, Math.ceil(maxY + marginY) + 1);
  return { region: { x, y, width: Math.max(1, right - x), height: Math.max(1, bottom - y) }, faceWidth };
}

export interface SwapResult {
  image: RgbImage;
  /** The part of the target that may have changed. */
  region: Region;
}

/** Puts the source face onto the target face; stages are reported through `onStage`. */
export function swapFace(input: SwapInput, onStage: (stage: 'warped' | 'blended') => void = () => {}): SwapResult {
  const { region, faceWidth } = faceRegion(input.targetMesh, input.target);
  const { width, height } = region;
  const warped = warpFace(input.source, input.sourceMesh, input.targetMesh, input.triangles, region);
  onStage('warped');
  const featherSigma = (faceWidth / 18) * 0.7;
  const { interior, alpha } = featherMask(warped.mask, width, height, featherSigma);
  const target = readRegion(input.target, region);
  // outside the warp the "new face" is the target itself, so the feathered tail blends nothing in
  for (let i = 0; i < warped.mask.length; i += 1) {
    if (warped.mask[i] === 0) warped.pixels.set(target.subarray(i * 3, i * 3 + 3), i * 3);
  }
  const planes = { width, height, warped: warped.pixels, target, mask: warped.mask, interior };
  transferColour(planes);
  transferShading(planes, faceWidth / 9);
  const image = blendInto(input.target, region, planes.warped, alpha);
  onStage('blended');
  return { image, region };
}
