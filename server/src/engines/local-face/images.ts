/**
 * @module Decoding and encoding for the face engine, with sharp on the main thread (libvips
 * works on the libuv pool, so the event loop stays free): checks the pixel budget from the
 * header before decoding, applies EXIF orientation, and makes the smaller copy the detector
 * reads.
 */
import sharp, { type Sharp } from 'sharp';
import { EngineError } from '../engine.ts';
import type { PreparedImage, RgbImage } from './protocol.ts';

export interface PrepareOptions {
  /** Largest accepted input, in pixels. */
  maxPixels: number;
  /** Longest side of the detection copy. */
  detectionSize: number;
  /** Longest side kept for the pixel work (the target is always kept whole). */
  maxSide?: number;
}

const unreadable = (which: string, cause: unknown) =>
  new EngineError('invalid_input', `The ${which} image could not be read`, {
    retryable: false,
    detail: cause instanceof Error ? cause.message : String(cause),
    cause,
  });

async function toRgb(pipeline: Sharp): Promise<RgbImage> {
  const { data, info } = await pipeline.flatten({ background: '#ffffff' }).toColourspace('srgb').raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`expected 3 channels, got ${info.channels}`);
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

/** Decodes one input picture (`which`: source or target, for the messages). */
export async function prepareImage(input: Buffer, which: 'source' | 'target', options: PrepareOptions): Promise<PreparedImage> {
  let width: number;
  let height: number;
  try {
    const meta = await sharp(input).metadata();
    // orientations 5–8 are stored turned a quarter
    const turned = (meta.orientation ?? 1) >= 5;
    width = turned ? meta.height : meta.width;
    height = turned ? meta.width : meta.height;
  } catch (error) {
    throw unreadable(which, error);
  }
  if (!(width > 0 && height > 0)) throw unreadable(which, new Error('no dimensions'));
  if (width * height > options.maxPixels) {
    throw new EngineError(
      'invalid_input',
      `Image too large: the ${which} image has ${width}×${height} pixels; the limit is ${Math.round(options.maxPixels / 1e6)} megapixels`,
      {
        retryable: false,
        detail: `${width}x${height} > ${options.maxPixels}`,
      },
    );
  }
  try {
    const oriented = () => sharp(input, { limitInputPixels: options.maxPixels }).rotate();
    const longest = Math.max(width, height);
    const pixels = await toRgb(
      options.maxSide && longest > options.maxSide ? oriented().resize(options.maxSide, options.maxSide, { fit: 'inside' }) : oriented(),
    );
    // the pixels are the detector's copy when they are already small enough
    if (longest <= options.detectionSize || (options.maxSide !== undefined && options.maxSide <= options.detectionSize)) return { pixels };
    const detection = await toRgb(oriented().resize(options.detectionSize, options.detectionSize, { fit: 'inside' }));
    return { pixels, detection };
  } catch (error) {
    throw unreadable(which, error);
  }
}

/** The result as PNG. */
export async function encodePng(image: RgbImage): Promise<Buffer> {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } })
    .png({ compressionLevel: 6 })
    .toBuffer();
}

/** A picture as JPEG (quality 90, mozjpeg): AI photo crops and generations. */
export async function encodeJpeg(image: RgbImage): Promise<Buffer> {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } })
    .jpeg({ quality: 90, mozjpeg: true })
    .toBuffer();
}
