/**
 * @module GET /media/<key>: the stored pictures, videos and songs (generated or uploaded) with
 * their content type and a long, immutable cache (a key's bytes never change meaning); uploads,
 * which expire unless a task uses them, a day's cache (storage/media-store.ts cacheControlOf). Byte
 * ranges (RFC 9110 §14) are served, one range per request, so a browser's <video> or <audio>
 * can read a file's index, learn its duration and seek without downloading it whole.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { ApiError } from '../errors.ts';
import { createRouter } from '../openapi/router.ts';
import { errorExample } from '../openapi/schemas.ts';
import { cacheControlOf, isMediaKey, type MediaStore } from '../storage/media-store.ts';

const binary = { schema: { type: 'string' as const, format: 'binary' } };
const MEDIA_CONTENT = {
  'image/png': binary,
  'image/jpeg': binary,
  'image/gif': binary,
  'image/webp': binary,
  'video/mp4': binary,
  'video/webm': binary,
  'audio/mpeg': binary,
  'audio/wav': binary,
  'audio/ogg': binary,
  'audio/mp4': binary,
};

const errorContent = (msg: string, code: string) => ({
  'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' }, example: errorExample({ msg, code }) },
});

/** A single byte range of a file of `size` bytes, `'unsatisfiable'`, or undefined to send the whole file. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  // several ranges (multipart/byteranges) and other units are answered with the whole file, as RFC 9110 allows
  const match = header ? /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header) : null;
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    // the last N bytes
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (match[2] !== '' && Number(match[2]) < start) return undefined; // invalid: ignored
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

export function mediaRoutes(deps: { media: MediaStore }) {
  const router = createRouter();

  router.openapi(
    createRoute({
      method: 'get',
      path: '/media/{key}',
      tags: ['Media'],
      summary: 'A stored picture, video or song',
      description:
        'The URLs in image_url, image_urls, video_url, video_urls, audio_url, result.videos[].poster_url and imageURL point here. Public, cacheable for a year. ' +
        'Accepts a single byte range (`Range: bytes=0-1023`, `bytes=1024-`, `bytes=-500`) and answers 206 with Content-Range, as browsers ask for video and audio.',
      request: {
        params: z.object({ key: z.string().openapi({ example: '3b0c7c52-9a7e-4f55-a6a1-0c8f0f1d2e3a-video-1.mp4' }) }),
        headers: z.object({ range: z.string().optional().openapi({ description: 'One byte range, e.g. bytes=0-1023.', example: 'bytes=0-1023' }) }),
      },
      responses: {
        200: { description: 'The whole file.', content: MEDIA_CONTENT },
        206: { description: 'The requested byte range (Content-Range: bytes start-end/size).', content: MEDIA_CONTENT },
        404: { description: 'No such file.', content: errorContent('Not found: GET /media/nope.png', 'not_found') },
        416: {
          description: 'The range starts past the end of the file (Content-Range: bytes */size).',
          content: errorContent('Range not satisfiable: the file has 1024 bytes', 'range_not_satisfiable'),
        },
      },
    }),
    async (c) => {
      const { key } = c.req.valid('param');
      // size and type only: the bytes are streamed below, never held whole in memory
      const stat = isMediaKey(key) ? await deps.media.stat(key) : undefined;
      if (!stat) throw new ApiError('not_found', `Not found: GET ${c.req.path}`);
      const { size } = stat;
      const headers = {
        'Content-Type': stat.contentType,
        'Accept-Ranges': 'bytes',
        // generated media for good; an upload a day (it may expire): storage/media-store.ts
        'Cache-Control': cacheControlOf(key),
        'X-Content-Type-Options': 'nosniff',
      };
      const range = parseRange(c.req.header('range'), size);
      if (range === 'unsatisfiable') {
        const msg = `Range not satisfiable: the file has ${size} bytes`;
        return c.json(errorExample({ msg, code: 'range_not_satisfiable' }), 416, { 'Content-Range': `bytes */${size}`, 'Accept-Ranges': 'bytes' });
      }
      const status = range ? 206 : 200;
      const partHeaders = range
        ? { ...headers, 'Content-Length': String(range.end - range.start + 1), 'Content-Range': `bytes ${range.start}-${range.end}/${size}` }
        : { ...headers, 'Content-Length': String(size) };
      // Hono answers HEAD with this GET handler and drops the body: open nothing that would never be read or closed
      if (c.req.method === 'HEAD') return c.body(null, status, partHeaders);
      const body = await deps.media.open(key, range);
      if (!body) throw new ApiError('not_found', `Not found: GET ${c.req.path}`);
      // @hono/node-server cancels the stream when the client goes away, which closes the file or S3 connection
      return c.body(body, status, partHeaders);
    },
  );

  return router;
}
