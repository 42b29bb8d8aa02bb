/**
 * @module Colour grades for generated AI photos, chosen from the prompt's words (first listed
 * match wins): noir, vintage (sepia), cyberpunk (neon), cinematic, business, or a light
 * default; then the light the prompt asks for (bright, warm, soft, low) and, for a repeated
 * template, a light variant: sharp's recomb, modulate and linear, a vignette, the label on top.
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

export type LightName = 'bright' | 'warm' | 'soft' | 'low' | 'even';

const LIGHT_WORDS: readonly [RegExp, LightName][] = [
  [/\b(bright|sunny|sunlit|airy|high[- ]key|daylight|well[- ]lit)\b/i, 'bright'],
  [/\b(warm|golden|sunset|candle\w*)\b/i, 'warm'],
  [/\b(soft|diffused?|gentle|dreamy)\b/i, 'soft'],
  [/\b(dark|dim|low[- ]key|night|shadowy)\b/i, 'low'],
];

/** The light the prompt asks for; `even` when it names none. */
export function lightFor(prompt: string): LightName {
  return LIGHT_WORDS.find(([words]) => words.test(prompt))?.[1] ?? 'even';
}

/** The light of a repeated template's `variant` (0: as asked): the next light in turn, so a repeat never looks the same. */
export function lightVariant(light: LightName, variant: number): LightName {
  const order: readonly LightName[] = ['even', 'bright', 'warm', 'soft', 'low'];
  return variant === 0 ? light : (order[(order.indexOf(light) + variant) % order.length] ?? light);
}

function lit(pipeline: Sharp, light: LightName): Sharp {
  switch (light) {
    case 'bright':
      // high key: lifted shadows, a little less contrast, highlights kept
      return pipeline.linear(0.92, 22);
    case 'warm':
      return pipeline.linear([1.06, 1.0, 0.88], [6, 2, -4]);
    case 'soft':
      return pipeline.linear(0.86, 20).modulate({ saturation: 0.94 });
    case 'low':
      return pipeline.linear(1.12, -30);
    default:
      return pipeline;
  }
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

/** `image` lit, colour-graded, vignetted and labelled, encoded as JPEG (quality 90) or PNG. */
export async function gradeAndLabel(image: RgbImage, grade: GradeName, label: string, format: 'jpeg' | 'png', light: LightName = 'even'): Promise<Buffer> {
  const { width, height } = image;
  // the light first (its own pipeline: sharp runs one linear per pipeline), then the grade, then the layers
  const base =
    light === 'even'
      ? Buffer.from(image.data)
      : await lit(sharp(image.data, { raw: { width, height, channels: 3 } }), light)
          .raw()
          .toBuffer();
  const { pipeline, vignette } = graded(sharp(base, { raw: { width, height, channels: 3 } }), grade);
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
