/**
 * @module The per-photo check of AI photo uploads and trainings: each photo decoded and its
 * faces measured, one at a time, with the reason a photo cannot be used (unreadable, too
 * large, a duplicate, no face, several people, a face too small). Trainings also get the
 * largest face aligned for the identity work.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { throwIfAborted } from '../../define-engine.ts';
import type { ImageInput } from '../../engine.ts';
import { prepareImage } from '../images.ts';
import type { AlignedFace, FaceAnalysis } from '../protocol.ts';
import { analyseFaces } from './worker-calls.ts';

export interface PhotoLimits {
  /** Largest accepted photo, in pixels. */
  maxPixels: number;
  /** Longest side the faces are found on (the photo is reduced to it). */
  detectionSize: number;
  /** Narrowest usable face (cheek to cheek), in pixels of the photo as given. */
  minFaceSize: number;
}

/** A photo's verdict as the task's result keeps it; `index` counts from 0 in the order given. */
interface PhotoVerdict {
  index: number;
  ok: boolean;
  reason?: string;
  /** The earlier photo with the same bytes, for `duplicate photo`. */
  duplicate_of?: number;
  /** What makes a usable photo weaker, e.g. `low resolution (<512×512)` (the dashboard's warning, spec §5). */
  warnings?: string[];
}

/** Under 512×512 pixels (spec §9: 262144) a photo is used but warned about. */
const LOW_RESOLUTION_PIXELS = 512 * 512;
const LOW_RESOLUTION_WARNING = 'low resolution (<512×512)';

export interface CheckedPhoto {
  verdict: PhotoVerdict;
  /** The face of a usable photo, in pixels of the reduced copy. */
  face?: FaceAnalysis;
  aligned?: AlignedFace;
  /** Pixels of the photo as given per pixel of the reduced copy. */
  scale: number;
}

/** Another face at least this share of the largest face's width makes a photo a group photo. */
const SECOND_FACE_SHARE = 0.5;

const rejected = (index: number, reason: string, scale = 1): CheckedPhoto => ({ verdict: { index, ok: false, reason }, scale });

/** Width and height after EXIF orientation, or undefined when the bytes are no picture. */
async function orientedSize(data: Buffer): Promise<{ width: number; height: number } | undefined> {
  try {
    const meta = await sharp(data).metadata();
    const turned = (meta.orientation ?? 1) >= 5;
    const [width, height] = turned ? [meta.height, meta.width] : [meta.width, meta.height];
    return width > 0 && height > 0 ? { width, height } : undefined;
  } catch {
    return undefined;
  }
}

async function checkPhoto(
  photo: ImageInput,
  index: number,
  seen: Map<string, number>,
  limits: PhotoLimits,
  alignSize: number | undefined,
  signal: AbortSignal,
): Promise<CheckedPhoto> {
  const digest = createHash('sha256').update(photo.data).digest('hex');
  const earlier = seen.get(digest);
  if (earlier !== undefined) return { verdict: { index, ok: false, reason: 'duplicate photo', duplicate_of: earlier }, scale: 1 };
  seen.set(digest, index);
  const size = await orientedSize(photo.data);
  if (!size) return rejected(index, 'unreadable');
  if (size.width * size.height > limits.maxPixels) return rejected(index, `image too large (over ${Math.round(limits.maxPixels / 1e6)} megapixels)`);
  let prepared: Awaited<ReturnType<typeof prepareImage>>;
  try {
    prepared = await prepareImage(photo.data, 'source', { maxPixels: limits.maxPixels, detectionSize: limits.detectionSize, maxSide: limits.detectionSize });
  } catch {
    return rejected(index, 'unreadable');
  }
  const scale = Math.max(size.width, size.height) / Math.max(prepared.pixels.width, prepared.pixels.height);
  const { faces, aligned } = await analyseFaces(prepared, alignSize, signal);
  const [face, second] = faces;
  if (!face) return rejected(index, 'no face found', scale);
  if (second && second.faceWidth >= face.faceWidth * SECOND_FACE_SHARE) return rejected(index, 'several people', scale);
  if (face.faceWidth * scale < limits.minFaceSize) return rejected(index, `face too small (under ${limits.minFaceSize} px)`, scale);
  const warnings = size.width * size.height < LOW_RESOLUTION_PIXELS ? [LOW_RESOLUTION_WARNING] : undefined;
  return { verdict: { index, ok: true, ...(warnings && { warnings }) }, face, aligned, scale };
}

/** Checks `photos` one after the other (the face worker runs one request at a time anyway). */
export async function checkPhotos(
  photos: readonly ImageInput[],
  options: { limits: PhotoLimits; alignSize?: number },
  onChecked: (done: number) => void,
  signal: AbortSignal,
): Promise<CheckedPhoto[]> {
  const seen = new Map<string, number>();
  const checked: CheckedPhoto[] = [];
  for (const [index, photo] of photos.entries()) {
    throwIfAborted(signal);
    checked.push(await checkPhoto(photo, index, seen, options.limits, options.alignSize, signal));
    onChecked(index + 1);
  }
  return checked;
}

/** "no face found: photos 3 and 4; several people: photo 5" (photos counted from 1, reasons without their detail). */
export function describeRejections(rejections: readonly { index: number; reason: string }[]): string {
  const byReason = new Map<string, number[]>();
  for (const { index, reason } of rejections) {
    const label = reason.replace(/ \(.*\)$/, '');
    byReason.set(label, [...(byReason.get(label) ?? []), index + 1]);
  }
  const photos = (numbers: number[]) =>
    numbers.length === 1 ? `photo ${numbers[0]}` : `photos ${numbers.slice(0, -1).join(', ')} and ${numbers[numbers.length - 1]}`;
  return [...byReason].map(([label, numbers]) => `${label}: ${photos(numbers)}`).join('; ');
}
