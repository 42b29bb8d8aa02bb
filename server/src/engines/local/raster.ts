/**
 * @module sharp pipelines of the local engine. All pixel work happens inside libvips on the
 * libuv thread pool, so the event loop stays free without a worker thread. Each step is its
 * own pipeline because sharp applies extract/resize/composite at fixed stages, not in call
 * order (local-engine.md §1).
 */
import sharp, { type Sharp } from 'sharp';
import { EngineError, type CellIndex, type UpscaleType } from '../engine.ts';

export type OutputFormat = 'png' | 'webp' | 'jpeg';

/** Decoded RGB pixels. */
export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
}

export interface EncodedImage {
  data: Buffer;
  contentType: string;
  width: number;
  height: number;
}

const CONTENT_TYPES: Record<OutputFormat, string> = { png: 'image/png', webp: 'image/webp', jpeg: 'image/jpeg' };

function fromRaw(image: RawImage): Sharp {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } });
}

async function toRaw(pipeline: Sharp): Promise<RawImage> {
  // compositing or an alpha input yields 4 channels; the rest of the engine assumes RGB
  const { data, info } = await pipeline.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`expected 3 channels, got ${info.channels}`);
  return { data, width: info.width, height: info.height };
}

export function rasteriseSvg(svg: string): Promise<RawImage> {
  return toRaw(sharp(Buffer.from(svg)));
}

export async function encode(image: RawImage, format: OutputFormat): Promise<EncodedImage> {
  const pipeline = fromRaw(image);
  const data = await (format === 'png'
    ? pipeline.png({ compressionLevel: 6 })
    : format === 'webp'
      ? pipeline.webp({ quality: 90 })
      : pipeline.jpeg({ quality: 90, mozjpeg: true })
  ).toBuffer();
  return { data, contentType: CONTENT_TYPES[format], width: image.width, height: image.height };
}

/** Lays four equally sized cells out as a 2×2 grid, row by row (cell 1 top-left). */
export async function composeGrid(cells: RawImage[]): Promise<RawImage> {
  const { width, height } = cells[0];
  const canvas = sharp({ create: { width: width * 2, height: height * 2, channels: 3, background: '#000' } }).composite(
    cells.map((cell, i) => ({
      input: cell.data,
      raw: { width, height, channels: 3 as const },
      left: (i % 2) * width,
      top: Math.floor(i / 2) * height,
    })),
  );
  const { data, info } = await canvas.raw().toBuffer({ resolveWithObject: true });
  return toRaw(sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }));
}

/** Decodes an image we are given (a parent task's output), within a pixel budget. */
export async function decode(input: Uint8Array, maxInputPixels: number): Promise<RawImage> {
  try {
    return await toRaw(sharp(input, { limitInputPixels: maxInputPixels }));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/pixel limit/i.test(message)) {
      throw new EngineError('too_large', 'The source image is too large.', { detail: message, cause: error });
    }
    throw new EngineError('invalid_input', 'The source image could not be read.', { detail: message, cause: error });
  }
}

export async function extractCell(grid: RawImage, index: CellIndex): Promise<RawImage> {
  const width = Math.floor(grid.width / 2);
  const height = Math.floor(grid.height / 2);
  return toRaw(fromRaw(grid).extract({ left: ((index - 1) % 2) * width, top: Math.floor((index - 1) / 2) * height, width, height }));
}

/**
 * One variation candidate: a slight seeded zoom and recolour of the parent cell, with the
 * overlay (new motifs and the caption) on top. The zoom window stays above the bottom
 * `keepOutBottom` pixels so the parent's own caption does not show through the new one.
 */
export async function varyCell(
  cell: RawImage,
  tweak: { zoom: number; offsetX: number; offsetY: number; hue: number; saturation: number; brightness: number },
  keepOutBottom: number,
  overlaySvg: string,
): Promise<RawImage> {
  const usableHeight = cell.height - keepOutBottom;
  const height = Math.max(1, Math.round(usableHeight * (1 - tweak.zoom)));
  const width = Math.max(1, Math.min(cell.width, Math.round((cell.width * height) / cell.height)));
  const zoomed = await toRaw(
    fromRaw(cell)
      .extract({
        left: Math.round((cell.width - width) * tweak.offsetX),
        top: Math.round((usableHeight - height) * tweak.offsetY),
        width,
        height,
      })
      .resize(cell.width, cell.height, { kernel: 'lanczos3' }),
  );
  return toRaw(
    fromRaw(zoomed)
      .modulate({ hue: tweak.hue, saturation: tweak.saturation, brightness: tweak.brightness })
      .composite([{ input: Buffer.from(overlaySvg) }]),
  );
}

