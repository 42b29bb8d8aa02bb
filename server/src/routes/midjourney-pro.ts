/**
 * @module The pro Midjourney calls that act on one image of a grid: /pro/vary, /pro/zoom and
 * /pro/pan (with today's /pro/imagine, /pro/variations, /pro/upscale, /pro/reroll and
 * /pro/seed in tasks.ts). `parent_task_id` is a grid and `index` its image (upscaled first by
 * the engine), or an upscaled image with index 1. They share the services of the v1 calls.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { ApiDeps } from '../context.ts';
import { jsonBody, jsonResponse } from '../openapi/schemas.ts';
import { createRouter } from '../openapi/router.ts';
import type { TaskDeps } from '../services/tasks/create-task.ts';
import { submitOutpaint } from '../services/tasks/submit-outpaint.ts';
import { submitPan } from '../services/tasks/submit-pan.ts';
import { submitVary } from '../services/tasks/submit-vary.ts';
import { AspectRatio, actionParentErrors, cellOf, costs, Index, zoomOf } from './picture-schemas.ts';
import { EXAMPLE_PARENT_ID, Prompt, submitErrors, TaskId, TaskIdResponse, WebhookEvents, WebhookSecret, WebhookUrl } from './task-schemas.ts';
import { submitAuth } from './submit-auth.ts';

const hooks = { webhook_url: WebhookUrl, webhook_secret: WebhookSecret, webhook_events: WebhookEvents };
const PARENT = 'A finished grid of yours (index names the image), or an upscaled image (index 1).';

const ZOOM_TYPES = ['1', '1.5', '2'] as const;
const ZOOM_TYPE_MESSAGE = 'Must be "1.5", "2" or "1"';

const VaryRequest = z
  .object({
    parent_task_id: TaskId(PARENT),
    index: Index,
    type: z
      .enum(['strong', 'subtle'], { error: (issue) => (issue.input === undefined ? 'Required' : 'Must be strong or subtle') })
      .openapi({ description: 'Vary (Strong) or Vary (Subtle).' }),
    ...hooks,
  })
  .openapi('ProVaryRequest', { example: { parent_task_id: EXAMPLE_PARENT_ID, index: 2, type: 'strong' } });

const ZoomRequest = z
  .object({
    parent_task_id: TaskId(PARENT),
    index: Index,
    type: z
      .union([z.enum(ZOOM_TYPES), z.literal(1), z.literal(1.5), z.literal(2)], {
        error: (issue) => (issue.input === undefined ? 'Required' : ZOOM_TYPE_MESSAGE),
      })
      .openapi({ description: '"1.5" and "2": Zoom Out 1.5x and 2x; "1": Custom Zoom to aspect_ratio (Make Square when it is 1:1 or omitted).', example: '2' }),
    aspect_ratio: AspectRatio('The shape of the new canvas (Custom Zoom).'),
    prompt: Prompt.optional().openapi({ description: 'Custom Zoom: what to draw in the new area.' }),
    ...hooks,
  })
  .openapi('ProZoomRequest', { example: { parent_task_id: EXAMPLE_PARENT_ID, index: 1, type: '1.5' } });

const PanRequest = z
  .object({
    parent_task_id: TaskId(PARENT),
    index: Index,
    type: z
      .enum(['up', 'down', 'left', 'right'], { error: (issue) => (issue.input === undefined ? 'Required' : 'Must be up, down, left or right') })
      .openapi({ description: 'Which side the canvas grows on.' }),
    ...hooks,
  })
  .openapi('ProPanRequest', { example: { parent_task_id: EXAMPLE_PARENT_ID, index: 3, type: 'left' } });

export function midjourneyProRoutes(deps: ApiDeps & TaskDeps) {
  const router = createRouter();
  const authed = submitAuth(deps);
  const submitted = jsonResponse(TaskIdResponse, 'The task was created and its price held; follow it with POST /fetch.');
  const responses = (conflict: string) => ({ 200: submitted, ...submitErrors, ...actionParentErrors(conflict) });

  // POST /pro/vary – Vary (Strong/Subtle) of one image of a grid
  router.openapi(
    createRoute({
      method: 'post',
      path: '/pro/vary',
      tags: ['Midjourney'],
      summary: 'Vary (Strong/Subtle)',
      description: `Four strong or subtle variations of one image of a finished grid (task type variation-strong or variation-subtle). ${costs('variation-strong')}`,
      ...authed,
      request: { body: jsonBody(VaryRequest) },
      responses: responses(
        'Vary (Strong) works on a Midjourney image (upscale#1–4, upscale-subtle or upscale-creative, or one image of a grid); this task is flux-imagine',
      ),
    }),
    async (c) => {
      const { index, ...input } = c.req.valid('json');
      return c.json(await submitVary(deps, c.var.account, { ...input, index: cellOf(index) }), 200);
    },
  );

  // POST /pro/zoom – Zoom Out of one image of a grid
  router.openapi(
    createRoute({
      method: 'post',
      path: '/pro/zoom',
      tags: ['Midjourney'],
      summary: 'Zoom out',
      description: `A grid of four with one image of a finished grid on a larger canvas (task type outpaint-1.5x, outpaint-2x or outpaint-custom). ${costs('outpaint-2x')}`,
      ...authed,
      request: { body: jsonBody(ZoomRequest) },
      responses: responses('Zoom out cannot follow an upscale-2x: an enlargement is an end result; use the upscaled image it was made from'),
    }),
    async (c) => {
      const { type, index, ...input } = c.req.valid('json');
      return c.json(await submitOutpaint(deps, c.var.account, { ...input, zoom_ratio: zoomOf(type), index: cellOf(index) }), 200);
    },
  );

  // POST /pro/pan – Pan of one image of a grid
  router.openapi(
    createRoute({
      method: 'post',
      path: '/pro/pan',
      tags: ['Midjourney'],
      summary: 'Pan',
      description: `A grid of four with one image of a finished grid extended on one side (task type pan-up, pan-down, pan-left or pan-right). ${costs('pan-up')}`,
      ...authed,
      request: { body: jsonBody(PanRequest) },
      responses: responses('Pan works on a Midjourney image (upscale#1–4, upscale-subtle or upscale-creative, or one image of a grid); this task is faceswap'),
    }),
    async (c) => {
      const { type, index, ...input } = c.req.valid('json');
      return c.json(await submitPan(deps, c.var.account, { ...input, direction: type, index: cellOf(index) }), 200);
    },
  );

  return router;
}
