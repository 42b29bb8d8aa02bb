/**
 * @module Describe on the local engine. The measurements are real: sharp's statistics of
 * the picture (dominant colour, sharpness, entropy), a colour census of a 64 px copy (the
 * named colours that cover it, saturation, brightness, contrast, whether the top is brighter
 * than the bottom), its orientation and aspect ratio, and, when a face counter is configured
 * (the local face engine, see face-census.ts), how many faces it shows. The wording is not: no
 * captioning model runs here, so the prompts are templates filled with those measurements and
 * cannot name what the picture shows (a fox, a castle). Results say so (`simulated: true`).
 */
import sharp, { type OutputInfo, type Stats } from 'sharp';
import { EngineError } from '../engine.ts';

/** Counts the faces in a picture (bytes of a jpeg/png/gif/webp). */
export type FaceCounter = (image: Buffer, signal: AbortSignal) => Promise<number>;

export interface ImageStatistics {
  width: number;
  height: number;
  orientation: 'square' | 'portrait' | 'landscape';
  /** The nearest of Midjourney's usual ratios, for `--ar`. */
  aspectRatio: string;
  /** Mean luma, 0 (black) – 1 (white). */
  brightness: number;
  /** Standard deviation of luma, 0–1. */
  contrast: number;
  /** Mean HSL saturation, 0–1. */
  saturation: number;
  /** sharp's estimate (mean Laplacian); higher is crisper. */
  sharpness: number;
  /** sharp's entropy of the greyscale histogram (bits, 0–8). */
  entropy: number;
  /** sharp's dominant colour, as #rrggbb. */
  dominant: string;
  /** The named colours covering at least 4 % of the picture, largest share first (at most 4). */
  palette: { name: string; share: number }[];
  /** Mean luma of the top third minus that of the bottom third. */
  topMinusBottom: number;
  /** Faces found, when a face counter ran. */
  faces?: number;
}

