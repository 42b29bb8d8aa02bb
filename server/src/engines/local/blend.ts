/**
 * @module Blend on the local engine: a real pixel composite of the 2–5 input pictures, each
 * resized to cover the chosen frame, mixed with a different weighting per candidate (even
 * mix, left-to-right bands, top-to-bottom bands, a diagonal sweep). No model fuses their
 * content, so the result is labelled SIMULATED in its caption.
 */
import type { RawImage } from './raster.ts';

/** How each candidate weighs the inputs at a pixel: `t` in [0, 1] is the position along its sweep. */
const SWEEPS: ReadonlyArray<((x: number, y: number) => number) | undefined> = [
  undefined, // an even mix
  (x) => x,
  (_x, y) => y,
  (x, y) => (x + y) / 2,
];

/**
 * Weight of input `i` of `n` at position `t` of a sweep: a smooth bump centred on the input's
 * place along the sweep, so each input dominates its band and fades into its neighbours.
 */
function bump(i: number, n: number, t: number): number {
  const centre = n === 1 ? 0.5 : i / (n - 1);
  const spread = 1 / Math.max(1, n - 1);
  const d = (t - centre) / spread;
  return Math.exp(-d * d * 1.5);
}

/** Candidate `variant` (0–3): all `inputs` (same size) mixed with that candidate's weighting. */
export function composite(inputs: readonly RawImage[], variant: number): RawImage {
  const { width, height } = inputs[0];
  const out = Buffer.alloc(width * height * 3);
  const n = inputs.length;
  const sweep = SWEEPS[variant % SWEEPS.length];
  const weights = new Float64Array(n);
  for (let y = 0; y < height; y += 1) {
    const ty = height > 1 ? y / (height - 1) : 0.5;
    for (let x = 0; x < width; x += 1) {
      const tx = width > 1 ? x / (width - 1) : 0.5;
      let total = 0;
      for (let i = 0; i < n; i += 1) {
        weights[i] = sweep ? bump(i, n, sweep(tx, ty)) : 1;
        total += weights[i];
      }
      const at = (y * width + x) * 3;
      for (let c = 0; c < 3; c += 1) {
        let sum = 0;
        for (let i = 0; i < n; i += 1) sum += weights[i] * inputs[i].data[at + c];
        out[at + c] = Math.round(sum / total);
      }
    }
  }
  return { data: out, width, height };
}
