/**
 * @module Video calls, on the APIFRAME v1 paths and parameter names (issue 13): Luma
 * (/luma-imagine, /luma-extend), Kling (/kling-imagine, /kling-tryon), Runway
 * (/runway-imagine) and Midjourney video (/imagine-video, /imagine-video-extend). Each
 * answers `{ task_id }` at once and holds the price from the catalog; the video is made by
 * the task worker and read with POST /fetch (video_url, video_urls; a try-on's image_url),
 * realtime or the webhook. A value outside its range is a 400 naming the field.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { ApiDeps } from '../context.ts';
import { KLING_MODELS, KLING_TRYON_MODELS, RUNWAY_MODELS, type VideoAspectRatio } from '../engines/jobs/video.ts';
import { createRouter } from '../openapi/router.ts';
import { jsonBody, jsonResponse } from '../openapi/schemas.ts';
import { priceOf } from '../services/pricing/catalog.ts';
import type { TaskDeps } from '../services/tasks/create-task.ts';
import {
  submitImagineVideo,
  submitImagineVideoExtend,
  submitKlingTryon,
  submitKlingVideo,
  submitLuma,
  submitLumaExtend,
  submitRunway,
} from '../services/tasks/submit-video.ts';
import { MAX_IMAGE_BYTES, MAX_VIDEO_BYTES } from '../storage/image-fetcher.ts';
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

const MB = 1024 * 1024;
const EXAMPLE_IMAGE = 'https://api.example.com/media/upload-0f8e2c1a-7d3b-4a59-9c61-5e4f3a2b1c0d.png';
const EXAMPLE_WEBHOOK = 'https://example.com/hooks/aimedia';

const LUMA_RATIOS = ['1:1', '16:9', '9:16', '4:3', '3:4', '21:9', '9:21'] as const satisfies readonly VideoAspectRatio[];
const UPSTREAM_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9'] as const satisfies readonly VideoAspectRatio[];

/** 'Required' when missing, else `Must be one of a, b or c`. */
const oneOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, {
    error: (issue) => (issue.input === undefined ? 'Required' : `Must be ${values.length === 2 ? values.join(' or ') : `one of ${values.join(', ')}`}`),
  });

const Flag = (description: string) => z.boolean({ error: 'Must be true or false' }).optional().openapi({ description });

const Url = (what: 'image' | 'video', description: string) =>
  z
    .string(required('a string'))
    .max(MAX_IMAGE_URL_LENGTH, `At most ${MAX_IMAGE_URL_LENGTH} characters`)
    .openapi({
      description:
        what === 'image'
          ? `${description} An imageURL from POST /upload, or a public https:// URL of a jpeg, png, gif or webp image of at most ${MAX_IMAGE_BYTES / MB} MB.`
          : `${description} A public https:// URL (or one of our media URLs) of an MP4 or WebM video of at most ${MAX_VIDEO_BYTES / MB} MB.`,
      example: what === 'image' ? EXAMPLE_IMAGE : 'https://videos.example.com/clips/walk.mp4',
    });

const OptionalUrl = (description: string) => Url('image', description).nullish();

const DURATION_MESSAGE = 'Must be 5 or 10';
/** 5 or 10 seconds, as a number or its digits (Kling's own API sends "5"). */
const Duration = z
  .union([z.literal(5), z.literal(10), z.enum(['5', '10'])], { error: (issue) => (issue.input === undefined ? 'Required' : DURATION_MESSAGE) })
  .transform((value) => Number(value) as 5 | 10)
  .optional()
  .openapi({ description: 'Length in seconds: 5 (default) or 10. The price is per second.', example: 5 });

const CFG_MESSAGE = 'Must be a number from 0 to 1';
const CfgScale = z
  .union([z.number(), z.string().regex(/^\s*(0(\.\d+)?|1(\.0+)?|\.\d+)\s*$/, CFG_MESSAGE)], { error: CFG_MESSAGE })
  .transform(Number)
  .pipe(z.number().min(0, CFG_MESSAGE).max(1, CFG_MESSAGE))
  .optional()
  .openapi({ description: 'How closely to follow the prompt, 0–1 (default 0.5).', example: 0.5 });

