/**
 * @module POST /upload: an image a client wants to use in a prompt, stored in the media
 * store under a fresh key. The type is read from the bytes (never the file name or the
 * declared type) and the header decoded by sharp, so the URL only ever serves a real
 * jpeg, png, gif or webp within the size and pixel limits.
 */
import { randomUUID } from 'node:crypto';
import sharp, { type Metadata } from 'sharp';
import { ApiError } from '../../errors.ts';
import { detectImageType } from '../../storage/image-type.ts';
import type { MediaStore } from '../../storage/media-store.ts';

export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
/** 40 megapixels: larger than any camera photo people paste into a prompt, far below a decompression bomb. */
const MAX_UPLOAD_PIXELS = 40_000_000;

export const UPLOAD_TOO_LARGE_MESSAGE = 'Image must be at most 10 MB';
export const UPLOAD_TYPE_MESSAGE = 'Only jpeg, png, gif and webp images are accepted';

const SHARP_FORMATS: Record<string, string> = { 'image/jpeg': 'jpeg', 'image/png': 'png', 'image/gif': 'gif', 'image/webp': 'webp' };

export async function uploadImage(deps: { media: MediaStore }, file: Blob): Promise<{ imageURL: string }> {
  if (file.size === 0) throw new ApiError('validation_failed', 'image: The file is empty');
  if (file.size > MAX_UPLOAD_BYTES) throw new ApiError('payload_too_large', UPLOAD_TOO_LARGE_MESSAGE);
  const data = Buffer.from(await file.arrayBuffer());
  const type = detectImageType(data);
  if (!type) throw new ApiError('unsupported_media_type', UPLOAD_TYPE_MESSAGE);

  let meta: Metadata;
  try {
    meta = await sharp(data).metadata();
  } catch {
    throw new ApiError('bad_request', 'The image could not be read');
  }
  if (meta.format !== SHARP_FORMATS[type.contentType] || !meta.width || !meta.height) {
    throw new ApiError('bad_request', 'The image could not be read');
  }
  if (meta.width * meta.height > MAX_UPLOAD_PIXELS) {
    throw new ApiError('payload_too_large', `Image must be at most ${MAX_UPLOAD_PIXELS / 1_000_000} megapixels`);
  }
  const imageURL = await deps.media.put(`upload-${randomUUID()}.${type.extension}`, data, type.contentType);
  return { imageURL };
}