export const UPSCALE_FACTORS: Record<UpscaleType, number> = { '1x': 1, subtle: 2, creative: 2, '2x': 2, '4x': 4 };

/**
 * Real enlargement with lanczos3. subtle and creative are both 2× and differ in the
 * finishing: subtle barely sharpens, creative sharpens harder and lifts colour and contrast.
 */
export function upscale(image: RawImage, type: UpscaleType): Promise<RawImage> {
  const factor = UPSCALE_FACTORS[type];
  if (factor === 1) return Promise.resolve(image);
  let pipeline = fromRaw(image).resize(image.width * factor, image.height * factor, { kernel: 'lanczos3' });
  if (type === 'subtle') pipeline = pipeline.sharpen({ sigma: 0.5 });
  if (type === 'creative') pipeline = pipeline.sharpen({ sigma: 1.2, m1: 1.5, m2: 3 }).modulate({ saturation: 1.12 }).linear(1.06, -7);
  return toRaw(pipeline);
}

/** Applies process-wide sharp settings (libvips threads per operation, no op cache). */
export function configureSharp(options: { threads?: number }): void {
  if (options.threads !== undefined) sharp.concurrency(options.threads);
  // renders are never repeated within a process, so libvips' operation cache only holds memory
  sharp.cache(false);
}

/** Decodes `input` (a user's picture) resized to cover exactly `width`×`height` (centred crop), as RGB. */
export async function decodeCover(input: Uint8Array, width: number, height: number, maxInputPixels: number): Promise<RawImage> {
  const decoded = await decode(input, maxInputPixels);
  if (decoded.width === width && decoded.height === height) return decoded;
  return toRaw(fromRaw(decoded).resize(width, height, { fit: 'cover', position: 'centre', kernel: 'lanczos3' }));
}

/** `image` with an SVG of the same size laid over it (captions, labels). */
export async function overlay(image: RawImage, svg: string): Promise<RawImage> {
  const { data, info } = await fromRaw(image)
    .composite([{ input: Buffer.from(svg) }])
    .raw()
    .toBuffer({ resolveWithObject: true });
  return toRaw(sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }));
}

/**
 * A mask picture as one byte per pixel of a `width`×`height` image: 1 where the mask is
 * bright (luminance ≥ 128 after transparent pixels are flattened onto black), else 0. Scaled
 * with nearest-neighbour, so it stays a hard mask.
 */
export async function decodeMask(input: Uint8Array, width: number, height: number, maxInputPixels: number): Promise<Uint8Array> {
  let grey: Buffer;
  try {
    grey = await sharp(input, { limitInputPixels: maxInputPixels })
      .flatten({ background: '#000000' })
      .greyscale()
      .resize(width, height, { fit: 'fill', kernel: 'nearest' })
      .extractChannel(0)
      .raw()
      .toBuffer();
  } catch (error) {
    throw new EngineError('invalid_input', 'The mask could not be read.', { detail: error instanceof Error ? error.message : String(error), cause: error });
  }
  const mask = new Uint8Array(width * height);
  for (let i = 0; i < mask.length; i += 1) mask[i] = grey[i] >= 128 ? 1 : 0;
  return mask;
}

/** Lanczos3 to exactly `width`×`height` (a grid preview, an Ideogram upscale). */
export function resizeExact(image: RawImage, width: number, height: number): Promise<RawImage> {
  if (image.width === width && image.height === height) return Promise.resolve(image);
  return toRaw(fromRaw(image).resize(width, height, { fit: 'fill', kernel: 'lanczos3' }));
}

/** An enlargement with a finish: `sharpenSigma` (0: none) and a colour lift `saturation` (1: none). */
export function enlarge(image: RawImage, factor: number, finish: { sharpenSigma: number; saturation: number }): Promise<RawImage> {
  let pipeline = fromRaw(image).resize(Math.round(image.width * factor), Math.round(image.height * factor), { kernel: 'lanczos3' });
  if (finish.sharpenSigma > 0) pipeline = pipeline.sharpen({ sigma: finish.sharpenSigma });
  if (finish.saturation !== 1) pipeline = pipeline.modulate({ saturation: finish.saturation });
  return toRaw(pipeline);
}
