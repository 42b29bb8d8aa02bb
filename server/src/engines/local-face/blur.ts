/**
 * @module Gaussian blur of one float plane, approximated by three box blurs (each O(pixels)
 * whatever the radius). Outside the plane counts as 0, which is what masks and masked sums want.
 */

/** Radii of three box blurs whose succession approximates a gaussian of `sigma`. */
function boxRadii(sigma: number): number[] {
  const passes = 3;
  const ideal = Math.sqrt((12 * sigma * sigma) / passes + 1);
  let lower = Math.floor(ideal);
  if (lower % 2 === 0) lower -= 1;
  const upper = lower + 2;
  const lowerCount = Math.round((12 * sigma * sigma - passes * lower * lower - 4 * passes * lower - 3 * passes) / (-4 * lower - 4));
  return Array.from({ length: passes }, (_, i) => ((i < lowerCount ? lower : upper) - 1) / 2);
}

/** One box pass along rows (`step` 1) or columns (`step` width), from `from` into `to`. */
function boxPass(from: Float32Array, to: Float32Array, lines: number, length: number, lineStep: number, step: number, radius: number): void {
  const scale = 1 / (2 * radius + 1);
  for (let line = 0; line < lines; line += 1) {
    const base = line * lineStep;
    let sum = 0;
    for (let i = 0; i <= Math.min(radius, length - 1); i += 1) sum += from[base + i * step];
    for (let i = 0; i < length; i += 1) {
      to[base + i * step] = sum * scale;
      const enter = i + radius + 1;
      const leave = i - radius;
      if (enter < length) sum += from[base + enter * step];
      if (leave >= 0) sum -= from[base + leave * step];
    }
  }
}

/** A blurred copy of `plane` (width × height floats). */
export function gaussianBlur(plane: Float32Array, width: number, height: number, sigma: number): Float32Array {
  const out = Float32Array.from(plane);
  if (sigma < 0.5) return out;
  const scratch = new Float32Array(plane.length);
  for (const radius of boxRadii(sigma)) {
    if (radius < 1) continue;
    boxPass(out, scratch, height, width, width, 1, radius);
    boxPass(scratch, out, width, height, 1, width, radius);
  }
  return out;
}
