/**
 * @module The visible label on every generated AI photo, like the SIMULATED caption of the
 * procedural pictures: a dark strip along the bottom with pixel-font text (SVG paths, no
 * installed fonts), saying the photo is a template face swap, not a generative model.
 */
import { TEXT_HEIGHT_UNITS, textPath, textWidth } from '../../local/pixel-font.ts';

/** Height of the strip for a picture of this size (tests look there). */
export function labelHeight(width: number, height: number): number {
  return Math.max(14, Math.round(Math.max(width, height) * 0.035));
}

/** The label of photo `index` (from 0): short, so it stays legible; the seed is in the result. */
export function labelText(index: number): string {
  return `TEMPLATE FACE SWAP - NOT A GENERATIVE MODEL  #${index + 1}`;
}

/** The label strip as an SVG of `width` × `bar` (composited along the picture's bottom edge). */
export function labelSvg(width: number, bar: number, text: string): string {
  const wanted = Math.max(1, Math.floor((bar * 0.6) / TEXT_HEIGHT_UNITS));
  const scale = Math.min(wanted, Math.max(1, Math.floor((width * 0.94) / Math.max(1, textWidth(text, 1)))));
  const top = Math.round((bar - TEXT_HEIGHT_UNITS * scale) / 2);
  const left = Math.max(2, Math.round((width - textWidth(text, scale)) / 2));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${bar}"><rect width="${width}" height="${bar}" fill="#000" opacity="0.66"/><path d="${textPath(text, left, top, scale)}" fill="#fff"/></svg>`;
}
