/**
 * @module AI photo calls (spec §7): POST /ai-photo-upload (10–30 photos of one person as
 * base64, checked and stored), /ai-photo-train (learn the person of a finished upload under a
 * trigger word) and /ai-photo-generate (photos of a trained person from a prompt). Each
 * answers `{ task_id }` at once and holds the price; the work runs on the task worker and is
 * followed with POST /fetch or realtime. The upload route is mounted before the app-wide
 * 1 MiB body limit with its own, sized for the photos; it checks the key and the balance from
 * the headers before reading the body, which is counted and cut at its limit.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { ApiDeps, AppEnv, AuthedEnv } from '../context.ts';
import { ApiError } from '../errors.ts';
import { apiKeyAuth } from '../middleware/api-key-auth/index.ts';
import { countedBodyLimit, uploadMemoryOf, uploadMemorySlot, type UploadMemoryDeps } from '../middleware/upload-limit/index.ts';
import { apiKeySecurity, jsonBody, jsonResponse } from '../openapi/schemas.ts';
import { createRouter } from '../openapi/router.ts';
import {
  AI_PHOTO_COUNT_MESSAGE,
  AI_PHOTO_MAX_MESSAGE,
  AI_PHOTO_UPLOAD_MAX_BODY_BYTES,
  AI_PHOTO_UPLOAD_TOO_LARGE_MESSAGE,
  DEFAULT_TRIGGER_WORD,
  ETHNICITIES,
  GENDERS,
  MAX_AGE,
  MAX_AI_PHOTO_BYTES,
  MAX_AI_PHOTOS,
  MAX_GENERATED_PHOTOS,
  MAX_PHOTO_SIDE,
  MAX_TRIGGER_WORD,
  MIN_AGE,
  MIN_AI_PHOTOS,
  MIN_PHOTO_SIDE,
  MIN_TRIGGER_WORD,
  TRAINING_TTL_MS,
  TRIGGER_WORD_MESSAGE,
  UPLOAD_TTL_MS,
} from '../services/tasks/ai-photo-rules.ts';
import { assertCanPayEarly, type TaskDeps } from '../services/tasks/create-task.ts';
import { submitAiPhotoGenerate } from '../services/tasks/submit-ai-photo-generate.ts';
import { submitAiPhotoTrain } from '../services/tasks/submit-ai-photo-train.ts';
import { submitAiPhotoUpload } from '../services/tasks/submit-ai-photo-upload.ts';
import { ASPECT_RATIOS } from '../services/tasks/task-kinds.ts';
import type { MediaStore } from '../storage/media-store.ts';
import {
  EXAMPLE_PARENT_ID,
  errorRef,
  Prompt,
  required,
  submitErrors,
  TaskId,
  TaskIdResponse,
  WebhookEvents,
  WebhookSecret,
  WebhookUrl,
} from './task-schemas.ts';
import { submitAuth } from './submit-auth.ts';
import { idempotencyKeyParameter } from '../openapi/idempotency.ts';
import { idempotency } from '../middleware/idempotency/index.ts';

const MB = 1024 * 1024;
const days = (ms: number) => ms / (24 * 60 * 60 * 1000);
const whole = (min: number, max: number) => `Must be a whole number from ${min} to ${max}`;

const Photo = z.string(required('a string')).openapi({
  description: `A jpeg, png or webp photo as base64, plain or as a data: URI (data:image/jpeg;base64,…); at most ${MAX_AI_PHOTO_BYTES / MB} MB decoded.`,
  contentEncoding: 'base64',
} as never);

const AGE_MESSAGE = whole(MIN_AGE, MAX_AGE);
const Age = z
  .union([z.number().int(AGE_MESSAGE).min(MIN_AGE, AGE_MESSAGE).max(MAX_AGE, AGE_MESSAGE), z.string().regex(/^\s*\d{1,3}\s*$/, AGE_MESSAGE)], {
    error: (issue) => (issue.input === undefined ? 'Required' : AGE_MESSAGE),
  })
  .transform(Number)
  .pipe(z.number().int(AGE_MESSAGE).min(MIN_AGE, AGE_MESSAGE).max(MAX_AGE, AGE_MESSAGE))
  .openapi({ description: `The person's age in years, ${MIN_AGE}–${MAX_AGE} (a number, or digits as a string).`, example: 32 });

// placeholders: real photos are tens of thousands of characters of base64
const EXAMPLE_PHOTOS = Array.from({ length: MIN_AI_PHOTOS }, (_, i) => `data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAYEBQYFBAYG…(photo ${i + 1})`);

const AiPhotoUploadRequest = z
  .object({
    images: z
      .array(Photo, required('an array of base64 photos'))
      .min(MIN_AI_PHOTOS, AI_PHOTO_COUNT_MESSAGE)
      .max(MAX_AI_PHOTOS, AI_PHOTO_MAX_MESSAGE)
      .openapi({ description: `${MIN_AI_PHOTOS}–${MAX_AI_PHOTOS} different photos of the same person, the face clearly visible; no photo twice.` }),
    ethnicity: z
      .enum(ETHNICITIES, { error: (issue) => (issue.input === undefined ? 'Required' : `Must be one of ${ETHNICITIES.join(', ')}`) })
      .openapi({ example: 'latino' }),
    gender: z.enum(GENDERS, { error: (issue) => (issue.input === undefined ? 'Required' : 'Must be male or female') }).openapi({ example: 'female' }),
    age: Age,
    webhook_url: WebhookUrl,
    webhook_events: WebhookEvents,
    webhook_secret: WebhookSecret,
  })
  .openapi('AiPhotoUploadRequest', {
    example: { images: EXAMPLE_PHOTOS, ethnicity: 'latino', gender: 'female', age: 32, webhook_url: 'https://example.com/hooks/aimedia' },
  });

const AiPhotoTrainRequest = z
  .object({
    training_images_id: TaskId(`A finished ai-photo-upload task of yours, at most ${days(UPLOAD_TTL_MS)} days old (its expires_at).`),
    trigger_word: z
      .string(required('a string'))
      .optional()
      .default(DEFAULT_TRIGGER_WORD)
      .openapi({
        description: `${MIN_TRIGGER_WORD}–${MAX_TRIGGER_WORD} characters, one word (letters, digits, _ or -): put it in your prompts to picture the person. Default ${DEFAULT_TRIGGER_WORD}.`,
        minLength: MIN_TRIGGER_WORD,
        maxLength: MAX_TRIGGER_WORD,
        example: DEFAULT_TRIGGER_WORD,
      }),
    webhook_url: WebhookUrl,
    webhook_events: WebhookEvents,
    webhook_secret: WebhookSecret,
  })
  .openapi('AiPhotoTrainRequest', { example: { training_images_id: EXAMPLE_PARENT_ID, trigger_word: 'TOKMSN' } });

const Side = (name: string) =>
  z
    .number(required('a number'))
    .int(whole(MIN_PHOTO_SIDE, MAX_PHOTO_SIDE))
    .min(MIN_PHOTO_SIDE, whole(MIN_PHOTO_SIDE, MAX_PHOTO_SIDE))
    .max(MAX_PHOTO_SIDE, whole(MIN_PHOTO_SIDE, MAX_PHOTO_SIDE))
    .optional()
    .openapi({ description: `${name} in pixels (${MIN_PHOTO_SIDE}–${MAX_PHOTO_SIDE}), with the other side; must match aspect_ratio unless it is custom.` });

const AiPhotoGenerateRequest = z
  .object({
    training_id: TaskId(`A finished ai-photo-train task of yours, at most ${days(TRAINING_TTL_MS)} days old (its expires_at).`),
    prompt: Prompt.openapi({ example: 'a business headshot in a bright office' }),
    aspect_ratio: z
      .enum([...ASPECT_RATIOS, 'custom'], {
        error: (issue) => (issue.input === undefined ? 'Required' : `Must be one of ${ASPECT_RATIOS.join(', ')} or custom`),
      })
      .optional()
      .openapi({ description: 'Shape of the photos; custom takes width and height. Default 1:1 (custom when only width and height are given).' }),
    width: Side('Width'),
    height: Side('Height'),
    number_of_images: z
      .number(required('a number'))
      .int(whole(1, MAX_GENERATED_PHOTOS))
      .min(1, whole(1, MAX_GENERATED_PHOTOS))
      .max(MAX_GENERATED_PHOTOS, whole(1, MAX_GENERATED_PHOTOS))
      .optional()
      .openapi({ description: `How many photos (1–${MAX_GENERATED_PHOTOS}); default ${MAX_GENERATED_PHOTOS}. Each costs 1 credit.` }),
    seed: z
      .number(required('a number'))
      .int(whole(0, 4_294_967_295))
      .min(0, whole(0, 4_294_967_295))
      .max(4_294_967_295, whole(0, 4_294_967_295))
      .optional()
      .openapi({ description: 'The same seed, prompt and training give similar photos; omitted: a random one.' }),
    webhook_url: WebhookUrl,
    webhook_events: WebhookEvents,
    webhook_secret: WebhookSecret,
  })
  .openapi('AiPhotoGenerateRequest', {
    example: {
      training_id: EXAMPLE_PARENT_ID,
      prompt: 'TOKMSN, a business headshot in a bright office',
      aspect_ratio: '3:4',
      width: 768,
      height: 1024,
      number_of_images: 4,
      seed: 1234,
    },
  });

const fromParentErrors = (what: string, conflict: string) => ({
  404: errorRef(`No task of yours has that id.`, 'Task not found', 'not_found'),
  409: errorRef(`The task is not ${what}, has not finished successfully, or has expired.`, conflict, 'conflict'),
});

type AiPhotoDeps = ApiDeps & TaskDeps & UploadMemoryDeps & { media: MediaStore };

/** POST /ai-photo-upload, with its own body limit: mount it before the app-wide one. */
export function aiPhotoUploadRoutes(deps: AiPhotoDeps) {
  const router = createRouter();
  // typed like the app's other middleware, so the handler keeps the authenticated account's type
  const uploadLimit: MiddlewareHandler<AppEnv> = countedBodyLimit({
    maxSize: AI_PHOTO_UPLOAD_MAX_BODY_BYTES,
    tooLarge: () => new ApiError('payload_too_large', AI_PHOTO_UPLOAD_TOO_LARGE_MESSAGE),
  });
  // the price from the headers: a short balance is answered before a photo is read or decoded
  const canPay = createMiddleware<AuthedEnv>(async (c, next) => {
    await assertCanPayEarly(deps, c.var.account, { type: 'ai-photo-upload' });
    await next();
  });

  // POST /ai-photo-upload – the photos of one person, checked and stored for training
  router.openapi(
    createRoute({
      method: 'post',
      path: '/ai-photo-upload',
      tags: ['AI Photos'],
      summary: 'Upload photos for training',
      description:
        `Stores ${MIN_AI_PHOTOS}–${MAX_AI_PHOTOS} photos of one person and checks them for training (task type ai-photo-upload). Costs 2 credits. ` +
        `Each photo is judged by its bytes (jpeg, png or webp, at most ${MAX_AI_PHOTO_BYTES / MB} MB and 40 megapixels, no photo twice); the request may be at most ${AI_PHOTO_UPLOAD_MAX_BODY_BYTES / MB} MB. ` +
        `Once it finished, the upload can be trained on with POST /ai-photo-train for ${days(UPLOAD_TTL_MS)} days (its expires_at); its result says which photos can be used.`,
      security: apiKeySecurity,
      // the key and the balance from the headers, before a byte of the body is read
      // the Idempotency-Key last: it reads the body, within its limit
      middleware: [
        apiKeyAuth(deps, 'generate'),
        canPay,
        uploadMemorySlot(uploadMemoryOf(deps), AI_PHOTO_UPLOAD_MAX_BODY_BYTES),
        uploadLimit,
        idempotency(deps),
      ] as const,
      parameters: [idempotencyKeyParameter],
      request: { body: jsonBody(AiPhotoUploadRequest) },
      responses: {
        200: jsonResponse(TaskIdResponse, 'The photos were stored, the task created and its price held; follow it with POST /fetch.'),
        ...submitErrors,
        400: errorRef(
          'Invalid input: malformed JSON, too few or too many photos, a photo that is not a readable jpeg, png or webp, or a field that fails validation.',
          'images[3]: not a JPEG, PNG or WebP image',
          'validation_failed',
        ),
        413: errorRef('The request is over its size limit.', AI_PHOTO_UPLOAD_TOO_LARGE_MESSAGE, 'payload_too_large'),
      },
    }),
    async (c) => c.json(await submitAiPhotoUpload(deps, c.var.account, c.req.valid('json')), 200),
  );

  return router;
}

