/**
 * @module Schema pieces the task routes share (routes/tasks.ts, routes/ai-photos.ts,
 * routes/fetch.ts): the prompt, task ids, the per-task webhook, the `{ task_id }` answer, the
 * error answers of a submit and the task as /fetch shows it.
 */
import { WEBHOOK_EVENT_INPUTS, WEBHOOK_EVENTS_MESSAGE } from '../webhooks/webhook-events.ts';
import { z } from '@hono/zod-openapi';
import { authedErrorResponses, bodyErrorResponses, errorExample } from '../openapi/schemas.ts';
import { MAX_WEBHOOK_URL_LENGTH } from '../services/account/webhook-url.ts';
import { V1_STATUSES } from '../services/tasks/task-view.ts';

const MAX_PROMPT_LENGTH = 4000;

export const EXAMPLE_TASK_ID = '3b0c7c52-9a7e-4f55-a6a1-0c8f0f1d2e3a';
export const EXAMPLE_PARENT_ID = '8d2f1a64-5b3c-4e7d-9f10-2a3b4c5d6e7f';

/** 'Required' when the field is missing, else `Must be <what>`. */
export const required = (what: string) => ({ error: (issue: { input: unknown }) => (issue.input === undefined ? 'Required' : `Must be ${what}`) });

export const Prompt = z
  .string(required('a string'))
  .trim()
  .min(1, 'Prompt must not be empty')
  .max(MAX_PROMPT_LENGTH, `At most ${MAX_PROMPT_LENGTH} characters`)
  .openapi({ description: `What to picture (1–${MAX_PROMPT_LENGTH} characters, trimmed).`, example: 'a lighthouse on a cliff at sunset' });

export const TaskId = (description: string) =>
  z.guid({ error: (issue) => (issue.input === undefined ? 'Required' : 'Must be a task id') }).openapi({ description, example: EXAMPLE_PARENT_ID });

export const WebhookUrl = z
  .string()
  .nullish()
  // the limit is checked with the URL's other rules (400 invalid_webhook_url), so it is documented here only
  .openapi({
    description: `http:// or https:// URL (at most ${MAX_WEBHOOK_URL_LENGTH} characters) told about progress and the result of this task.`,
    maxLength: MAX_WEBHOOK_URL_LENGTH,
  });

export const WebhookSecret = z
  .string()
  .max(256, 'At most 256 characters')
  .nullish()
  .openapi({ description: 'Sent back with every webhook call of this task, so your server knows it is us.' });

export const WebhookEvents = z
  .array(z.enum(WEBHOOK_EVENT_INPUTS, { error: () => WEBHOOK_EVENTS_MESSAGE }))
  .max(WEBHOOK_EVENT_INPUTS.length, `At most ${WEBHOOK_EVENT_INPUTS.length} events`)
  .nullish()
  .openapi({
    description:
      'Which events of this task its webhooks are sent: `progress`, `completed`, `failed` (or their `task.`-prefixed names). Omitted or null: your account filter (every event when it has none); given, it replaces the account filter for this task. `[]` sends none.',
    example: ['completed', 'failed'],
  });

export const TaskIdResponse = z
  .object({ task_id: z.string().openapi({ description: 'Follow it with POST /fetch.' }) })
  .openapi('TaskIdResponse', { example: { task_id: EXAMPLE_TASK_ID } });

/** An error answer of the route, with its own example (the shared ErrorResponse schema). */
export const errorRef = (description: string, msg: string, code: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' }, example: errorExample({ msg, code }) } },
});

/** The error answers of every submit. */
export const submitErrors = {
  ...bodyErrorResponses,
  ...authedErrorResponses,
  402: errorRef('Your balance does not cover the price of the task; no task was created.', 'Not enough credits', 'insufficient_credits'),
};

/** The error answers of a submit made from an earlier task. */
export const parentErrors = {
  404: errorRef('No task of yours has that id.', 'Task not found', 'not_found'),
  409: errorRef('The task has not finished successfully, or has no images.', 'The task has not finished successfully', 'conflict'),
};

const Urls = (description: string) => z.array(z.string()).optional().openapi({ description });

/**
 * A task in the APIFRAME v1 shape (services/tasks/task-view.ts builds it): POST /fetch, each
 * entry of POST /fetch-many and every webhook body. A family's new result field goes here and
 * into `TaskResultFields` of task-view.ts.
 */
