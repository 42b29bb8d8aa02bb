/**
 * @module The mouth in a swap. When the source and target mouths differ strongly (one open,
 * showing teeth, the other closed), the piecewise-affine warp squeezes or stretches the lips and
 * teeth into a smear; then the target keeps its own mouth (the outer-lip outline, grown a little)
 * and the new face is blended around it.
 */
import type { Point } from './face-models.ts';
import type { Region } from './warp.ts';

/** Outer lip contour of the 468-point mesh (MediaPipe face mesh indices), in order around the mouth. */
const OUTER_LIPS = [61, 146, 91, 181, 84, 17, 314, 405, 321, 375, 291, 409, 270, 269, 267, 0, 37, 39, 40, 185];
/** Inner-lip pairs (upper, lower) at the middle and either side, and the inner mouth corners. */
const INNER_GAPS: [number, number][] = [
  [13, 14],
  [82, 87],
  [312, 317],
];
const INNER_CORNERS: [number, number] = [78, 308];

/**
 * A difference in opening above this (inner-lip gap ÷ mouth width) keeps the target's mouth. On
 * the evaluation set closed lips measure 0.01–0.07 and open smiles 0.11–0.24, so this is an open
 * smile onto closed lips (or back). The price is identity: the mouth is the target's, and on
 * those pairs the result is closer to the source less often (bench/faceswap-bench.ts).
 */
const MOUTH_MISMATCH = 0.15;

const distance = (a: Point, b: Point) => Math.hypot(a[0] - b[0], a[1] - b[1]);

/** How far the mouth is open: the widest inner-lip gap over the mouth's width (0 = closed, ~0.3 = a wide-open smile). */
export function mouthOpening(mesh: readonly Point[]): number {
  const width = Math.max(distance(mesh[INNER_CORNERS[0]], mesh[INNER_CORNERS[1]]), 1);
  return Math.max(...INNER_GAPS.map(([a, b]) => distance(mesh[a], mesh[b]))) / width;
}

/** True when the mouths are too different for the warp to carry the source's mouth cleanly. */
export function mouthsDiffer(sourceMesh: readonly Point[], targetMesh: readonly Point[]): boolean {
  return Math.abs(mouthOpening(sourceMesh) - mouthOpening(targetMesh)) > MOUTH_MISMATCH;
}

/**
 * 1 inside the target's outer-lip outline grown by `grow` × the mouth width about its centre,
 * else 0, for the pixels of `region`.
 */
export function mouthMask(mesh: readonly Point[], region: Region, grow = 0.12): Float32Array {
  const outline = OUTER_LIPS.map((i) => mesh[i]);
  const cx = outline.reduce((s, p) => s + p[0], 0) / outline.length;
  const cy = outline.reduce((s, p) => s + p[1], 0) / outline.length;
  const width = distance(mesh[61], mesh[291]);
  // grow each point away from the centre by a fixed share of the mouth width
  const polygon = outline.map(([x, y]): Point => {
    const d = Math.max(Math.hypot(x - cx, y - cy), 1e-6);
    const k = (d + grow * width) / d;
    return [cx + (x - cx) * k - region.x, cy + (y - cy) * k - region.y];
  });
  const mask = new Float32Array(region.width * region.height);
  const xs = polygon.map((p) => p[0]);
  const ys = polygon.map((p) => p[1]);
  const x0 = Math.max(0, Math.floor(Math.min(...xs)));
  const x1 = Math.min(region.width - 1, Math.ceil(Math.max(...xs)));
  const y0 = Math.max(0, Math.floor(Math.min(...ys)));
  const y1 = Math.min(region.height - 1, Math.ceil(Math.max(...ys)));
  for (let y = y0; y <= y1; y += 1) {
    for (let x = x0; x <= x1; x += 1) {
      // even-odd rule
      let inside = false;
      for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i, i += 1) {
        const [xi, yi] = polygon[i];
        const [xj, yj] = polygon[j];
        if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
      }
      if (inside) mask[y * region.width + x] = 1;
    }
  }
  return mask;
}
