/**
 * @module Face alignment for AI photo references (runs in the face worker): a similarity
 * transform (rotation, uniform scale, shift) that puts both eye centres level at fixed places
 * of a square crop, the framing identity pipelines use, sampled bilinearly; outside the photo
 * the nearest edge pixel repeats.
 */
import type { Point } from '../face-models.ts';
import type { RgbImage } from '../protocol.ts';
import { sampleBilinear } from '../warp.ts';

/** Distance between the eye centres, as a share of the crop's side. */
export const EYE_DISTANCE = 0.25;
/** Height of the eye line, as a share of the crop's side (the head and some shoulder fit). */
export const EYE_LINE = 0.4;

/** The face whose eye centres are `eyes` (image-left first), upright in a `size` × `size` crop. */
export function alignFace(image: RgbImage, eyes: readonly [Point, Point], size: number): RgbImage {
  const [[lx, ly], [rx, ry]] = eyes;
  const distance = Math.max(Math.hypot(rx - lx, ry - ly), 1e-3);
  // source pixels per crop pixel, along the eye line (cos) and across it (sin)
  const scale = distance / (EYE_DISTANCE * size);
  const cos = ((rx - lx) / distance) * scale;
  const sin = ((ry - ly) / distance) * scale;
  const midX = (lx + rx) / 2;
  const midY = (ly + ry) / 2;
  const data = new Uint8Array(size * size * 3);
  const pixel = new Float32Array(3);
  for (let v = 0; v < size; v += 1) {
    const across = v + 0.5 - EYE_LINE * size;
    for (let u = 0; u < size; u += 1) {
      const along = u + 0.5 - size / 2;
      sampleBilinear(image, midX + cos * along - sin * across - 0.5, midY + sin * along + cos * across - 0.5, pixel, 0);
      const at = (v * size + u) * 3;
      data[at] = Math.round(pixel[0]);
      data[at + 1] = Math.round(pixel[1]);
      data[at + 2] = Math.round(pixel[2]);
    }
  }
  return { data, width: size, height: size };
}

/** The part of an aligned crop that is face (brows to chin, cheek to cheek), for measuring it. */
export function alignedFaceArea(size: number): { x: number; y: number; width: number; height: number } {
  return { x: Math.round(size * 0.28), y: Math.round(size * 0.3), width: Math.round(size * 0.44), height: Math.round(size * 0.42) };
}
