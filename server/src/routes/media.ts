/**
 * @module GET /media/<key>: the stored images (generated or uploaded) with their content
 * type and a long, immutable cache (a key's bytes never change meaning).
 */
import { createRoute, z } from '@hono/zod-openapi';
import { ApiError } from '../errors.ts';
import { createRouter } from '../openapi/router.ts';
import { isMediaKey, type MediaStore } from '../storage/media-store.ts';

const binary = { schema: { type: 'string' as const, format: 'binary' } };

export function mediaRoutes(deps: { media: MediaStore }) {
  const router = createRouter();

  router.openapi(
    createRoute({
      method: 'get',
      path: '/media/{key}',
      tags: ['Media'],
      summary: 'A stored image',
      description: 'The URLs in image_url, image_urls and imageURL point here. Public, cacheable for a year.',
      request: {
        params: z.object({ key: z.string().openapi({ example: '3b0c7c52-9a7e-4f55-a6a1-0c8f0f1d2e3a-grid.png' }) }),
      },
      responses: {
        200: {
          description: 'The image.',
          content: { 'image/png': binary, 'image/jpeg': binary, 'image/gif': binary, 'image/webp': binary },
        },
        404: {
          description: 'No such image.',
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/ErrorResponse' },
              example: { errors: [{ msg: 'Not found: GET /media/nope.png', code: 'not_found' }] },
            },
          },
        },
      },
    }),
    async (c) => {
      const { key } = c.req.valid('param');
      const stored = isMediaKey(key) ? await deps.media.get(key) : undefined;
      if (!stored) throw new ApiError('not_found', `Not found: GET ${c.req.path}`);
      return c.body(new Uint8Array(stored.data), 200, {
        'Content-Type': stored.contentType,
        'Content-Length': String(stored.data.length),
        'Cache-Control': 'public, max-age=31536000, immutable',
        'X-Content-Type-Options': 'nosniff',
      });
    },
  );

  return router;
}
