/**
 * @module Flux and Ideogram under their APIFRAME v1 paths and parameter names:
 * /flux-imagine, /ideogram-imagine, /ideogram-remix, /ideogram-upscale, /ideogram-describe
 * (today's /flux/imagine and /ideogram/imagine stay in tasks.ts). Each answers `{ task_id }`
 * and holds the price from the one catalog; pictures named by URL are checked as faceswap's.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { ApiDeps } from '../context.ts';
import { jsonBody, jsonResponse } from '../openapi/schemas.ts';
import { createRouter } from '../openapi/router.ts';
import type { TaskDeps } from '../services/tasks/create-task.ts';
import { IDEOGRAM_ASPECT_RATIOS, MAX_RESOLUTION_SIDE, MIN_RESOLUTION_SIDE, RESOLUTION_PATTERN } from '../services/tasks/ideogram-inputs.ts';
import { submitDescribe } from '../services/tasks/submit-describe.ts';
import { DEFAULT_FLUX_MODEL, submitFluxImagine } from '../services/tasks/submit-flux-imagine.ts';
import { submitIdeogramImagine } from '../services/tasks/submit-ideogram-imagine.ts';
import { submitIdeogramRemix } from '../services/tasks/submit-ideogram-remix.ts';
import { submitIdeogramUpscale } from '../services/tasks/submit-ideogram-upscale.ts';
import { ASPECT_RATIOS } from '../services/tasks/task-kinds.ts';
import type { MediaStore } from '../storage/media-store.ts';
import { AspectRatio, costs, EXAMPLE_IMAGE_URL, EXAMPLE_UPLOAD_URL, ImageUrl } from './picture-schemas.ts';
import { errorRef, Prompt, required, submitErrors, TaskIdResponse, WebhookEvents, WebhookSecret, WebhookUrl } from './task-schemas.ts';
import { submitAuth } from './submit-auth.ts';

const hooks = { webhook_url: WebhookUrl, webhook_secret: WebhookSecret, webhook_events: WebhookEvents };

const FLUX_MODELS = ['flux-schnell', 'flux-dev', 'flux-pro', 'flux-pro-1.1', 'flux-pro-1.1-ultra'] as const;
const STYLE_TYPES = ['AUTO', 'GENERAL', 'REALISTIC', 'DESIGN', 'RENDER_3D', 'ANIME', 'FICTION'] as const;
const MAGIC_PROMPT = ['AUTO', 'ON', 'OFF'] as const;

const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: (issue) => (issue.input === undefined ? 'Required' : `Must be one of ${values.join(', ')}`) });

/** A whole number in [min, max]. */
const whole = (min: number, max: number, description: string) => {
  const message = `Must be a whole number from ${min} to ${max}`;
  return z.number(required('a number')).int(message).min(min, message).max(max, message).optional().openapi({ description });
};

/** A number in [min, max]. */
const between = (min: number, max: number, description: string) => {
  const message = `Must be a number from ${min} to ${max}`;
  return z.number(required('a number')).min(min, message).max(max, message).optional().openapi({ description });
};

const flag = (description: string) => z.boolean(required('true or false')).optional().openapi({ description });

const FluxImagineRequest = z
  .object({
    model: oneOf(FLUX_MODELS)
      .optional()
      .openapi({ description: `The Flux model; default ${DEFAULT_FLUX_MODEL}. Every model costs the same.` }),
    prompt: Prompt,
    width: whole(256, 1440, 'Width in pixels (256–1440), with height; wins over aspect_ratio.'),
    height: whole(256, 1440, 'Height in pixels (256–1440), with width.'),
    aspect_ratio: AspectRatio('Shape of the picture when width and height are not given (flux-pro-1.1-ultra). Default 1:1.'),
    steps: whole(1, 50, 'Generation steps (flux-pro, flux-dev).'),
    guidance: between(1.5, 5, 'Prompt adherence against realism, 1.5–5 (flux-pro, flux-dev).'),
    seed: whole(0, 4_294_967_295, 'The same seed and prompt give the same picture; omitted: a random one.'),
    safety_tolerance: whole(0, 6, 'Moderation of input and output, 0 (strictest) to 6.'),
    raw: flag('Less processed, more natural-looking pictures (flux-pro-1.1-ultra).'),
    image_prompt: ImageUrl('A picture to start from.', EXAMPLE_UPLOAD_URL).optional(),
    image_prompt_strength: between(0, 1, 'How much of image_prompt to keep, 0–1 (flux-pro-1.1-ultra; default 0.1).'),
    prompt_upsampling: flag('Let the model rewrite the prompt more creatively.'),
    ...hooks,
  })
  .openapi('FluxImagineRequest', { example: { model: 'flux-pro-1.1', prompt: 'a red fox in the snow, watercolor', width: 1024, height: 768, seed: 42 } });