const INDEX_MESSAGE = 'Must be 1, 2, 3 or 4';
const VideoIndex = z
  .union([z.number().int(INDEX_MESSAGE).min(1, INDEX_MESSAGE).max(4, INDEX_MESSAGE), z.enum(['1', '2', '3', '4'])], {
    error: (issue) => (issue.input === undefined ? 'Required' : INDEX_MESSAGE),
  })
  .transform(Number)
  .openapi({ description: 'Which of the parent task’s four videos to extend (1–4; a number or its digit as a string).', example: 2 });

const Motion = oneOf(['low', 'high'] as const)
  .optional()
  .openapi({ description: 'How much moves: low (default) or high.' });

const webhook = { webhook_url: WebhookUrl, webhook_secret: WebhookSecret, webhook_events: WebhookEvents };

const LumaRequest = z
  .object({
    prompt: Prompt,
    image_url: OptionalUrl('The first frame of the video.'),
    end_image_url: OptionalUrl('The last frame of the video.'),
    enhance_prompt: Flag('Let Luma rewrite the prompt for a richer result. Default false.'),
    aspect_ratio: oneOf(LUMA_RATIOS).optional().openapi({ description: 'Shape of the video. Default 1:1.' }),
    loop: Flag('A video whose end leads back into its start. Default false.'),
    ...webhook,
  })
  .openapi('LumaImagineRequest', {
    example: { prompt: 'a lighthouse on a cliff at sunset, waves rolling in', aspect_ratio: '16:9', loop: false, webhook_url: EXAMPLE_WEBHOOK },
  });

const LumaExtendRequest = z
  .object({
    parent_task_id: TaskId('A finished luma or luma-ext task of yours.'),
    prompt: Prompt,
    end_image_url: OptionalUrl('The last frame of the extension.'),
    enhance_prompt: Flag('Let Luma rewrite the prompt. Default false.'),
    loop: Flag('An extension whose end leads back into its start. Default false.'),
    ...webhook,
  })
  .openapi('LumaExtendRequest', { example: { parent_task_id: EXAMPLE_PARENT_ID, prompt: 'night falls, the lighthouse beam sweeps the sea' } });

const KlingRequest = z
  .object({
    prompt: Prompt,
    generation_type: oneOf(['text2video', 'image2video'] as const)
      .optional()
      .openapi({ description: 'text2video, or image2video from image_url. Default: image2video when image_url is given, else text2video.' }),
    negative_prompt: z.string({ error: 'Must be a string' }).max(2500, 'At most 2500 characters').optional().openapi({ description: 'What not to show.' }),
    image_url: OptionalUrl('image2video: the first frame (required there, ignored for text2video).'),
    end_image_url: OptionalUrl('image2video: the last frame.'),
    mode: oneOf(['std', 'pro'] as const)
      .optional()
      .openapi({ description: 'std (default) or pro (higher quality; kling-v1-5 and kling-v1-6 only).' }),
    aspect_ratio: oneOf(UPSTREAM_RATIOS).optional().openapi({ description: 'text2video only (image2video takes the start image’s shape). Default 16:9.' }),
    model: oneOf(KLING_MODELS).optional().openapi({ description: 'Kling model. Default: the upstream’s.' }),
    duration: Duration,
    cfg_scale: CfgScale,
    ...webhook,
  })
  .openapi('KlingImagineRequest', {
    example: { prompt: 'a red fox running through fresh snow', generation_type: 'text2video', mode: 'std', aspect_ratio: '16:9', duration: 5, cfg_scale: 0.5 },
  });

const KlingTryonRequest = z
  .object({
    human_image_url: Url('image', 'The person, facing the camera.'),
    cloth_image_url: Url('image', 'The garment (a product photo or on a plain background).'),
    model: oneOf(KLING_TRYON_MODELS).optional().openapi({ description: 'Try-on model. Default: the upstream’s.' }),
    ...webhook,
  })
  .openapi('KlingTryonRequest', {
    example: { human_image_url: EXAMPLE_IMAGE, cloth_image_url: 'https://images.example.com/shop/jacket.jpg', model: 'kolors-virtual-try-on-v1-5' },
  });

