/**
 * @module POST /upload (spec §7): a multipart `image` field → `{ imageURL }`. Mounted
 * before the app-wide 1 MiB JSON body limit, with its own limit sized for one image.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { ApiDeps } from '../context.ts';
import { ApiError } from '../errors.ts';
import { apiKeyAuth } from '../middleware/api-key-auth/index.ts';
import { bodyLimit } from '../middleware/body-limit/index.ts';
import { apiKeySecurity, authedErrorResponses, errorExample, jsonResponse } from '../openapi/schemas.ts';
import { createRouter } from '../openapi/router.ts';
import { MAX_UPLOAD_BYTES, UPLOAD_TOO_LARGE_MESSAGE, UPLOAD_TYPE_MESSAGE, uploadImage } from '../services/tasks/upload-image.ts';
import type { MediaStore } from '../storage/media-store.ts';

// room for the multipart boundaries and part headers around the file
const MULTIPART_OVERHEAD = 64 * 1024;

const UploadResponse = z
  .object({ imageURL: z.string().openapi({ description: 'Absolute URL of the stored image; it does not expire.' }) })
  .openapi('UploadResponse', { example: { imageURL: 'https://api.example.com/media/upload-0f8e2c1a-7d3b-4a59-9c61-5e4f3a2b1c0d.png' } });

const errorRef = (description: string, msg: string, code: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' }, example: errorExample({ msg, code }) } },
});

export function uploadRoutes(deps: ApiDeps & { media: MediaStore }) {
  const router = createRouter();

  // POST /upload – store an image, answer its URL
  router.openapi(
    createRoute({
      method: 'post',
      path: '/upload',
      tags: ['Media'],
      summary: 'Upload an image',
      description: `Stores a jpeg, png, gif or webp image (recognised by its content, at most ${MAX_UPLOAD_BYTES / 1024 / 1024} MB) and answers its URL, e.g. to use in a prompt.`,
      security: apiKeySecurity,
      middleware: [
        bodyLimit({
          maxSize: MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD,
          tooLarge: () => new ApiError('payload_too_large', UPLOAD_TOO_LARGE_MESSAGE),
        }),
        apiKeyAuth(deps, 'generate'),
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
      },
    }),
    async (c) => {
      if (!/^multipart\/form-data\s*;/i.test(c.req.header('content-type') ?? '')) {
        throw new ApiError('unsupported_media_type', 'Content-Type must be multipart/form-data');
      }
      let form: FormData;
      try {
        form = await c.req.formData();
      } catch (error) {
        if (error instanceof ApiError) throw error;
        throw new ApiError('bad_request', 'Malformed multipart body');
      }
      const image = form.get('image');
      if (image === null) throw new ApiError('validation_failed', 'image: Required');
      if (typeof image === 'string') throw new ApiError('validation_failed', 'image: Must be a file');
      return c.json(await uploadImage(deps, image), 200);
    },
  );

  return router;
}