const IdeogramAspectRatio = z
  .enum([...ASPECT_RATIOS, ...IDEOGRAM_ASPECT_RATIOS] as [string, ...string[]], {
    error: (issue) => (issue.input === undefined ? 'Required' : `Must be one of ${ASPECT_RATIOS.join(', ')} (or ASPECT_16_9 and the like)`),
  })
  .optional()
  .openapi({ description: 'Shape of the pictures, as 16:9 or Ideogram’s ASPECT_16_9; not with resolution. Default 1:1.' });

const RESOLUTION_MESSAGE = `Must be RESOLUTION_<width>_<height> with sides from ${MIN_RESOLUTION_SIDE} to ${MAX_RESOLUTION_SIDE}`;
const Resolution = z
  .string(required('a string'))
  .regex(RESOLUTION_PATTERN, RESOLUTION_MESSAGE)
  .refine((value) => {
    const [, w, h] = RESOLUTION_PATTERN.exec(value) ?? [];
    return [w, h].every((side) => Number(side) >= MIN_RESOLUTION_SIDE && Number(side) <= MAX_RESOLUTION_SIDE);
  }, RESOLUTION_MESSAGE)
  .optional()
  .openapi({ description: 'An exact size, e.g. RESOLUTION_1024_1024; not with aspect_ratio.', example: 'RESOLUTION_1280_768' });

const ideogramFields = {
  style_type: oneOf(STYLE_TYPES).optional().openapi({ description: 'Ideogram style; default GENERAL.' }),
  negative_prompt: z.string(required('a string')).max(4000, 'At most 4000 characters').optional().openapi({ description: 'What to leave out of the picture.' }),
  seed: whole(0, 2_147_483_647, 'The same seed and prompt give the same pictures; omitted: a random one.'),
  magic_prompt_option: oneOf(MAGIC_PROMPT).optional().openapi({ description: 'Let Ideogram rewrite the prompt: AUTO (default), ON or OFF.' }),
  aspect_ratio: IdeogramAspectRatio,
  resolution: Resolution,
};

const IdeogramImagineRequest = z
  .object({ prompt: Prompt, ...ideogramFields, ...hooks })
  .openapi('IdeogramImagineRequest', { example: { prompt: 'a poster that says OPEN LATE, neon', style_type: 'DESIGN', aspect_ratio: 'ASPECT_16_9' } });

const IdeogramRemixRequest = z
  .object({
    image_url: ImageUrl('The picture to remix.', EXAMPLE_IMAGE_URL),
    prompt: Prompt,
    image_weight: whole(1, 100, 'How much of the picture to keep, 1–100; default 50.'),
    ...ideogramFields,
    ...hooks,
  })
  .openapi('IdeogramRemixRequest', { example: { image_url: EXAMPLE_IMAGE_URL, prompt: 'the same harbour in winter', image_weight: 60 } });

const IdeogramUpscaleRequest = z
  .object({
    image_url: ImageUrl('The picture to enlarge.', EXAMPLE_IMAGE_URL),
    prompt: Prompt.optional().openapi({ description: 'Guides the detail added.' }),
    resemblance: whole(1, 100, 'How close to the original, 1–100; default 50.'),
    detail: whole(1, 100, 'How much fine detail to add, 1–100; default 50.'),
    seed: whole(0, 2_147_483_647, 'The same seed gives the same result.'),
    magic_prompt_option: oneOf(MAGIC_PROMPT).optional().openapi({ description: 'Let Ideogram rewrite the prompt: AUTO (default), ON or OFF.' }),
    ...hooks,
  })
  .openapi('IdeogramUpscaleRequest', { example: { image_url: EXAMPLE_IMAGE_URL, resemblance: 70, detail: 40 } });

