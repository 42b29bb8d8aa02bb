/**
 * @module POST /upload: an image a client wants to use in a prompt, stored in the media
 * store under a fresh key. The type is read from the bytes (never the file name or the
 * declared type) and the header decoded by sharp, so the URL only ever serves a real
 * jpeg, png, gif or webp within the size and pixel limits. The upload is recorded (and a free
 * account's daily quota enforced) before it is stored; it expires unless a task uses it
 * (services/uploads/upload-quota.ts).
 */
import { randomUUID } from 'node:crypto';
import { ApiError } from '../../errors.ts';
import { inspectImage, MAX_IMAGE_PIXELS } from '../../storage/image-type.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { storeUpload, type UploadDeps } from '../uploads/store-upload.ts';

export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

export const UPLOAD_TOO_LARGE_MESSAGE = 'Image must be at most 10 MB';
export const UPLOAD_TYPE_MESSAGE = 'Only jpeg, png, gif and webp images are accepted';

export async function uploadImage(deps: UploadDeps & { media: MediaStore }, userId: string, data: Buffer): Promise<{ imageURL: string; expires_at: string }> {
  if (data.length === 0) throw new ApiError('validation_failed', 'image: The file is empty');
  if (data.length > MAX_UPLOAD_BYTES) throw new ApiError('payload_too_large', UPLOAD_TOO_LARGE_MESSAGE);
  const image = await inspectImage(data);
  if (!image.ok && image.problem === 'type') throw new ApiError('unsupported_media_type', UPLOAD_TYPE_MESSAGE);
  if (!image.ok) throw new ApiError('bad_request', 'The image could not be read');
  if (image.width * image.height > MAX_IMAGE_PIXELS) {
    throw new ApiError('payload_too_large', `Image must be at most ${MAX_IMAGE_PIXELS / 1_000_000} megapixels`);
  }
  const stored = await storeUpload(deps, userId, `upload-${randomUUID()}.${image.type.extension}`, data, image.type.contentType);
  return { imageURL: stored.url, expires_at: stored.expiresAt };
}
