/**
 * @module AI photo rules (spec §3, §5, §9) shared by the three submits, their routes and the
 * worker: the accepted values, the limits, how long an upload and a training stay usable,
 * and how a finished upload and training are read back (the person, the photos it kept).
 */
import type { PhotoSubject } from '../../engines/engine.ts';
import type { TaskRow } from '../../repositories/task-repository.ts';

export const GENDERS = ['male', 'female'] as const;

export const ETHNICITIES = ['asian', 'black', 'latino', 'middle eastern', 'native american', 'pacific islander', 'white', 'mixed', 'other'] as const;

export const MIN_AI_PHOTOS = 10;
export const MAX_AI_PHOTOS = 30;
export const AI_PHOTO_COUNT_MESSAGE = `Upload ${MIN_AI_PHOTOS} to ${MAX_AI_PHOTOS} photos`;
export const AI_PHOTO_MAX_MESSAGE = `You already selected the maximum of ${MAX_AI_PHOTOS} images`;

/** Each photo, decoded: like POST /upload. */
export const MAX_AI_PHOTO_BYTES = 10 * 1024 * 1024;

/**
 * The whole POST /ai-photo-upload body: room for 30 photos of 3 MB as base64 (what the
 * dashboard sends at most; the engines read at most 1024–2048 px, so larger photos are best
 * scaled down first). The body is parsed in memory, which is why it is not 30 × 10 MB.
 */
export const AI_PHOTO_UPLOAD_MAX_BODY_BYTES = 128 * 1024 * 1024;
export const AI_PHOTO_UPLOAD_TOO_LARGE_MESSAGE = 'Request body is too large: the photos of one upload must total at most 128 MB as base64';

export const MIN_AGE = 1;
export const MAX_AGE = 120;

export const TRIGGER_WORD_MESSAGE = 'Trigger word must be 6–12 characters';
export const MIN_TRIGGER_WORD = 6;
export const MAX_TRIGGER_WORD = 12;
/** The trigger word of a training submitted without one (APIFRAME v1's). */
export const DEFAULT_TRIGGER_WORD = 'TOKMSN';

export const MAX_GENERATED_PHOTOS = 4;
/** Custom sizes, in pixels a side (the range hosted Flux LoRA models take). */
export const MIN_PHOTO_SIDE = 256;
export const MAX_PHOTO_SIDE = 1440;

const DAY_MS = 24 * 60 * 60 * 1000;
/** An upload can be trained on for 7 days (its photos stay stored; only the training is refused). */
export const UPLOAD_TTL_MS = 7 * DAY_MS;
/** A training can be generated from for 30 days. */
export const TRAINING_TTL_MS = 30 * DAY_MS;

/** The person an upload shows, from its input_data (undefined when it is not a readable upload). */
export function subjectOf(upload: TaskRow): PhotoSubject | undefined {
  const input = upload.input_data ?? {};
  const age = Number(input.age);
  if (!GENDERS.includes(input.gender as never) || typeof input.ethnicity !== 'string' || !Number.isFinite(age)) return undefined;
  return { gender: input.gender as PhotoSubject['gender'], ethnicity: input.ethnicity, age };
}

/** The stored photo URLs of an upload, in upload order. */
export function uploadedPhotoUrls(upload: TaskRow): string[] {
  const images = upload.input_data?.images;
  return Array.isArray(images) ? images.filter((url): url is string => typeof url === 'string') : [];
}

type Verdict = Record<string, unknown>;

function isUsable(verdict: Verdict): boolean {
  for (const flag of [verdict.usable, verdict.accepted, verdict.ok]) if (typeof flag === 'boolean') return flag;
  if (typeof verdict.status === 'string') return ['ok', 'accepted', 'usable'].includes(verdict.status);
  return !(typeof verdict.reason === 'string' && verdict.reason.trim());
}

const indexOf = (verdict: Verdict, position: number) =>
  typeof verdict.index === 'number' && Number.isInteger(verdict.index) && verdict.index >= 0 ? verdict.index : position;

/**
 * Which photos of a finished upload can be trained on (0-based, upload order), from what the
 * upload check put in its result: `photos: [{ index, usable | accepted | ok | status, reason }]`
 * (one per photo; no flag but a reason means rejected) or only `rejected: [{ index, reason }]`.
 * Without verdicts (an engine that checks nothing up front) every photo counts. The same
 * reading as the dashboard's.
 *
 * @example
 * usablePhotoIndexes(upload) // [0, 1, 2, 4, …] when the fourth photo showed nobody
 */
export function usablePhotoIndexes(upload: TaskRow): number[] {
  const count = uploadedPhotoUrls(upload).length;
  const all = Array.from({ length: count }, (_, i) => i);
  const result = upload.result ?? {};
  const objects = (list: unknown[]) => list.filter((v): v is Verdict => typeof v === 'object' && v !== null);
  const list = Array.isArray(result.photos) ? result.photos : Array.isArray(result.images) ? result.images : null;
  if (list) {
    const usable = new Set(
      objects(list)
        .map((v, position) => [v, indexOf(v, position)] as const)
        .filter(([v]) => isUsable(v))
        .map(([, index]) => index),
    );
    return all.filter((i) => usable.has(i));
  }
  if (Array.isArray(result.rejected)) {
    const rejected = new Set(objects(result.rejected).map(indexOf));
    return all.filter((i) => !rejected.has(i));
  }
  return all;
}

/** True once `task.expires_at` has passed. */
export function isExpired(task: TaskRow, now = new Date()): boolean {
  return task.expires_at !== null && new Date(task.expires_at).getTime() <= now.getTime();
}
