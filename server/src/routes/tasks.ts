/**
 * @module Generation calls (spec §7): /pro/imagine, /pro/variations, /pro/upscale,
 * /pro/reroll, /pro/seed, /flux/imagine, /ideogram/imagine, /faceswap. Each submission holds
 * the task's price in credits and answers `{ task_id }` at once; the work runs on the task
 * worker and is read back with POST /fetch (routes/fetch.ts) or followed live by realtime.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { ApiDeps } from '../context.ts';
import { jsonBody, jsonResponse } from '../openapi/schemas.ts';
import { createRouter } from '../openapi/router.ts';
import type { TaskDeps } from '../services/tasks/create-task.ts';
import { submitFaceswap } from '../services/tasks/submit-faceswap.ts';
import { submitReroll, submitSeed, submitUpscale, submitVariation } from '../services/tasks/submit-from-parent.ts';
import { submitImagine, submitModelImagine } from '../services/tasks/submit-imagine.ts';
import { ASPECT_RATIOS, UPSCALE_TYPE_NAMES } from '../services/tasks/task-kinds.ts';
import { MAX_IMAGE_BYTES } from '../storage/image-fetcher.ts';
import { MAX_IMAGE_URL_LENGTH } from '../storage/image-url.ts';
import type { MediaStore } from '../storage/media-store.ts';
import {
  EXAMPLE_PARENT_ID,
  errorRef,
  parentErrors,
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

const Index = z
  .number(required('a number'))
  .int('Must be 1, 2, 3 or 4')
  .min(1, 'Must be 1, 2, 3 or 4')
  .max(4, 'Must be 1, 2, 3 or 4')
  .openapi({ description: 'Which image of the parent grid (1 top left, 2 top right, 3 bottom left, 4 bottom right).', example: 2 });

const ImagineRequest = z
  .object({
    prompt: Prompt,
    mode: z.enum(['fast', 'turbo']).optional().openapi({ description: 'Generation speed. Default fast.' }),
    webhook_url: WebhookUrl,
    webhook_events: WebhookEvents,
    webhook_secret: WebhookSecret,
  })
  .openapi('ImagineRequest', {
    example: { prompt: 'a lighthouse on a cliff at sunset', mode: 'fast', webhook_url: 'https://example.com/hooks/aimedia', webhook_secret: 's3cret' },
  });

// every v1 call takes a webhook (an unknown key would be dropped silently)
const hooks = { webhook_url: WebhookUrl, webhook_secret: WebhookSecret, webhook_events: WebhookEvents };

const VariationsRequest = z
  .object({ parent_task_id: TaskId('A finished imagine, reroll or variation task of yours.'), index: Index, ...hooks })
  .openapi('VariationsRequest', { example: { parent_task_id: EXAMPLE_PARENT_ID, index: 2 } });

const UpscaleRequest = z
  .object({
    parent_task_id: TaskId('A finished task of yours with images.'),
    index: Index,
    type: z
      .enum(UPSCALE_TYPE_NAMES)
      .optional()
      .openapi({ description: 'creative or subtle (Midjourney upscalers), 2x or 4x (enlarge), 1x or omitted (the image as is).' }),
    ...hooks,
  })
  .openapi('UpscaleRequest', { example: { parent_task_id: EXAMPLE_PARENT_ID, index: 2, type: 'creative' } });

const RerollRequest = z
  .object({ parent_task_id: TaskId('A finished task of yours with a prompt.'), ...hooks })
  .openapi('RerollRequest', { example: { parent_task_id: EXAMPLE_PARENT_ID } });

const SeedRequest = z
  .object({ task_id: TaskId('A finished task of yours with images.'), ...hooks })
  .openapi('SeedRequest', { example: { task_id: EXAMPLE_PARENT_ID } });

const ModelImagineRequest = z
  .object({
    prompt: Prompt,
    aspect_ratio: z.enum(ASPECT_RATIOS).optional().openapi({ description: 'Shape of the picture. Default 1:1.' }),
  })
  .openapi('ModelImagineRequest', { example: { prompt: 'a red fox in the snow, watercolor', aspect_ratio: '16:9' } });

const ImageUrl = (description: string, example: string) =>
  z
    .string(required('a string'))
    .max(MAX_IMAGE_URL_LENGTH, `At most ${MAX_IMAGE_URL_LENGTH} characters`)
    .openapi({
      description: `${description} An imageURL from POST /upload, or a public https:// URL of a jpeg, png, gif or webp image of at most ${MAX_IMAGE_BYTES / 1024 / 1024} MB.`,
      example,
    });

const FaceswapRequest = z
  .object({
    swap_image_url: ImageUrl('The picture whose face is used.', 'https://api.example.com/media/upload-0f8e2c1a-7d3b-4a59-9c61-5e4f3a2b1c0d.png'),
    target_image_url: ImageUrl('The picture whose face is replaced; the result has its size.', 'https://images.example.com/portraits/target.jpg'),
    webhook_url: WebhookUrl,
    webhook_events: WebhookEvents,
    webhook_secret: WebhookSecret,
  })
  .openapi('FaceswapRequest', {
    example: {
      swap_image_url: 'https://api.example.com/media/upload-0f8e2c1a-7d3b-4a59-9c61-5e4f3a2b1c0d.png',
      target_image_url: 'https://images.example.com/portraits/target.jpg',
      webhook_url: 'https://example.com/hooks/aimedia',
    },
  });

export function taskRoutes(deps: ApiDeps & TaskDeps & { media: MediaStore }) {
  const router = createRouter();
  const authed = submitAuth(deps);
  const submitted = jsonResponse(TaskIdResponse, 'The task was created and its price held; follow it with POST /fetch.');

  // POST /pro/imagine – four pictures from a prompt
  router.openapi(
    createRoute({
      method: 'post',
      path: '/pro/imagine',
      tags: ['Midjourney'],
      summary: 'Imagine',
      description: 'Creates a grid of four images from a prompt. Costs 4 credits.',
      ...authed,
      request: { body: jsonBody(ImagineRequest) },
      responses: { 200: submitted, ...submitErrors },
    }),
    async (c) => c.json(await submitImagine(deps, c.var.account, c.req.valid('json')), 200),
  );

  // POST /pro/variations – four new pictures around one image of a grid
  router.openapi(
    createRoute({
      method: 'post',
      path: '/pro/variations',
      tags: ['Midjourney'],
      summary: 'Variations',
      description: 'A new task with four variations of one image of a finished grid. Costs 4 credits.',
      ...authed,
      request: { body: jsonBody(VariationsRequest) },
      responses: { 200: submitted, ...submitErrors, ...parentErrors },
    }),
    async (c) => {
      const { index, ...input } = c.req.valid('json');
      return c.json(await submitVariation(deps, c.var.account, { ...input, index: index as 1 | 2 | 3 | 4 }), 200);
    },
  );

  // POST /pro/upscale – one image of a grid, alone or enlarged
  router.openapi(
    createRoute({
      method: 'post',
      path: '/pro/upscale',
      tags: ['Midjourney'],
      summary: 'Upscale',
      description: 'A new task with one image of a finished grid. Costs 2 credits (1x), 4 (subtle, creative), 1 (2x) or 2 (4x).',
      ...authed,
      request: { body: jsonBody(UpscaleRequest) },
      responses: { 200: submitted, ...submitErrors, ...parentErrors },
    }),
    async (c) => {
      const { index, ...input } = c.req.valid('json');
      return c.json(await submitUpscale(deps, c.var.account, { ...input, index: index as 1 | 2 | 3 | 4 }), 200);
    },
  );

  // POST /pro/reroll – the same prompt again, a new grid
  router.openapi(
    createRoute({
      method: 'post',
      path: '/pro/reroll',
      tags: ['Midjourney'],
      summary: 'Reroll',
      description: 'A new grid of four from the prompt of a finished task. Costs 4 credits.',
      ...authed,
      request: { body: jsonBody(RerollRequest) },
      responses: { 200: submitted, ...submitErrors, ...parentErrors },
    }),
    async (c) => c.json(await submitReroll(deps, c.var.account, c.req.valid('json')), 200),
  );

  // POST /pro/seed – the seed of a finished task, as a seed task
  router.openapi(
    createRoute({
      method: 'post',
      path: '/pro/seed',
      tags: ['Midjourney'],
      summary: 'Get the seed',
      description: 'Creates a seed task for a finished task; about 2 seconds later POST /fetch with the returned task_id shows `seed`. Costs 2 credits.',
      ...authed,
      request: { body: jsonBody(SeedRequest) },
      responses: { 200: submitted, ...submitErrors, ...parentErrors },
    }),
    async (c) => c.json(await submitSeed(deps, c.var.account, c.req.valid('json')), 200),
  );

  // POST /flux/imagine – one picture from a prompt (flux-imagine)
  router.openapi(
    createRoute({
      method: 'post',
      path: '/flux/imagine',
      tags: ['Flux'],
      summary: 'Flux imagine',
      description: 'One image from a prompt (task type flux-imagine). Costs 1 credit.',
      ...authed,
      request: { body: jsonBody(ModelImagineRequest) },
      responses: { 200: submitted, ...submitErrors },
    }),
    async (c) => c.json(await submitModelImagine(deps, c.var.account, 'flux-imagine', c.req.valid('json')), 200),
  );

  // POST /ideogram/imagine – a grid of four from a prompt (ideogram-imagine)
  router.openapi(
    createRoute({
      method: 'post',
      path: '/ideogram/imagine',
      tags: ['Ideogram'],
      summary: 'Ideogram imagine',
      description: 'A grid of four images from a prompt (task type ideogram-imagine). Costs 1 credit.',
      ...authed,
      request: { body: jsonBody(ModelImagineRequest) },
      responses: { 200: submitted, ...submitErrors },
    }),
    async (c) => c.json(await submitModelImagine(deps, c.var.account, 'ideogram-imagine', c.req.valid('json')), 200),
  );

  // POST /faceswap – the face of one picture put onto the face in another
  router.openapi(
    createRoute({
      method: 'post',
      path: '/faceswap',
      tags: ['Faceswap'],
      summary: 'Faceswap',
      description:
        'Puts the face of swap_image_url onto the face in target_image_url (task type faceswap). Costs 2 credits. ' +
        'A URL that is malformed, not https (or not public), or an upload of ours that does not exist is refused at once; ' +
        "another site's picture is read when the task runs, and a picture that cannot be read then fails the task with the reason and gives the credits back.",
      ...authed,
      request: { body: jsonBody(FaceswapRequest) },
      responses: {
        200: submitted,
        ...submitErrors,
        400: errorRef(
          'Invalid input: malformed JSON, or a field that fails validation, e.g. an image URL that is not allowed.',
          'swap_image_url: Must be an https:// URL',
          'validation_failed',
        ),
      },
    }),
    async (c) => c.json(await submitFaceswap(deps, c.var.account, c.req.valid('json')), 200),
  );

  return router;
}
