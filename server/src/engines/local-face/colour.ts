/**
 * @module Colour and lighting of the warped face made to match the target: a Reinhard
 * transfer in CIE Lab (mean and spread of the target face's skin), then a low-frequency,
 * per-channel shading gain that carries the target's lighting over (and cancels a coloured
 * light that fell on the source).
 */
import { gaussianBlur } from './blur.ts';

/** Planes of one region: RGB floats 3 a pixel, masks 1 a pixel, `width` × `height`. */
export interface FacePlanes {
  width: number;
  height: number;
  /** The warped source face; changed in place. */
  warped: Float32Array;
  /** The target's own pixels of the same region. */
  target: Float32Array;
  /** Where the warp drew (1) or not (0). */
  mask: Float32Array;
  /** The mask eroded away from its border, where statistics are safe to take. */
  interior: Float32Array;
}

const D65 = [0.95047, 1, 1.08883];
const EPSILON = (6 / 29) ** 3;
const KAPPA = 3 * (6 / 29) ** 2;

function toLinear(value: number): number {
  const c = Math.min(Math.max(value, 0), 255) / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

function fromLinear(value: number): number {
  const c = value <= 0.0031308 ? 12.92 * value : 1.055 * Math.max(value, 0) ** (1 / 2.4) - 0.055;
  return Math.min(Math.max(c * 255, 0), 255);
}

const labF = (t: number) => (t > EPSILON ? Math.cbrt(t) : t / KAPPA + 4 / 29);
const labFInverse = (t: number) => (t > 6 / 29 ? t * t * t : KAPPA * (t - 4 / 29));

/** sRGB (0–255) at `rgb[at..at+2]` into `lab[0..2]`. */
function rgbToLab(rgb: Float32Array, at: number, lab: Float64Array): void {
  const r = toLinear(rgb[at]);
  const g = toLinear(rgb[at + 1]);
  const b = toLinear(rgb[at + 2]);
  const fx = labF((0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / D65[0]);
  const fy = labF((0.2126729 * r + 0.7151522 * g + 0.072175 * b) / D65[1]);
  const fz = labF((0.0193339 * r + 0.119192 * g + 0.9503041 * b) / D65[2]);
  lab[0] = 116 * fy - 16;
  lab[1] = 500 * (fx - fy);
  lab[2] = 200 * (fy - fz);
}

function labToRgb(lab: Float64Array, rgb: Float32Array, at: number): void {
  const fy = (lab[0] + 16) / 116;
  const x = D65[0] * labFInverse(fy + lab[1] / 500);
  const y = D65[1] * labFInverse(fy);
  const z = D65[2] * labFInverse(fy - lab[2] / 200);
  rgb[at] = fromLinear(3.2404542 * x - 1.5371385 * y - 0.4985314 * z);
  rgb[at + 1] = fromLinear(-0.969266 * x + 1.8760108 * y + 0.041556 * z);
  rgb[at + 2] = fromLinear(0.0556434 * x - 0.2040259 * y + 1.0572252 * z);
}

interface LabStats {
  mean: number[];
  std: number[];
}

function labStats(rgb: Float32Array, where: Float32Array): LabStats | undefined {
  const sum = [0, 0, 0];
  const squares = [0, 0, 0];
  const lab = new Float64Array(3);
  let count = 0;
  for (let i = 0; i < where.length; i += 1) {
    if (where[i] < 0.5) continue;
    rgbToLab(rgb, i * 3, lab);
    for (let c = 0; c < 3; c += 1) {
      sum[c] += lab[c];
      squares[c] += lab[c] * lab[c];
    }
    count += 1;
  }
  if (count < 16) return undefined;
  const mean = sum.map((s) => s / count);
  const std = squares.map((s, c) => Math.sqrt(Math.max(s / count - mean[c] * mean[c], 0)));
  return { mean, std };
}

/** Spread gains are clamped so a flat or noisy face cannot blow the colours up. */
const GAIN_LIMITS: [number, number][] = [
  [0.6, 1.6],
  [0.75, 1.3],
  [0.75, 1.3],
];

/** Reinhard colour transfer in Lab, statistics from the interior of both faces. */
export function transferColour(planes: FacePlanes): void {
  const { warped, target, mask } = planes;
  const hasInterior = planes.interior.some((value) => value >= 0.5);
  const where = hasInterior ? planes.interior : mask;
  const from = labStats(warped, where);
  const to = labStats(target, where);
  if (!from || !to) return;
  const gains = GAIN_LIMITS.map(([low, high], c) => Math.min(high, Math.max(low, from.std[c] > 1e-6 ? to.std[c] / from.std[c] : 1)));
  const lab = new Float64Array(3);
  for (let i = 0; i < mask.length; i += 1) {
    if (mask[i] === 0) continue;
    rgbToLab(warped, i * 3, lab);
    for (let c = 0; c < 3; c += 1) lab[c] = (lab[c] - from.mean[c]) * gains[c] + to.mean[c];
    labToRgb(lab, warped, i * 3);
  }
}

/**
 * Shading transfer: per channel, gain = blur(target·mask) / blur(warped·mask) (a normalised
 * convolution inside the mask; the mask's own blur cancels out), clamped to 0.6–1.6.
 */
export function transferShading(planes: FacePlanes, sigma: number): void {
  const { width, height, warped, target, mask } = planes;
  const plane = new Float32Array(mask.length);
  for (let c = 0; c < 3; c += 1) {
    for (let i = 0; i < mask.length; i += 1) plane[i] = target[i * 3 + c] * mask[i];
    const targetLight = gaussianBlur(plane, width, height, sigma);
    for (let i = 0; i < mask.length; i += 1) plane[i] = warped[i * 3 + c] * mask[i];
    const warpedLight = gaussianBlur(plane, width, height, sigma);
    for (let i = 0; i < mask.length; i += 1) {
      if (mask[i] === 0) continue;
      const gain = warpedLight[i] > 1e-3 ? Math.min(1.6, Math.max(0.6, targetLight[i] / warpedLight[i])) : 1;
      warped[i * 3 + c] = Math.min(255, warped[i * 3 + c] * gain);
    }
  }
}
