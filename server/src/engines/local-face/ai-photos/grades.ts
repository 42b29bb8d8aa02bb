/**
 * @module Colour grades for generated AI photos, chosen from the prompt's words (first listed
 * match wins): noir, vintage (sepia), cyberpunk (neon), cinematic, business, or a light
 * default: sharp's recomb, modulate and linear, a vignette, then the label on top.
 */
import sharp, { type Matrix3x3, type OverlayOptions, type Sharp } from 'sharp';
import type { RgbImage } from '../protocol.ts';
import { labelHeight, labelSvg } from './label.ts';

export type GradeName = 'noir' | 'vintage' | 'cyberpunk' | 'cinematic' | 'business' | 'default';

const GRADE_WORDS: readonly [RegExp, GradeName][] = [
  [/\b(noir|black[- ]and[- ]white|b&w|monochrome|gr[ae]yscale)\b/i, 'noir'],
  [/\b(vintage|sepia|retro|antique|old[- ]fashioned|19[0-7]0s)\b/i, 'vintage'],
  [/\b(cyberpunk|neon|synthwave|futuristic|sci-?fi)\b/i, 'cyberpunk'],
  [/\b(cinematic|movie|film|dramatic|moody)\b/i, 'cinematic'],
  [/\b(business|corporate|linkedin|professional|office|headshot)\b/i, 'business'],
];

export function gradeFor(prompt: string): GradeName {
  return GRADE_WORDS.find(([words]) => words.test(prompt))?.[1] ?? 'default';
}

/** Luma into all three channels (greyscale() would leave one channel). */
const GREY: Matrix3x3 = [
  [0.299, 0.587, 0.114],
  [0.299, 0.587, 0.114],
  [0.299, 0.587, 0.114],
];
const SEPIA: Matrix3x3 = [
  [0.393, 0.769, 0.189],
  [0.349, 0.686, 0.168],
  [0.272, 0.534, 0.131],
];
/** Cyan-blue whites and shadows, reds toward magenta. */
const NEON: Matrix3x3 = [
  [0.95, 0, 0.15],
  [0, 0.85, 0.3],
  [0.1, 0.1, 1.2],
];

/** Side of the vignette mask before libvips enlarges it to the picture. */
const VIGNETTE_SIDE = 64;

/**
 * A multiply layer darkening the picture towards its corners (a smooth radial falloff to
 * `strength`): computed at 64 × 64 here, enlarged by libvips, so the event loop does no
 * per-pixel work.
 */
async function vignetteLayer(width: number, height: number, strength: number): Promise<Buffer> {
  const mask = Buffer.alloc(VIGNETTE_SIDE * VIGNETTE_SIDE * 3);
  for (let y = 0; y < VIGNETTE_SIDE; y += 1) {
    for (let x = 0; x < VIGNETTE_SIDE; x += 1) {
      // in picture proportions: distance from (0.5, 0.45) over the farthest corner's
      const dx = ((x + 0.5) / VIGNETTE_SIDE - 0.5) * width;
      const dy = ((y + 0.5) / VIGNETTE_SIDE - 0.45) * height;
      const r = Math.hypot(dx, dy) / Math.hypot(width / 2, height * 0.55);
      const t = Math.min(1, Math.max(0, (r - 0.55) / 0.45));
      mask.fill(Math.round(255 * (1 - strength * t * t * (3 - 2 * t))), (y * VIGNETTE_SIDE + x) * 3, (y * VIGNETTE_SIDE + x + 1) * 3);
    }
  }
  return sharp(mask, { raw: { width: VIGNETTE_SIDE, height: VIGNETTE_SIDE, channels: 3 } })
    .resize(width, height, { kernel: 'cubic', fit: 'fill' })
    .raw()
    .toBuffer();
}

function graded(pipeline: Sharp, grade: GradeName): { pipeline: Sharp; vignette: number } {
  switch (grade) {
    case 'noir':
      return { pipeline: pipeline.recomb(GREY).linear(1.3, -30), vignette: 0.55 };
    case 'vintage':
      return { pipeline: pipeline.recomb(SEPIA).linear(0.86, 20), vignette: 0.4 };
    case 'cyberpunk':
      return { pipeline: pipeline.recomb(NEON).modulate({ saturation: 1.3 }).linear(1.1, -22), vignette: 0.45 };
    case 'cinematic':
      // warm highlights, teal-leaning shadows, a touch more contrast
      return { pipeline: pipeline.linear([1.1, 1.02, 0.9], [-8, -2, 14]).modulate({ saturation: 1.08 }), vignette: 0.4 };
    case 'business':
      return { pipeline: pipeline.modulate({ brightness: 1.04, saturation: 0.92 }).linear(1.06, -6), vignette: 0 };
    default:
      return { pipeline: pipeline.modulate({ saturation: 1.05 }).linear(1.03, -3), vignette: 0.15 };
  }
}

/** `image` colour-graded, vignetted and labelled, encoded as JPEG (quality 90) or PNG. */
export async function gradeAndLabel(image: RgbImage, grade: GradeName, label: string, format: 'jpeg' | 'png'): Promise<Buffer> {
  const { width, height } = image;
  const { pipeline, vignette } = graded(sharp(image.data, { raw: { width, height, channels: 3 } }), grade);
  // the grade in one pipeline, the layers in the next (sharp composites after its colour steps anyway)
  const colour = await pipeline.raw().toBuffer({ resolveWithObject: true });
  if (colour.info.channels !== 3) throw new Error(`expected 3 channels, got ${colour.info.channels}`);
  const bar = labelHeight(width, height);
  const layers: OverlayOptions[] = [
    ...(vignette > 0
      ? [{ input: await vignetteLayer(width, height, vignette), raw: { width, height, channels: 3 as const }, blend: 'multiply' as const }]
      : []),
    // the label strip rendered at its own size, not as a full-size overlay
    { input: Buffer.from(labelSvg(width, bar, label)), left: 0, top: height - bar },
  ];
  const labelled = sharp(colour.data, { raw: { width, height, channels: 3 } })
    .composite(layers)
    .removeAlpha();
  return format === 'png' ? labelled.png({ compressionLevel: 6 }).toBuffer() : labelled.jpeg({ quality: 90 }).toBuffer();
}
