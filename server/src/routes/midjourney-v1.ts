/**
 * @module The Midjourney calls under their APIFRAME v1 paths and parameter names: /imagine,
 * /upscale-1x, /upscale-alt, /upscale-highres, /variations, /reroll, /inpaint, /outpaint,
 * /pan, /describe, /blend, /shorten, /seed. They share the services of the /pro/* calls (same
 * task types, prices, parent rules, webhooks); each answers `{ task_id }` at once and is
 * followed with POST /fetch, realtime or the task's webhook. /inpaint is mounted on its own,
 * before the app-wide body limit (a mask may be larger than 1 MiB as base64).
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { ApiDeps, AppEnv, AuthedEnv } from '../context.ts';
import { ApiError } from '../errors.ts';
import { apiKeyAuth } from '../middleware/api-key-auth/index.ts';
import { countedBodyLimit, uploadMemoryOf, uploadMemorySlot, type UploadMemoryDeps } from '../middleware/upload-limit/index.ts';
import { assertCanPayEarly } from '../services/tasks/create-task.ts';
import { apiKeySecurity, jsonBody, jsonResponse } from '../openapi/schemas.ts';
import { createRouter } from '../openapi/router.ts';
import type { TaskDeps } from '../services/tasks/create-task.ts';
import { submitBlend } from '../services/tasks/submit-blend.ts';
import { submitDescribe } from '../services/tasks/submit-describe.ts';
import { submitReroll, submitSeed, submitUpscale, submitVariation } from '../services/tasks/submit-from-parent.ts';
import { submitImagine } from '../services/tasks/submit-imagine.ts';
import { MAX_MASK_BYTES, submitInpaint } from '../services/tasks/submit-inpaint.ts';
import { submitOutpaint } from '../services/tasks/submit-outpaint.ts';
import { submitPan } from '../services/tasks/submit-pan.ts';
import { submitShorten } from '../services/tasks/submit-shorten.ts';
import { submitUpscaleAlt } from '../services/tasks/submit-upscale-alt.ts';
import { submitUpscaleHighres } from '../services/tasks/submit-upscale-highres.ts';
import { submitVary } from '../services/tasks/submit-vary.ts';
import type { MediaStore } from '../storage/media-store.ts';
import {
  AspectRatio,
  actionParentErrors,
  cellOf,
  costs,
  credits,
  EXAMPLE_IMAGE_URL,
  EXAMPLE_UPLOAD_URL,
  ImageUrl,
  OptionalCell,
  V1Index,
  ZoomRatio,
  zoomOf,
} from './picture-schemas.ts';
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
/** /inpaint's body limit: a mask of MAX_MASK_BYTES as base64, and room for the rest. */
const INPAINT_MAX_BODY_BYTES = 8 * MB;
const INPAINT_TOO_LARGE_MESSAGE = `The request is too large: the mask may be at most ${MAX_MASK_BYTES / MB} MB`;

const hooks = { webhook_url: WebhookUrl, webhook_secret: WebhookSecret, webhook_events: WebhookEvents };
const EXAMPLE_HOOK = 'https://example.com/hooks/aimedia';
const UPSCALED_PARENT = 'A finished upscaled image of yours (upscale#1–4 from POST /upscale-1x, or upscale-subtle/-creative), or a grid with index.';

const enumOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: (issue) => (issue.input === undefined ? 'Required' : `Must be one of ${values.join(', ')}`) });

const ImagineRequest = z
  .object({
    prompt: Prompt,
    aspect_ratio: AspectRatio('Shape of the four images (Midjourney --ar). Default 1:1.'),
    ...hooks,
  })
  .openapi('V1ImagineRequest', { example: { prompt: 'a lighthouse on a cliff at sunset', aspect_ratio: '16:9', webhook_url: EXAMPLE_HOOK } });

const Upscale1xRequest = z
  .object({ parent_task_id: TaskId('A finished grid of yours (imagine, reroll, variations, blend, pan, zoom out, vary).'), index: V1Index, ...hooks })
  .openapi('Upscale1xRequest', { example: { parent_task_id: EXAMPLE_PARENT_ID, index: '2' } });