const hex = (r: number, g: number, b: number) => `#${[r, g, b].map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;

function hsl(r: number, g: number, b: number): { h: number; s: number; l: number } {
  const [rn, gn, bn] = [r / 255, g / 255, b / 255];
  const max = Math.max(rn, gn, bn);
  const min = Math.min(rn, gn, bn);
  const l = (max + min) / 2;
  if (max === min) return { h: 0, s: 0, l };
  const d = max - min;
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  let h: number;
  if (max === rn) h = ((gn - bn) / d + (gn < bn ? 6 : 0)) * 60;
  else if (max === gn) h = ((bn - rn) / d + 2) * 60;
  else h = ((rn - gn) / d + 4) * 60;
  return { h, s, l };
}

/** A plain colour word for a pixel. */
function colourName(r: number, g: number, b: number): string {
  const { h, s, l } = hsl(r, g, b);
  if (l < 0.12) return 'black';
  if (l > 0.9 && s < 0.35) return 'white';
  if (s < 0.15) return l < 0.35 ? 'charcoal' : 'grey';
  if (h < 15 || h >= 335) return l > 0.72 ? 'pink' : l < 0.3 ? 'maroon' : 'red';
  if (h < 40) return l < 0.35 ? 'brown' : 'orange';
  if (h < 65) return l < 0.3 ? 'olive' : 'yellow';
  if (h < 160) return 'green';
  if (h < 195) return 'teal';
  if (h < 250) return l < 0.28 ? 'navy' : 'blue';
  if (h < 290) return 'purple';
  return 'magenta';
}

const RATIOS: ReadonlyArray<[string, number]> = [
  ['1:1', 1],
  ['4:3', 4 / 3],
  ['3:2', 3 / 2],
  ['16:9', 16 / 9],
  ['3:4', 3 / 4],
  ['2:3', 2 / 3],
  ['9:16', 9 / 16],
];

function nearestRatio(width: number, height: number): string {
  const ratio = width / height;
  return RATIOS.reduce((best, candidate) => (Math.abs(Math.log(candidate[1] / ratio)) < Math.abs(Math.log(best[1] / ratio)) ? candidate : best))[0];
}

/** Measures `image` (see the module comment). */
export async function measureImage(image: Buffer, maxInputPixels: number, faces?: { count: FaceCounter; signal: AbortSignal }): Promise<ImageStatistics> {
  let stats: Stats;
  let small: { data: Buffer; info: OutputInfo };
  let width: number;
  let height: number;
  try {
    const meta = await sharp(image, { limitInputPixels: maxInputPixels }).metadata();
    width = meta.autoOrient?.width ?? meta.width ?? 0;
    height = meta.autoOrient?.height ?? meta.height ?? 0;
    stats = await sharp(image, { limitInputPixels: maxInputPixels }).stats();
    small = await sharp(image, { limitInputPixels: maxInputPixels })
      .rotate()
      .flatten({ background: '#ffffff' })
      .resize(64, 64, { fit: 'inside' })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (error) {
    throw new EngineError('invalid_input', 'The image could not be read.', { detail: error instanceof Error ? error.message : String(error), cause: error });
  }
  if (!(width > 0 && height > 0)) throw new EngineError('invalid_input', 'The image could not be read.', { detail: 'no dimensions' });
  const { data, info } = small;
  const channels = info.channels;
  const pixels = info.width * info.height;
  const counts = new Map<string, number>();
  let lumaSum = 0;
  let lumaSq = 0;
  let satSum = 0;
  let topSum = 0;
  let topCount = 0;
  let bottomSum = 0;
  let bottomCount = 0;
  for (let i = 0; i < pixels; i += 1) {
    const [r, g, b] = [data[i * channels], data[i * channels + 1], data[i * channels + 2]];
    const luma = (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
    lumaSum += luma;
    lumaSq += luma * luma;
    satSum += hsl(r, g, b).s;
    const name = colourName(r, g, b);
    counts.set(name, (counts.get(name) ?? 0) + 1);
    const row = Math.floor(i / info.width);
    if (row < info.height / 3) {
      topSum += luma;
      topCount += 1;
    } else if (row >= (info.height * 2) / 3) {
      bottomSum += luma;
      bottomCount += 1;
    }
  }
  const brightness = lumaSum / pixels;
  const palette = [...counts.entries()]
    .map(([name, count]) => ({ name, share: Math.round((count / pixels) * 100) / 100 }))
    .filter((entry) => entry.share >= 0.04)
    .sort((a, b) => b.share - a.share || a.name.localeCompare(b.name))
    .slice(0, 4);
  const measured: ImageStatistics = {
    width,
    height,
    orientation: width === height ? 'square' : width > height ? 'landscape' : 'portrait',
    aspectRatio: nearestRatio(width, height),
    brightness: round(brightness),
    contrast: round(Math.sqrt(Math.max(0, lumaSq / pixels - brightness * brightness))),
    saturation: round(satSum / pixels),
    sharpness: round(stats.sharpness),
    entropy: round(stats.entropy),
    dominant: hex(stats.dominant.r, stats.dominant.g, stats.dominant.b),
    palette,
    topMinusBottom: round((topCount ? topSum / topCount : 0) - (bottomCount ? bottomSum / bottomCount : 0)),
  };
  if (faces) {
    // the faces are one measurement among many: without them the description still stands
    measured.faces = await faces.count(image, faces.signal).catch(() => undefined);
    if (measured.faces === undefined) delete measured.faces;
  }
  return measured;
}

const round = (value: number) => Math.round(value * 1000) / 1000;

function colours(stats: ImageStatistics): [string, string] {
  const [first, second] = stats.palette;
  const main = first?.name ?? 'grey';
  return [main, second?.name ?? (main === 'black' ? 'white' : 'black')];
}

function lightWord(stats: ImageStatistics): string {
  if (stats.brightness < 0.2) return 'low-key night lighting';
  if (stats.brightness < 0.4) return 'moody dim lighting';
  if (stats.brightness < 0.65) return 'soft natural light';
  if (stats.brightness < 0.85) return 'bright airy light';
  return 'high-key washed-out light';
}

const contrastWord = (stats: ImageStatistics) =>
  stats.contrast < 0.08 ? 'flat low contrast' : stats.contrast < 0.22 ? 'gentle contrast' : 'dramatic high contrast';

function saturationWord(stats: ImageStatistics): string {
  if (stats.saturation < 0.12) return 'monochrome';
  if (stats.saturation < 0.35) return 'muted';
  if (stats.saturation < 0.6) return 'rich';
  return 'vivid saturated';
}

const detailWord = (stats: ImageStatistics) => (stats.entropy < 2 ? 'minimalist' : stats.entropy < 5 ? 'simple' : 'intricately detailed');
const focusWord = (stats: ImageStatistics) => (stats.sharpness < 1 ? 'soft focus' : stats.sharpness < 4 ? 'clean focus' : 'crisp sharp detail');

function subject(stats: ImageStatistics): string {
  if (stats.faces === 1) return 'a portrait of one person';
  if (stats.faces && stats.faces > 1) return `a group portrait of ${stats.faces} people`;
  if (stats.topMinusBottom > 0.12) return 'a wide scene with a bright sky above a darker ground';
  if (stats.topMinusBottom < -0.12) return 'a scene with a dark top fading into a bright foreground';
  return stats.orientation === 'portrait'
    ? 'a tall vertical composition'
    : stats.orientation === 'landscape'
      ? 'a wide panoramic composition'
      : 'a centred square composition';
}

/** Four Midjourney-style prompts worded from the measurements (deterministic). */
export function describePrompts(stats: ImageStatistics): string[] {
  const [main, second] = colours(stats);
  const ar = ` --ar ${stats.aspectRatio}`;
  return [
    `${subject(stats)}, dominated by ${main} and ${second}, ${saturationWord(stats)} colours, ${lightWord(stats)}${ar}`,
    `${detailWord(stats)} ${main} ${stats.orientation} image with ${second} accents, ${contrastWord(stats)}, ${focusWord(stats)}${ar}`,
    `${saturationWord(stats)} ${main} colour palette, ${lightWord(stats)}, ${detailWord(stats)} textures, ${subject(stats)}${ar}`,
    `photograph in ${main}, ${second} and ${stats.dominant} tones, ${contrastWord(stats)}, ${focusWord(stats)}, ${stats.orientation} framing${ar}`,
  ];
}

/** One descriptive paragraph (Ideogram describe), from the same measurements. */
export function describeParagraph(stats: ImageStatistics): string {
  const [main, second] = colours(stats);
  const first = subject(stats);
  return (
    `${first.charAt(0).toUpperCase()}${first.slice(1)} in a ${stats.orientation} ${stats.aspectRatio} frame. ` +
    `The palette is ${saturationWord(stats)}, mostly ${main} with ${second}, under ${lightWord(stats)} and ${contrastWord(stats)}; ` +
    `the image is ${detailWord(stats)} with ${focusWord(stats)}.`
  );
}
