/**
 * @module Piecewise-affine warp: the source face drawn into the target's face shape, one mesh
 * triangle at a time. Each target pixel inside a triangle gets barycentric coordinates, which
 * name the same spot in the source triangle; the source is sampled there bilinearly.
 */
import type { Point } from './face-models.ts';
import type { RgbImage } from './protocol.ts';

/** A rectangle of the target image, in pixels. */
export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WarpedFace {
  /** RGB floats (0–255) for every pixel of the region, 3 a pixel; 0 outside the mask. */
  pixels: Float32Array;
  /** 1 where a triangle covered the pixel, else 0. */
  mask: Float32Array;
}

/** The source colour at a fractional position, bilinear, clamped to the image. */
export function sampleBilinear(image: RgbImage, x: number, y: number, out: Float32Array, at: number): void {
  const { data, width, height } = image;
  const cx = Math.min(Math.max(x, 0), width - 1);
  const cy = Math.min(Math.max(y, 0), height - 1);
  const x0 = Math.floor(cx);
  const y0 = Math.floor(cy);
  const x1 = Math.min(x0 + 1, width - 1);
  const y1 = Math.min(y0 + 1, height - 1);
  const fx = cx - x0;
  const fy = cy - y0;
  const i00 = (y0 * width + x0) * 3;
  const i10 = (y0 * width + x1) * 3;
  const i01 = (y1 * width + x0) * 3;
  const i11 = (y1 * width + x1) * 3;
  for (let c = 0; c < 3; c += 1) {
    const top = data[i00 + c] + (data[i10 + c] - data[i00 + c]) * fx;
    const bottom = data[i01 + c] + (data[i11 + c] - data[i01 + c]) * fx;
    out[at + c] = top + (bottom - top) * fy;
  }
}

/**
 * Warps `source` (with its mesh `sourcePoints`) onto the target mesh `targetPoints` over
 * `triangles`, for the pixels of `region` only.
 */
export function warpFace(
  source: RgbImage,
  sourcePoints: readonly Point[],
  targetPoints: readonly Point[],
  triangles: readonly number[],
  region: Region,
): WarpedFace {
  const { width, height } = region;
  const pixels = new Float32Array(width * height * 3);
  const mask = new Float32Array(width * height);
  const epsilon = 1e-6;
  for (let t = 0; t + 2 < triangles.length; t += 3) {
    const [a, b, c] = [targetPoints[triangles[t]], targetPoints[triangles[t + 1]], targetPoints[triangles[t + 2]]];
    const [sa, sb, sc] = [sourcePoints[triangles[t]], sourcePoints[triangles[t + 1]], sourcePoints[triangles[t + 2]]];
    const ax = a[0] - region.x;
    const ay = a[1] - region.y;
    const e1x = b[0] - a[0];
    const e1y = b[1] - a[1];
    const e2x = c[0] - a[0];
    const e2y = c[1] - a[1];
    const det = e1x * e2y - e2x * e1y;
    if (Math.abs(det) < 1e-3) continue; // a degenerate (edge-on) triangle covers no pixel
    const minX = Math.max(0, Math.floor(Math.min(a[0], b[0], c[0]) - region.x));
    const maxX = Math.min(width - 1, Math.ceil(Math.max(a[0], b[0], c[0]) - region.x));
    const minY = Math.max(0, Math.floor(Math.min(a[1], b[1], c[1]) - region.y));
    const maxY = Math.min(height - 1, Math.ceil(Math.max(a[1], b[1], c[1]) - region.y));
    for (let y = minY; y <= maxY; y += 1) {
      const dy = y - ay;
      for (let x = minX; x <= maxX; x += 1) {
        const dx = x - ax;
        // (u, v): the pixel as a + u·(b−a) + v·(c−a)
        const u = (dx * e2y - dy * e2x) / det;
        const v = (dy * e1x - dx * e1y) / det;
        if (u < -epsilon || v < -epsilon || u + v > 1 + epsilon) continue;
        const sx = sa[0] + u * (sb[0] - sa[0]) + v * (sc[0] - sa[0]);
        const sy = sa[1] + u * (sb[1] - sa[1]) + v * (sc[1] - sa[1]);
        const at = y * width + x;
        sampleBilinear(source, sx, sy, pixels, at * 3);
        mask[at] = 1;
      }
    }
  }
  return { pixels, mask };
}