const UpscaleAltRequest = z
  .object({
    parent_task_id: TaskId('A finished upscale-1x task of yours (upscale#1–4).'),
    type: enumOf(['subtle', 'creative']).openapi({ description: 'subtle: twice the size, details kept; creative: twice the size, details added.' }),
    ...hooks,
  })
  .openapi('UpscaleAltRequest', { example: { parent_task_id: EXAMPLE_PARENT_ID, type: 'creative' } });

const UpscaleHighresRequest = z
  .object({
    parent_task_id: TaskId(UPSCALED_PARENT).optional(),
    image_url: ImageUrl('Any picture to enlarge, instead of parent_task_id.', EXAMPLE_UPLOAD_URL).optional(),
    type: enumOf(['2x', '4x']).openapi({ description: 'Twice or four times the size.' }),
    index: OptionalCell,
    ...hooks,
  })
  .openapi('UpscaleHighresRequest', { example: { parent_task_id: EXAMPLE_PARENT_ID, type: '2x' } });

const VARIATION_INDEX_MESSAGE = 'Must be 1, 2, 3, 4, strong or subtle';
const VariationsRequest = z
  .object({
    parent_task_id: TaskId('A finished grid of yours for index 1–4; an upscaled image for strong or subtle.'),
    index: z
      .union(
        [
          z.number().int(VARIATION_INDEX_MESSAGE).min(1, VARIATION_INDEX_MESSAGE).max(4, VARIATION_INDEX_MESSAGE),
          z.enum(['1', '2', '3', '4', 'strong', 'subtle']),
        ],
        { error: (issue) => (issue.input === undefined ? 'Required' : VARIATION_INDEX_MESSAGE) },
      )
      .openapi({ description: '1–4: V1–V4, variations of that image of the grid; strong or subtle: Vary (Strong) / Vary (Subtle) of an upscaled image.' }),
    ...hooks,
  })
  .openapi('V1VariationsRequest', { example: { parent_task_id: EXAMPLE_PARENT_ID, index: 'strong' } });

const RerollRequest = z
  .object({
    parent_task_id: TaskId('A finished grid of yours.'),
    prompt: Prompt.optional().openapi({ description: "A new prompt for the new grid (Midjourney's remix); the parent's when omitted." }),
    ...hooks,
  })
  .openapi('V1RerollRequest', { example: { parent_task_id: EXAMPLE_PARENT_ID, prompt: 'a lighthouse on a cliff in fog' } });