/** POST /ai-photo-train and /ai-photo-generate. */
export function aiPhotoRoutes(deps: AiPhotoDeps) {
  const router = createRouter();
  const authed = submitAuth(deps);
  const submitted = jsonResponse(TaskIdResponse, 'The task was created and its price held; follow it with POST /fetch.');

  // POST /ai-photo-train – learn the person of a finished upload
  router.openapi(
    createRoute({
      method: 'post',
      path: '/ai-photo-train',
      tags: ['AI Photos'],
      summary: 'Train a model of the person',
      description:
        `Learns the person of a finished upload under a trigger word, ${DEFAULT_TRIGGER_WORD} unless given (task type ai-photo-train). Costs 4 credits per photo the upload kept. ` +
        `Once it finished, POST /ai-photo-generate makes photos of the person for ${days(TRAINING_TTL_MS)} days (its expires_at).`,
      ...authed,
      request: { body: jsonBody(AiPhotoTrainRequest) },
      responses: {
        200: submitted,
        ...submitErrors,
        400: errorRef('Invalid input: malformed JSON, or a field that fails validation.', TRIGGER_WORD_MESSAGE, 'validation_failed'),
        ...fromParentErrors('an AI photo upload', 'The upload has not finished yet'),
      },
    }),
    async (c) => c.json(await submitAiPhotoTrain(deps, c.var.account, c.req.valid('json')), 200),
  );

  // POST /ai-photo-generate – photos of a trained person
  router.openapi(
    createRoute({
      method: 'post',
      path: '/ai-photo-generate',
      tags: ['AI Photos'],
      summary: 'Generate photos of the person',
      description:
        `Makes 1–${MAX_GENERATED_PHOTOS} photos (default ${MAX_GENERATED_PHOTOS}) of the person a finished training learned, from a prompt (task type ai-photo-generate). Costs 1 credit per photo. ` +
        'POST /fetch shows image_urls as the photos are stored.',
      ...authed,
      request: { body: jsonBody(AiPhotoGenerateRequest) },
      responses: {
        200: submitted,
        ...submitErrors,
        400: errorRef('Invalid input: malformed JSON, or a field that fails validation.', 'width: Required when aspect_ratio is custom', 'validation_failed'),
        ...fromParentErrors('an AI photo training', 'The training has not finished yet'),
      },
    }),
    async (c) => c.json(await submitAiPhotoGenerate(deps, c.var.account, c.req.valid('json')), 200),
  );

  return router;
}
