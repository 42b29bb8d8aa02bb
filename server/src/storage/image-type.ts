/**
 * @module Recognises an image by its first bytes (never by file name or declared type):
 * jpeg, png, gif, webp, the types we accept and store. `inspectImage` also decodes the
 * header (sharp), so a file that only starts like an image, or claims absurd dimensions,
 * is told apart before anything decodes its pixels.
 */
import sharp, { type Metadata } from 'sharp';

export interface ImageType {
  contentType: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
  extension: 'jpg' | 'png' | 'gif' | 'webp';
}

/** 40 megapixels: larger than any camera photo, far below a decompression bomb. */
export const MAX_IMAGE_PIXELS = 40_000_000;

const startsWith = (data: Uint8Array, bytes: number[], offset = 0) => bytes.every((b, i) => data[offset + i] === b);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

export function detectImageType(data: Uint8Array): ImageType | undefined {
  if (startsWith(data, [0xff, 0xd8, 0xff])) return { contentType: 'image/jpeg', extension: 'jpg' };
  if (startsWith(data, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { contentType: 'image/png', extension: 'png' };
  if (startsWith(data, ascii('GIF87a')) || startsWith(data, ascii('GIF89a'))) return { contentType: 'image/gif', extension: 'gif' };
  if (startsWith(data, ascii('RIFF')) && startsWith(data, ascii('WEBP'), 8)) return { contentType: 'image/webp', extension: 'webp' };
  return undefined;
}

const SHARP_FORMATS: Record<ImageType['contentType'], string> = { 'image/jpeg': 'jpeg', 'image/png': 'png', 'image/gif': 'gif', 'image/webp': 'webp' };

export type ImageInspection =
  | { ok: true; type: ImageType; width: number; height: number }
  /** `type`: not jpeg, png, gif or webp by its bytes; `unreadable`: the header does not decode as that type. */
  | { ok: false; problem: 'type' | 'unreadable' };

/**
 * The type (from the magic bytes) and the dimensions (from the decoded header) of an image.
 *
 * @example
 * const info = await inspectImage(bytes)
 * if (info.ok && info.width * info.height <= MAX_IMAGE_PIXELS) store(bytes, info.type.contentType)
 */
export async function inspectImage(data: Uint8Array): Promise<ImageInspection> {
  const type = detectImageType(data);
  if (!type) return { ok: false, problem: 'type' };
  let meta: Metadata;
  try {
    meta = await sharp(data).metadata();
  } catch {
    return { ok: false, problem: 'unreadable' };
  }
  if (meta.format !== SHARP_FORMATS[type.contentType] || !meta.width || !meta.height) return { ok: false, problem: 'unreadable' };
  return { ok: true, type, width: meta.width, height: meta.height };
}
