/**
 * @module POST /upload (spec §7): a multipart `image` field → `{ imageURL, expires_at }`.
 * Mounted before the app-wide 1 MiB JSON body limit, with its own limit sized for one image.
 * The API key (and a free account's daily quota) is checked from the headers before a byte
 * of the body is read; a declared length over the limit is answered 413 at once, and the body
 * is streamed (busboy), counted and cut at the limit.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { ApiDeps } from '../context.ts';
import { ApiError } from '../errors.ts';
import { apiKeyAuth } from '../middleware/api-key-auth/index.ts';
import { declaredLengthLimit, uploadMemoryOf, uploadMemorySlot, uploadQuotaGate, type UploadMemoryDeps } from '../middleware/upload-limit/index.ts';
import { apiKeySecurity, authedErrorResponses, errorExample, jsonResponse } from '../openapi/schemas.ts';
import { createRouter } from '../openapi/router.ts';
import { MAX_UPLOAD_BYTES, UPLOAD_TOO_LARGE_MESSAGE, UPLOAD_TYPE_MESSAGE, uploadImage } from '../services/tasks/upload-image.ts';
import { readMultipartFile } from '../services/uploads/multipart-file.ts';
import type { UploadDeps } from '../services/uploads/store-upload.ts';
import { DEFAULT_UPLOAD_POLICY, uploadQuotaMessage } from '../services/uploads/upload-quota.ts';
import type { MediaStore } from '../storage/media-store.ts';
import { refuseIdempotencyKey } from '../middleware/idempotency/index.ts';

// room for the multipart boundaries and part headers around the file
const MULTIPART_OVERHEAD = 64 * 1024;
const MAX_BODY = MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD;
const tooLarge = () => new ApiError('payload_too_large', UPLOAD_TOO_LARGE_MESSAGE);

/** The `expires_at` of an upload's answer (shared with POST /upload-audio). */
export const UploadExpiresAt = z.string().openapi({
  description: `When the upload is removed (ISO 8601) unless a task uses it: uploads are kept ${DEFAULT_UPLOAD_POLICY.retentionDays} days by default (UPLOAD_RETENTION_DAYS); one a task refers to is kept.`,
  example: '2026-12-05T10:00:00.000Z',
});

const UploadResponse = z
  .object({
    imageURL: z.string().openapi({ description: 'Absolute URL of the stored image; it is kept until expires_at, or for good once a task uses it.' }),
    expires_at: UploadExpiresAt,
  })
  .openapi('UploadResponse', {
    example: { imageURL: 'https://api.example.com/media/upload-0f8e2c1a-7d3b-4a59-9c61-5e4f3a2b1c0d.png', expires_at: '2026-12-05T10:00:00.000Z' },
  });

const errorRef = (description: string, msg: string, code: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' }, example: errorExample({ msg, code }) } },
});

const quotaRef = errorRef(
  `Or an account without a plan stored its ${DEFAULT_UPLOAD_POLICY.freeCount} uploads (or ${DEFAULT_UPLOAD_POLICY.freeBytes / 1024 / 1024} MB) of the UTC day (UPLOAD_QUOTA_FREE_COUNT, UPLOAD_QUOTA_FREE_BYTES).`,
  uploadQuotaMessage(DEFAULT_UPLOAD_POLICY),
  'too_many_requests',
);
// the app's own 429 (rate limits), when it documents one, with the quota added
const rateLimited = (authedErrorResponses as Partial<Record<number, { description: string }>>)[429];

/** The 429s of an upload: the app's rate limits, and a free account over its daily upload quota (shared with POST /upload-audio). */
export const uploadQuotaError = { ...rateLimited, ...quotaRef, description: [rateLimited?.description, quotaRef.description].filter(Boolean).join(' ') };

export function uploadRoutes(deps: ApiDeps & UploadDeps & UploadMemoryDeps & { media: MediaStore }) {
  const router = createRouter();

  // POST /upload – store an image, answer its URL
  router.openapi(
    createRoute({
      method: 'post',
      path: '/upload',
      tags: ['Media'],
      summary: 'Upload an image',
      description:
        `Stores a jpeg, png, gif or webp image (recognised by its content, at most ${MAX_UPLOAD_BYTES / 1024 / 1024} MB) and answers its URL, e.g. to use in a prompt. ` +
        `The upload is removed after ${DEFAULT_UPLOAD_POLICY.retentionDays} days (expires_at) unless a task uses it. ` +
        `Accounts without a plan can upload ${DEFAULT_UPLOAD_POLICY.freeCount} files (${DEFAULT_UPLOAD_POLICY.freeBytes / 1024 / 1024} MB) a day.`,
      security: apiKeySecurity,
      // the key and the quota from the headers, before a byte of the body is read
      middleware: [
        apiKeyAuth(deps, 'generate'),
        refuseIdempotencyKey(),
        declaredLengthLimit({ maxSize: MAX_BODY, tooLarge }),
        uploadQuotaGate(deps, MULTIPART_OVERHEAD),
        uploadMemorySlot(uploadMemoryOf(deps), MAX_BODY),
      ] as const,
      request: {
        body: {
          required: true,
          content: {
            // a plain schema (not zod): the handler reads the form itself for precise errors
            'multipart/form-data': {
              schema: { type: 'object', properties: { image: { type: 'string', format: 'binary' } }, required: ['image'] },
            },
          },
        },
      },
      responses: {
        200: jsonResponse(UploadResponse, 'The stored image.'),
        400: errorRef('No image field, or an image that cannot be read.', 'image: Required', 'validation_failed'),
        ...authedErrorResponses,
        413: errorRef('Over 10 MB, or too many pixels.', UPLOAD_TOO_LARGE_MESSAGE, 'payload_too_large'),
        415: errorRef('Not multipart/form-data, or not a jpeg, png, gif or webp image.', UPLOAD_TYPE_MESSAGE, 'unsupported_media_type'),
        429: uploadQuotaError,
      },
    }),
    async (c) => {
      if (!/^multipart\/form-data\s*;/i.test(c.req.header('content-type') ?? '')) {
        throw new ApiError('unsupported_media_type', 'Content-Type must be multipart/form-data');
      }
      // streamed: the body counted and cut at its limit, only the image kept (at most its limit)
      const image = await readMultipartFile(c.req.raw, { field: 'image', maxBodyBytes: MAX_BODY, maxFileBytes: MAX_UPLOAD_BYTES, tooLarge });
      if (image.kind === 'missing') throw new ApiError('validation_failed', 'image: Required');
      if (image.kind === 'text') throw new ApiError('validation_failed', 'image: Must be a file');
      return c.json(await uploadImage(deps, c.var.account.id, image.data), 200);
    },
  );

  return router;
}