const InpaintRequest = z
  .object({
    parent_task_id: TaskId(UPSCALED_PARENT),
    mask: z.string(required('a string')).openapi({
      description: `The region to redraw as a picture in base64 (plain or a data: URI): white where to redraw, black elsewhere (transparent counts as black); PNG, JPEG or WebP of at most ${MAX_MASK_BYTES / MB} MB, scaled to the image when its size differs.`,
      contentEncoding: 'base64',
    } as never),
    prompt: Prompt.optional().openapi({ description: "What to draw in the region; the parent's prompt when omitted." }),
    index: OptionalCell,
    ...hooks,
  })
  .openapi('InpaintRequest', {
    example: { parent_task_id: EXAMPLE_PARENT_ID, mask: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA…(mask)', prompt: 'a red hot-air balloon' },
  });

const OutpaintRequest = z
  .object({
    parent_task_id: TaskId(UPSCALED_PARENT),
    zoom_ratio: ZoomRatio,
    aspect_ratio: AspectRatio('Custom Zoom: the shape of the new canvas (with zoom_ratio 1: Make Square and its like).'),
    prompt: Prompt.optional().openapi({ description: 'Custom Zoom: what to draw in the new area.' }),
    index: OptionalCell,
    ...hooks,
  })
  .openapi('OutpaintRequest', { example: { parent_task_id: EXAMPLE_PARENT_ID, zoom_ratio: 2 } });

const PanRequest = z
  .object({
    parent_task_id: TaskId(UPSCALED_PARENT),
    direction: enumOf(['up', 'down', 'left', 'right']).openapi({ description: 'Which side the canvas grows on (by half the image).' }),
    index: OptionalCell,
    ...hooks,
  })
  .openapi('PanRequest', { example: { parent_task_id: EXAMPLE_PARENT_ID, direction: 'left' } });

const DescribeRequest = z
  .object({ image_url: ImageUrl('The picture to describe.', EXAMPLE_IMAGE_URL), ...hooks })
  .openapi('DescribeRequest', { example: { image_url: EXAMPLE_IMAGE_URL } });

const BLEND_COUNT_MESSAGE = 'Must hold 2 to 5 image URLs';
const BlendRequest = z
  .object({
    image_urls: z
      .array(ImageUrl('One picture to blend.', EXAMPLE_UPLOAD_URL), required('an array of image URLs'))
      .min(2, BLEND_COUNT_MESSAGE)
      .max(5, BLEND_COUNT_MESSAGE)
      .openapi({ description: '2 to 5 pictures.' }),
    dimension: enumOf(['square', 'portrait', 'landscape']).optional().openapi({ description: 'square 1:1 (default), portrait 2:3, landscape 3:2.' }),
    ...hooks,
  })
  .openapi('BlendRequest', { example: { image_urls: [EXAMPLE_UPLOAD_URL, EXAMPLE_IMAGE_URL], dimension: 'landscape' } });

const ShortenRequest = z
  .object({ prompt: Prompt.openapi({ example: 'a very beautiful, stunning, highly detailed photograph of a lighthouse on a cliff, 8k' }), ...hooks })
  .openapi('ShortenRequest', { example: { prompt: 'a very beautiful, stunning, highly detailed photograph of a lighthouse on a cliff, 8k' } });

const SeedRequest = z
  .object({ task_id: TaskId('A finished task of yours with images.'), ...hooks })
  .openapi('V1SeedRequest', { example: { task_id: EXAMPLE_PARENT_ID } });

type Deps = ApiDeps & TaskDeps & UploadMemoryDeps & { media: MediaStore };

const submitted = jsonResponse(TaskIdResponse, 'The task was created and its price held; follow it with POST /fetch.');

/** POST /inpaint, with its own body limit: mount it before the app-wide one. */
export function inpaintRoutes(deps: Deps) {
  const router = createRouter();
  // typed like the app's other middleware, so the handler keeps the authenticated account's type
  // counted and cut at the limit; read only after the key was checked
  const limit: MiddlewareHandler<AppEnv> = countedBodyLimit({
    maxSize: INPAINT_MAX_BODY_BYTES,
    tooLarge: () => new ApiError('payload_too_large', INPAINT_TOO_LARGE_MESSAGE),
  });
  // the price from the headers: an account that cannot pay is answered before the mask is read
  const canPay = createMiddleware<AuthedEnv>(async (c, next) => {
    await assertCanPayEarly(deps, c.var.account, { type: 'inpaint' });
    await next();
  });

  // POST /inpaint – Vary (Region): redraw the masked region of an upscaled image
  router.openapi(
    createRoute({
      method: 'post',
      path: '/inpaint',
      tags: ['Midjourney'],
      summary: 'Inpaint (Vary Region)',
      description: `A grid of four with the masked region of an upscaled image redrawn (task type inpaint). ${costs('inpaint')}`,
      security: apiKeySecurity,
      middleware: [apiKeyAuth(deps, 'generate'), canPay, uploadMemorySlot(uploadMemoryOf(deps), INPAINT_MAX_BODY_BYTES), limit, idempotency(deps)] as const,
      parameters: [idempotencyKeyParameter],
      request: { body: jsonBody(InpaintRequest) },
      responses: {
        200: submitted,
        ...submitErrors,
        ...actionParentErrors('Vary (Region) works on an upscaled image: upscale one image of this grid first (POST /upscale-1x), or name it with index'),
        400: errorRef(
          'Invalid input: malformed JSON, a mask that is not a readable picture or selects nothing, or a field that fails validation.',
          'mask: not a PNG, JPEG or WebP image',
          'validation_failed',
        ),
        413: errorRef('The request is over its size limit.', INPAINT_TOO_LARGE_MESSAGE, 'payload_too_large'),
      },
    }),
    async (c) => {
      const { index, ...input } = c.req.valid('json');
      return c.json(await submitInpaint(deps, c.var.account, { ...input, index: cellOf(index) }), 200);
    },
  );
  return router;
}

/** The other v1 Midjourney calls. */
export function midjourneyV1Routes(deps: Deps) {
  const router = createRouter();
  const authed = submitAuth(deps);
  const route = <T extends z.ZodType>(path: string, summary: string, description: string, body: T, conflict?: string) =>
    createRoute({
      method: 'post',
      path,
      tags: ['Midjourney'],
      summary,
      description,
      ...authed,
      request: { body: jsonBody(body) },
      responses: { 200: submitted, ...submitErrors, ...(conflict ? actionParentErrors(conflict) : {}) },
    });

  // POST /imagine – four pictures from a prompt
  router.openapi(route('/imagine', 'Imagine', `A grid of four images from a prompt (task type imagine). ${costs('imagine')}`, ImagineRequest), async (c) =>
    c.json(await submitImagine(deps, c.var.account, c.req.valid('json')), 200),
  );

  // POST /upscale-1x – one image of a grid on its own (U1–U4)
  router.openapi(
    route(
      '/upscale-1x',
      'Upscale 1x',
      `One image of a finished grid on its own (task type upscale#1–4), to pan, zoom out, vary or upscale further. ${costs('upscale#1')}`,
      Upscale1xRequest,
      'Upscale (U1–U4) works on a Midjourney grid of four (imagine, reroll, variations, blend, pan, zoom out or vary); this task is upscale#2',
    ),
    async (c) => {
      const { index, ...input } = c.req.valid('json');
      return c.json(await submitUpscale(deps, c.var.account, { ...input, index: Number(index) as 1 | 2 | 3 | 4, type: '1x' }), 200);
    },
  );

  // POST /upscale-alt – Upscale (Subtle) / Upscale (Creative) of an upscaled image
  router.openapi(
    route(
      '/upscale-alt',
      'Upscale subtle or creative',
      `Twice the size of an upscaled image, details kept (subtle) or added (creative); task type upscale-subtle or upscale-creative. ${costs('upscale-creative')}`,
      UpscaleAltRequest,
      'Upscale (Creative) works on an upscaled image: upscale one image of this grid first (POST /upscale-1x), or name it with index',
    ),
    async (c) => c.json(await submitUpscaleAlt(deps, c.var.account, c.req.valid('json')), 200),
  );

  // POST /upscale-highres – a 2x or 4x enlargement
  router.openapi(
    route(
      '/upscale-highres',
      'Upscale 2x or 4x',
      `Two or four times the size (task type upscale-2x or upscale-4x) of an upscaled image, of one image of a grid (index), or of any picture (image_url). Costs ${credits('upscale-2x')} (2x) or ${credits('upscale-4x')} (4x).`,
      UpscaleHighresRequest,
      'Upscale 4x cannot follow an upscale-4x: an enlargement is an end result; use the upscaled image it was made from',
    ),
    async (c) => {
      const { index, ...input } = c.req.valid('json');
      return c.json(await submitUpscaleHighres(deps, c.var.account, { ...input, index: cellOf(index) }), 200);
    },
  );

  // POST /variations – V1–V4 of a grid, or Vary (Strong/Subtle) of an upscaled image
  router.openapi(
    route(
      '/variations',
      'Variations',
      `Four variations (a grid): of one image of a grid (index 1–4, task type variation-1…4), or of an upscaled image (index strong or subtle, task type variation-strong/-subtle). ${costs('variation-1')}`,
      VariationsRequest,
      'Variations (V1–V4) works on a Midjourney grid of four (imagine, reroll, variations, blend, pan, zoom out or vary); this task is upscale#1',
    ),
    async (c) => {
      const { index, ...input } = c.req.valid('json');
      const answer =
        index === 'strong' || index === 'subtle'
          ? await submitVary(deps, c.var.account, { ...input, type: index })
          : await submitVariation(deps, c.var.account, { ...input, index: Number(index) as 1 | 2 | 3 | 4 });
      return c.json(answer, 200);
    },
  );

  // POST /reroll – the grid again, from the same or a new prompt
  router.openapi(
    route(
      '/reroll',
      'Reroll',
      `A new grid of four from the prompt of a finished grid, or from a new prompt (task type reroll). ${costs('reroll')}`,
      RerollRequest,
      'Reroll works on a Midjourney grid of four (imagine, reroll, variations, blend, pan, zoom out or vary); this task is faceswap',
    ),
    async (c) => c.json(await submitReroll(deps, c.var.account, c.req.valid('json')), 200),
  );

  // POST /outpaint – Zoom Out: the image on a larger canvas
  router.openapi(
    route(
      '/outpaint',
      'Outpaint (Zoom Out)',
      `A grid of four with an upscaled image on a larger canvas, the new area drawn (task type outpaint-1.5x, outpaint-2x or outpaint-custom). ${costs('outpaint-2x')}`,
      OutpaintRequest,
      'Zoom out works on an upscaled image: upscale one image of this grid first (POST /upscale-1x), or name it with index',
    ),
    async (c) => {
      const { index, zoom_ratio, ...input } = c.req.valid('json');
      return c.json(await submitOutpaint(deps, c.var.account, { ...input, zoom_ratio: zoomOf(zoom_ratio), index: cellOf(index) }), 200);
    },
  );

  // POST /pan – the canvas extended on one side
  router.openapi(
    route(
      '/pan',
      'Pan',
      `A grid of four with an upscaled image extended on one side, the new area drawn (task type pan-up, pan-down, pan-left or pan-right). ${costs('pan-left')}`,
      PanRequest,
      'Pan works on an upscaled image: upscale one image of this grid first (POST /upscale-1x), or name it with index',
    ),
    async (c) => {
      const { index, ...input } = c.req.valid('json');
      return c.json(await submitPan(deps, c.var.account, { ...input, index: cellOf(index) }), 200);
    },
  );

  // POST /describe – four prompts for a picture
  router.openapi(
    route(
      '/describe',
      'Describe',
      `Four prompts that could have made a picture (task type describe; /fetch shows them in content). ${costs('describe')} A URL that is malformed, not https (or not public), or an upload of ours that does not exist is refused at once; another site's picture is read when the task runs.`,
      DescribeRequest,
    ),
    async (c) => c.json(await submitDescribe(deps, c.var.account, 'describe', c.req.valid('json')), 200),
  );

  // POST /blend – 2–5 pictures fused
  router.openapi(
    route(
      '/blend',
      'Blend',
      `A grid of four blending 2–5 pictures, in the shape chosen (task type blend). ${costs('blend')} Each URL is checked as for /describe.`,
      BlendRequest,
    ),
    async (c) => c.json(await submitBlend(deps, c.var.account, c.req.valid('json')), 200),
  );

  // POST /shorten – shorter prompts
  router.openapi(
    route(
      '/shorten',
      'Shorten',
      `Shorter versions of a long prompt (task type shorten; /fetch shows them in content, the analysis in full_content). ${costs('shorten')}`,
      ShortenRequest,
    ),
    async (c) => c.json(await submitShorten(deps, c.var.account, c.req.valid('json')), 200),
  );

  // POST /seed – the seed of a finished task, as a seed task
  router.openapi(
    route(
      '/seed',
      'Get the seed',
      `A seed task for a finished task; POST /fetch with the returned task_id shows seed once it finished. ${costs('seed')}`,
      SeedRequest,
      'The task has not finished successfully',
    ),
    async (c) => c.json(await submitSeed(deps, c.var.account, c.req.valid('json')), 200),
  );

  return router;
}