export const TaskView = z
  .object({
    task_id: z.string(),
    task_type: z.string().openapi({
      description:
        'imagine, reroll, variation-1…4, variation-strong/-subtle, upscale#1…4, upscale-creative/-subtle/-2x/-4x, pan-up/-down/-left/-right, outpaint-1.5x/-2x/-custom, inpaint, blend, describe, shorten, seed, flux-imagine, ideogram-imagine, ideogram-remix, ideogram-upscale, ideogram-describe, faceswap, ai-photo-upload, ai-photo-train, ai-photo-generate, luma, luma-ext, kling-video, kling-tryon, runway, imagine-video, imagine-video-extend, suno, suno-ext, suno-lyrics, suno-upload, udio.',
    }),
    status: z.enum(V1_STATUSES).openapi({
      description:
        'pending (waiting to start), staged, starting (accepted by the engine), processing, retry (an attempt failed; it will be tried again); terminal: finished, failed.',
    }),
    percentage: z.string().openapi({ description: 'Progress, "0" to "100" (a string, as v1 clients read it); never goes backwards within a run.' }),
    queue_position: z.number().int().min(0).optional().openapi({
      description:
        "POST /fetch and the event streams, while the task waits in its queue (status pending or retry): how many jobs of its engine start before it, under the queue's fairness rules (accounts take turns); 0: next. Absent once it runs.",
    }),
    estimated_start_at: z.string().nullable().optional().openapi({
      description:
        "With queue_position: when the task should start (ISO 8601), from the recent run times of its engine's jobs and how many run at once; an estimate, null until the engine has finished a job.",
    }),
    prompt: z.string().optional(),
    mode: z.string().optional().openapi({ description: 'The speed a Midjourney task was asked for (fast, turbo).' }),
    original_image_url: z.string().optional().openapi({ description: 'A grid task (imagine, reroll, variations): the picture of all four images.' }),
    image_urls: Urls('A grid: its four images (1 top left … 4 bottom right). A set (ideogram, AI photos): its pictures, listed as they are stored.'),
    image_url: z.string().optional().openapi({ description: 'A single-image task (upscale, faceswap, flux): the picture. Media URLs do not expire.' }),
    video_url: z.string().optional().openapi({
      description: 'A video task (luma, luma-ext, kling-video, runway, imagine-video…): the video (MP4). Its still is result.videos[0].poster_url.',
    }),
    video_urls: Urls('Every video of the task (video_url is the first; imagine-video makes four).'),
    audio_url: z.string().optional(),
    songs: z
      .array(
        z.object({
          audio_url: z.string(),
          image_url: z.string().optional(),
          title: z.string().optional(),
          lyrics: z.string().optional(),
          tags: z.string().optional(),
          duration: z.number().optional().openapi({ description: 'Seconds.' }),
          id: z.string().optional(),
          song_id: z.string().optional().openapi({ description: 'The same as id: what /suno-extend takes as song_id.' }),
        }),
      )
      .optional()
      .openapi({ description: 'Songs (suno, suno-ext, suno-upload, udio): each file (audio_url), its cover (image_url), title, lyrics, tags and length.' }),
    lyrics: z.string().optional().openapi({ description: 'A song task: the lyrics of its first song; suno-lyrics: the lyrics written.' }),
    seed: z.string().optional().openapi({ description: 'The seed, when known (a seed task: the seed of its parent).' }),
    trigger_word: z.string().optional().openapi({ description: 'An AI photo training: the word that names the person in prompts.' }),
    message: z
      .string()
      .optional()
      .openapi({ description: 'Why the task failed. On success only where the family says something (an AI photo upload: Images ready for training).' }),
    content: z
      .array(z.string())
      .optional()
      .openapi({ description: 'describe: four prompts for the picture; shorten: the shorter prompts; numbered 1️⃣ 2️⃣ … as Midjourney writes them.' }),
    full_content: z.string().optional().openapi({ description: "shorten: the analysis (the prompt's important tokens, what was removed)." }),
    description: z.string().optional().openapi({ description: 'ideogram-describe: the description of the picture.' }),
    actions: z.array(z.string()).optional().openapi({
      description:
        'What a finished task can be followed up with. A grid: upscale1…4, variation1…4, reroll. An upscaled image: upscale_subtle, upscale_creative, upscale_2x, upscale_4x, vary_subtle, vary_strong, zoom_out_2x, zoom_out_1.5x, pan_up, pan_down, pan_left, pan_right.',
    }),
    parent_task_id: z
      .string()
      .nullable()
      .openapi({ description: 'The task this one was made from (an upscale, variation, reroll, seed; a training, a generation).' }),
    child_task_ids: z.array(z.string()).optional().openapi({
      description:
        'POST /fetch and POST /fetch-many: the ids of the tasks made from this one (upscales, variations, rerolls, pan, zoom, vary, outpaint, inpaint, seed), oldest first; [] when none. Webhook bodies leave it out.',
    }),
    cost: z.number().int().openapi({ description: 'Credits held for this task (the charge once it finished).' }),
    refund: z.number().int().openapi({ description: 'Credits given back because the task failed.' }),
    result: z.record(z.string(), z.unknown()).nullable().openapi({
      description:
        'How it was made (engine, method, simulated, note, layout, width, height), plus what the engine found (an AI photo upload: per-photo verdicts; a training: its model); on failure { message, code }.',
    }),
    input_data: z.record(z.string(), z.unknown()).nullable().openapi({
      description:
        'What the task was asked, e.g. swap_image_url and target_image_url of a faceswap; ethnicity, gender, age and the stored images of an AI photo upload; training_images_id and trigger_word of a training.',
    }),
    archived: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
    expires_at: z
      .string()
      .nullable()
      .openapi({ description: 'AI photo uploads and trainings: after this they can no longer be trained on or generated from. Null: never.' }),
  })
  .openapi('Task', {
    example: {
      task_id: EXAMPLE_TASK_ID,
      task_type: 'imagine',
      status: 'finished',
      percentage: '100',
      prompt: 'a lighthouse on a cliff at sunset',
      original_image_url: `https://api.example.com/media/${EXAMPLE_TASK_ID}-grid.png`,
      image_urls: [1, 2, 3, 4].map((i) => `https://api.example.com/media/${EXAMPLE_TASK_ID}-${i}.png`),
      seed: '1234567',
      actions: ['upscale1', 'upscale2', 'upscale3', 'upscale4', 'variation1', 'variation2', 'variation3', 'variation4', 'reroll'],
      parent_task_id: null,
      child_task_ids: ['c4e5f6a7-1b2c-4d3e-8f9a-0b1c2d3e4f5a'],
      cost: 4,
      refund: 0,
      result: { engine: 'local', method: 'procedural-svg', simulated: true, layout: 'grid', width: 2048, height: 2048 },
      input_data: null,
      archived: false,
      created_at: '2026-11-22T10:00:00.000Z',
      updated_at: '2026-11-22T10:00:04.000Z',
      expires_at: null,
    },
  });