const RunwayRequest = z
  .object({
    prompt: Prompt,
    generation_type: oneOf(['text2video', 'image2video', 'video2video'] as const)
      .optional()
      .openapi({ description: 'text2video, image2video (from image_url) or video2video (from video_url). Default: from the URLs given.' }),
    image_url: OptionalUrl('image2video: the first frame (required there).'),
    end_image_url: OptionalUrl('image2video: the last frame.'),
    video_url: Url('video', 'video2video: the video to restyle (required there).').nullish(),
    aspect_ratio: oneOf(UPSTREAM_RATIOS).optional().openapi({ description: 'text2video only. Default 16:9.' }),
    model: oneOf(RUNWAY_MODELS).optional().openapi({ description: 'Runway model. Default: the upstream’s.' }),
    duration: Duration,
    flip: Flag('Portrait: the landscape frame turned upright. Default false.'),
    ...webhook,
  })
  .openapi('RunwayImagineRequest', {
    example: { prompt: 'a paper boat drifting down a rainy street', generation_type: 'text2video', aspect_ratio: '16:9', model: 'gen3a_turbo', duration: 5 },
  });

const ImagineVideoRequest = z
  .object({
    prompt: Prompt,
    image_url: Url('image', 'The picture to animate (the first frame), e.g. one image of a Midjourney grid.'),
    motion: Motion,
    ...webhook,
  })
  .openapi('ImagineVideoRequest', { example: { prompt: 'the waves start to roll, gulls fly past', image_url: EXAMPLE_IMAGE, motion: 'low' } });

const ImagineVideoExtendRequest = z
  .object({
    parent_task_id: TaskId('A finished imagine-video or imagine-video-extend task of yours.'),
    index: VideoIndex,
    prompt: Prompt,
    image_url: OptionalUrl('A picture the extension moves over.'),
    motion: Motion,
    ...webhook,
  })
  .openapi('ImagineVideoExtendRequest', {
    example: { parent_task_id: EXAMPLE_PARENT_ID, index: '2', prompt: 'the camera rises above the clouds', motion: 'high' },
  });

const invalid = (msg: string) => errorRef('Invalid input: malformed JSON, or a field outside its range (the message names it).', msg, 'validation_failed');
const credits = (n: number | undefined) => `${n} credit${n === 1 ? '' : 's'}`;
const fetchNote = 'Follow it with POST /fetch: video_url (and video_urls) once it finished; the local engine makes a simulated clip (result.simulated).';