const IdeogramDescribeRequest = z
  .object({ image_url: ImageUrl('The picture to describe.', EXAMPLE_IMAGE_URL), ...hooks })
  .openapi('IdeogramDescribeRequest', { example: { image_url: EXAMPLE_IMAGE_URL } });

const URL_NOTE =
  "A URL that is malformed, not https (or not public), or an upload of ours that does not exist is refused at once; another site's picture is read when the task runs, and one that cannot be read fails the task and gives the credits back.";

export function imageModelRoutes(deps: ApiDeps & TaskDeps & { media: MediaStore }) {
  const router = createRouter();
  const authed = submitAuth(deps);
  const submitted = jsonResponse(TaskIdResponse, 'The task was created and its price held; follow it with POST /fetch.');
  const route = <T extends z.ZodType>(path: string, tag: string, summary: string, description: string, body: T, badInput: string) =>
    createRoute({
      method: 'post',
      path,
      tags: [tag],
      summary,
      description,
      ...authed,
      request: { body: jsonBody(body) },
      responses: {
        200: submitted,
        ...submitErrors,
        400: errorRef('Invalid input: malformed JSON or a field that fails validation.', badInput, 'validation_failed'),
      },
    });

  // POST /flux-imagine – one picture on a Flux model
  router.openapi(
    route(
      '/flux-imagine',
      'Flux',
      'Flux imagine',
      `One picture from a prompt on a Flux model (task type flux-imagine). ${costs('flux-imagine')} ${URL_NOTE}`,
      FluxImagineRequest,
      'width: Must be a whole number from 256 to 1440',
    ),
    async (c) => c.json(await submitFluxImagine(deps, c.var.account, c.req.valid('json')), 200),
  );

  // POST /ideogram-imagine – pictures on Ideogram
  router.openapi(
    route(
      '/ideogram-imagine',
      'Ideogram',
      'Ideogram imagine',
      `Pictures from a prompt on Ideogram (task type ideogram-imagine; /fetch lists them in image_urls). ${costs('ideogram-imagine')}`,
      IdeogramImagineRequest,
      'resolution: Give either aspect_ratio or resolution, not both',
    ),
    async (c) => c.json(await submitIdeogramImagine(deps, c.var.account, c.req.valid('json')), 200),
  );

  // POST /ideogram-remix – a picture remixed with a prompt
  router.openapi(
    route(
      '/ideogram-remix',
      'Ideogram',
      'Ideogram remix',
      `A new picture from a picture and a prompt (task type ideogram-remix). ${costs('ideogram-remix')} ${URL_NOTE}`,
      IdeogramRemixRequest,
      'image_weight: Must be a whole number from 1 to 100',
    ),
    async (c) => c.json(await submitIdeogramRemix(deps, c.var.account, c.req.valid('json')), 200),
  );

  // POST /ideogram-upscale – a picture enlarged
  router.openapi(
    route(
      '/ideogram-upscale',
      'Ideogram',
      'Ideogram upscale',
      `A picture enlarged by Ideogram's upscaler (task type ideogram-upscale). ${costs('ideogram-upscale')} ${URL_NOTE}`,
      IdeogramUpscaleRequest,
      'resemblance: Must be a whole number from 1 to 100',
    ),
    async (c) => c.json(await submitIdeogramUpscale(deps, c.var.account, c.req.valid('json')), 200),
  );

  // POST /ideogram-describe – a description of a picture
  router.openapi(
    route(
      '/ideogram-describe',
      'Ideogram',
      'Ideogram describe',
      `A description of a picture (task type ideogram-describe; /fetch shows it in description). ${costs('ideogram-describe')} ${URL_NOTE}`,
      IdeogramDescribeRequest,
      'image_url: Must be a valid http:// or https:// URL',
    ),
    async (c) => c.json(await submitDescribe(deps, c.var.account, 'ideogram-describe', c.req.valid('json')), 200),
  );

  return router;
}
