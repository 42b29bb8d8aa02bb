/**
 * @module Schema pieces the Midjourney action routes (midjourney-v1.ts, midjourney-pro.ts) and
 * the Flux/Ideogram routes (image-models.ts) share: grid indexes as v1 and pro clients send
 * them, picture URLs, zoom ratios, the 409 of a parent rule, and each route's price read from
 * the catalog for its description.
 */
import { z } from '@hono/zod-openapi';
import { priceOf } from '../services/pricing/catalog.ts';
import { ASPECT_RATIOS } from '../services/tasks/task-kinds.ts';
import { MAX_IMAGE_BYTES } from '../storage/image-fetcher.ts';
import { MAX_IMAGE_URL_LENGTH } from '../storage/image-url.ts';
import { errorRef, required } from './task-schemas.ts';

const INDEX_MESSAGE = 'Must be 1, 2, 3 or 4';
const INDEX_DESCRIPTION = 'Which image of the parent grid (1 top left, 2 top right, 3 bottom left, 4 bottom right).';

/** A grid cell as a number (the pro API). */
export const Index = z
  .number(required('a number'))
  .int(INDEX_MESSAGE)
  .min(1, INDEX_MESSAGE)
  .max(4, INDEX_MESSAGE)
  .openapi({ description: INDEX_DESCRIPTION, example: 2 });

/** A grid cell as v1 clients send it: a number, or its digit as a string. */
export const V1Index = z
  .union([z.number().int(INDEX_MESSAGE).min(1, INDEX_MESSAGE).max(4, INDEX_MESSAGE), z.enum(['1', '2', '3', '4'])], {
    error: (issue) => (issue.input === undefined ? 'Required' : INDEX_MESSAGE),
  })
  .openapi({ description: `${INDEX_DESCRIPTION} A number or its digit as a string.`, example: 2 });

/** The cell index a v1 or pro request gave, as a number. */
export const cellOf = (index: number | string | undefined) => (index === undefined ? undefined : (Number(index) as 1 | 2 | 3 | 4));

/** Optional on the v1 actions of an upscaled image: lets them start from one cell of a grid, as the pro API does. */
export const OptionalCell = V1Index.optional().openapi({
  description: 'When the parent is a grid of four: the image of it to work on (it is upscaled first). Leave out for an upscaled parent.',
});

/** A picture named by URL, read by the worker through the guarded fetcher. */
export const ImageUrl = (description: string, example: string) =>
  z
    .string(required('a string'))
    .max(MAX_IMAGE_URL_LENGTH, `At most ${MAX_IMAGE_URL_LENGTH} characters`)
    .openapi({
      description: `${description} An imageURL from POST /upload, or a public https:// URL of a jpeg, png, gif or webp image of at most ${MAX_IMAGE_BYTES / 1024 / 1024} MB.`,
      example,
    });

export const EXAMPLE_UPLOAD_URL = 'https://api.example.com/media/upload-0f8e2c1a-7d3b-4a59-9c61-5e4f3a2b1c0d.png';
export const EXAMPLE_IMAGE_URL = 'https://images.example.com/photos/harbour.jpg';

export const AspectRatio = (description: string) =>
  z
    .enum(ASPECT_RATIOS, { error: (issue) => (issue.input === undefined ? 'Required' : `Must be one of ${ASPECT_RATIOS.join(', ')}`) })
    .optional()
    .openapi({ description });

const ZOOM_MESSAGE = 'Must be a number from 1 to 2 (1.5 and 2 are the Zoom Out buttons)';

/** Midjourney's zoom out ratio, as a number or its text ("1.5"). */
export const ZoomRatio = z
  .union([z.number().min(1, ZOOM_MESSAGE).max(2, ZOOM_MESSAGE), z.string().regex(/^\s*(1(\.\d{1,3})?|2(\.0{1,3})?)\s*$/, ZOOM_MESSAGE)], {
    error: (issue) => (issue.input === undefined ? 'Required' : ZOOM_MESSAGE),
  })
  .openapi({
    description: '1.5 or 2: the Zoom Out 1.5x and 2x buttons; any other value from 1 to 2: Custom Zoom (1 with an aspect_ratio is Make Square and its like).',
    example: 2,
  });

/** A zoom ratio a request gave, as a number. */
export const zoomOf = (zoom: number | string) => Number(zoom);

/** `N credit(s)` for a task type, from the one price catalog. */
export function credits(type: string): string {
  const price = priceOf(type) ?? 0;
  return `${price} credit${price === 1 ? '' : 's'}`;
}

/** `Costs N credit(s).` for a task type. */
export const costs = (type: string) => `Costs ${credits(type)}.`;

/** The error answers of an action on an earlier task, the 409 naming the rule it breaks. */
export const actionParentErrors = (conflict: string) => ({
  404: errorRef('No task of yours has that id.', 'Task not found', 'not_found'),
  409: errorRef(
    "The task has not finished successfully, or is not a picture this action applies to (the message names the rule and the task's type).",
    conflict,
    'conflict',
  ),
});
