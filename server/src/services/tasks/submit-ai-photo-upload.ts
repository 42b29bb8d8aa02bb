/**
 * @module POST /ai-photo-upload (spec §3, §5, §7): 10–30 photos of one person as base64 and
 * who they show. Each photo is decoded and judged by its bytes (jpeg, png or webp that sharp
 * can read, at most 10 MB and 40 megapixels, no photo twice), every problem answered at once
 * as a 400 naming the photo (`images[3]: not a JPEG, PNG or WebP image`). The photos are
 * stored in the media store before the task exists (the worker reads them from there), and
 * only after a balance check, so a short balance stores nothing. The upload can be trained on
 * until its `expires_at` (UPLOAD_TTL_MS).
 */
import { createHash, randomUUID } from 'node:crypto';
import { ApiError, type ErrorEntry } from '../../errors.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { decodeBase64Image } from '../../storage/base64-image.ts';
import { detectImageType, inspectImage, MAX_IMAGE_PIXELS } from '../../storage/image-type.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { MAX_AI_PHOTO_BYTES, UPLOAD_TTL_MS } from './ai-photo-rules.ts';
import { type WebhookInput, webhookOf } from './submit-inputs.ts';
import { assertCanCreateTask, createTask, type TaskDeps } from './create-task.ts';

export interface AiPhotoUploadInput extends WebhookInput {
  images: string[];
  ethnicity: string;
  gender: 'male' | 'female';
  age: number;
}

interface Photo {
  data: Buffer;
  contentType: string;
  extension: string;
}

const PHOTO_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp']);
// a body can carry many bad photos; the first few are enough to act on
const MAX_PROBLEMS = 10;

/** Every photo decoded and checked, or a 400 listing what is wrong with which (first ten). */
async function checkedPhotos(images: readonly string[]): Promise<Photo[]> {
  const photos: Photo[] = [];
  const problems: string[] = [];
  const seen = new Map<string, number>();
  for (const [i, text] of images.entries()) {
    if (problems.length >= MAX_PROBLEMS) break;
    const problem = (what: string) => problems.push(`images[${i}]: ${what}`);
    const decoded = decodeBase64Image(text, MAX_AI_PHOTO_BYTES);
    if (!decoded.ok) {
      problem(decoded.problem);
      continue;
    }
    const type = detectImageType(decoded.data);
    const image = type && PHOTO_TYPES.has(type.contentType) ? await inspectImage(decoded.data) : undefined;
    if (!image) problem('not a JPEG, PNG or WebP image');
    else if (!image.ok) problem('the image could not be read (damaged or cut short)');
    else if (image.width * image.height > MAX_IMAGE_PIXELS) problem(`larger than ${MAX_IMAGE_PIXELS / 1_000_000} megapixels`);
    else {
      const hash = createHash('sha256').update(decoded.data).digest('hex');
      const first = seen.get(hash);
      if (first !== undefined) problem(`the same photo as images[${first}]`);
      else {
        seen.set(hash, i);
        photos.push({ data: decoded.data, contentType: image.type.contentType, extension: image.type.extension });
      }
    }
  }
  if (problems.length > 0) {
    const [first, ...rest] = problems;
    throw new ApiError(
      'validation_failed',
      first,
      rest.map((msg): ErrorEntry => ({ msg, code: 'validation_failed' })),
    );
  }
  return photos;
}

export async function submitAiPhotoUpload(deps: TaskDeps & { media: MediaStore }, account: Account, input: AiPhotoUploadInput): Promise<{ task_id: string }> {
  const webhook = webhookOf(input);
  const photos = await checkedPhotos(input.images);
  await assertCanCreateTask(deps, account, { type: 'ai-photo-upload' });
  const id = randomUUID();
  const urls = await Promise.all(
    photos.map((photo, i) => deps.media.put(`ai-photo-${id}-${String(i + 1).padStart(2, '0')}.${photo.extension}`, photo.data, photo.contentType)),
  );
  return createTask(deps, account, {
    id,
    type: 'ai-photo-upload',
    prompt: null,
    inputData: { ethnicity: input.ethnicity, gender: input.gender, age: input.age, images: urls },
    expiresAt: new Date(Date.now() + UPLOAD_TTL_MS),
    webhook,
  });
}