export function videoRoutes(deps: ApiDeps & TaskDeps & { media: MediaStore }) {
  const router = createRouter();
  const authed = submitAuth(deps);
  const submitted = jsonResponse(TaskIdResponse, 'The task was created and its price held; follow it with POST /fetch.');

  // POST /luma-imagine – a Luma Dream Machine clip
  router.openapi(
    createRoute({
      method: 'post',
      path: '/luma-imagine',
      tags: ['Luma'],
      summary: 'Luma imagine',
      description: `A 5-second video from a prompt, optionally between a start and an end frame (task type luma). Costs ${credits(priceOf('luma'))}. ${fetchNote}`,
      ...authed,
      request: { body: jsonBody(LumaRequest) },
      responses: { 200: submitted, ...submitErrors, 400: invalid('aspect_ratio: Must be one of 1:1, 16:9, 9:16, 4:3, 3:4, 21:9, 9:21') },
    }),
    async (c) => c.json(await submitLuma(deps, c.var.account, c.req.valid('json')), 200),
  );

  // POST /luma-extend – a Luma video continued by 5 seconds
  router.openapi(
    createRoute({
      method: 'post',
      path: '/luma-extend',
      tags: ['Luma'],
      summary: 'Luma extend',
      description: `The parent's video continued by 5 seconds from a new prompt (task type luma-ext); video_url is the whole, longer video. Costs ${credits(priceOf('luma-ext'))}. ${fetchNote}`,
      ...authed,
      request: { body: jsonBody(LumaExtendRequest) },
      responses: { 200: submitted, ...submitErrors, 400: invalid('parent_task_id: Must be a luma or luma-ext task (this one is imagine)'), ...parentErrors },
    }),
    async (c) => c.json(await submitLumaExtend(deps, c.var.account, c.req.valid('json')), 200),
  );

  // POST /kling-imagine – a Kling clip, text or image to video
  router.openapi(
    createRoute({
      method: 'post',
      path: '/kling-imagine',
      tags: ['Kling'],
      summary: 'Kling imagine',
      description: `A 5- or 10-second video from a prompt, or from a start image (task type kling-video). Costs ${credits(priceOf('kling-video'))} per second: ${credits(priceOf('kling-video', 5))} for 5 seconds, ${credits(priceOf('kling-video', 10))} for 10. ${fetchNote}`,
      ...authed,
      request: { body: jsonBody(KlingRequest) },
      responses: { 200: submitted, ...submitErrors, 400: invalid('cfg_scale: Must be a number from 0 to 1') },
    }),
    async (c) => c.json(await submitKlingVideo(deps, c.var.account, c.req.valid('json')), 200),
  );

  // POST /kling-tryon – a garment put on a person (a picture)
  router.openapi(
    createRoute({
      method: 'post',
      path: '/kling-tryon',
      tags: ['Kling'],
      summary: 'Kling virtual try-on',
      description: `The person of human_image_url wearing the garment of cloth_image_url (task type kling-tryon); POST /fetch shows image_url, a picture, as Kling's try-on makes. Costs ${credits(priceOf('kling-tryon'))}. The local engine shows the garment beside the person, labelled simulated.`,
      ...authed,
      request: { body: jsonBody(KlingTryonRequest) },
      responses: { 200: submitted, ...submitErrors, 400: invalid('human_image_url: Must be an https:// URL') },
    }),
    async (c) => c.json(await submitKlingTryon(deps, c.var.account, c.req.valid('json')), 200),
  );

  // POST /runway-imagine – a Runway clip: text, image or video to video
  router.openapi(
    createRoute({
      method: 'post',
      path: '/runway-imagine',
      tags: ['Runway'],
      summary: 'Runway imagine',
      description: `A 5- or 10-second video from a prompt, a start image or another video (task type runway). Costs ${credits(priceOf('runway'))} per second: ${credits(priceOf('runway', 5))} for 5 seconds, ${credits(priceOf('runway', 10))} for 10. ${fetchNote}`,
      ...authed,
      request: { body: jsonBody(RunwayRequest) },
      responses: { 200: submitted, ...submitErrors, 400: invalid('video_url: Required for generation_type video2video') },
    }),
    async (c) => c.json(await submitRunway(deps, c.var.account, c.req.valid('json')), 200),
  );

  // POST /imagine-video – four Midjourney clips animating a picture
  router.openapi(
    createRoute({
      method: 'post',
      path: '/imagine-video',
      tags: ['Midjourney'],
      summary: 'Imagine video',
      description: `Four short videos animating a picture (task type imagine-video); video_urls lists all four. Costs ${credits(priceOf('imagine-video'))}. ${fetchNote}`,
      ...authed,
      request: { body: jsonBody(ImagineVideoRequest) },
      responses: { 200: submitted, ...submitErrors, 400: invalid('motion: Must be low or high') },
    }),
    async (c) => c.json(await submitImagineVideo(deps, c.var.account, c.req.valid('json')), 200),
  );

  // POST /imagine-video-extend – one Midjourney clip continued, four new clips
  router.openapi(
    createRoute({
      method: 'post',
      path: '/imagine-video-extend',
      tags: ['Midjourney'],
      summary: 'Extend video',
      description: `Video \`index\` of a finished imagine-video task continued by about 4 seconds, four ways (task type imagine-video-extend). Costs ${credits(priceOf('imagine-video-extend'))}. ${fetchNote}`,
      ...authed,
      request: { body: jsonBody(ImagineVideoExtendRequest) },
      responses: { 200: submitted, ...submitErrors, 400: invalid('index: Must be 1, 2, 3 or 4'), ...parentErrors },
    }),
    async (c) => c.json(await submitImagineVideoExtend(deps, c.var.account, c.req.valid('json')), 200),
  );

  return router;
}
