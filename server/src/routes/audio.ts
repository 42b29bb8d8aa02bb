/**
 * @module Songs (APIFRAME v1 audio calls): /suno-imagine, /suno-extend, /suno-lyrics,
 * /suno-upload, /udio-imagine, each holding its price and answering `{ task_id }`; the work
 * runs on the task worker and shows in POST /fetch (`songs`, `audio_url`, `lyrics`). And POST
 * /upload-audio (multipart `audio`) → `{ audioURL, expires_at }`, mounted before the app-wide
 * JSON body limit with its own: the key and a free account's quota are checked from the
 * headers before the body is read, which is streamed (busboy), counted and cut at the limit.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { ApiDeps } from '../context.ts';
import { DEFAULT_SUNO_MODEL, DEFAULT_UDIO_MODEL, SUNO_MODELS, UDIO_MODELS } from '../engines/jobs/audio.ts';
import { ApiError } from '../errors.ts';
import { apiKeyAuth } from '../middleware/api-key-auth/index.ts';
import { declaredLengthLimit, uploadMemoryOf, uploadMemorySlot, uploadQuotaGate, type UploadMemoryDeps } from '../middleware/upload-limit/index.ts';
import { apiKeySecurity, authedErrorResponses, jsonBody, jsonResponse } from '../openapi/schemas.ts';
import { createRouter } from '../openapi/router.ts';
import { priceOf } from '../services/pricing/catalog.ts';
import type { TaskDeps } from '../services/tasks/create-task.ts';
import { submitSunoExtend, submitSunoImagine, submitSunoLyrics, submitSunoUpload, submitUdioImagine, UDIO_SECONDS } from '../services/tasks/submit-audio.ts';
import { AUDIO_TOO_LARGE_MESSAGE, AUDIO_TYPE_MESSAGE, MAX_AUDIO_UPLOAD_BYTES, uploadAudio } from '../services/tasks/upload-audio.ts';
import { readMultipartFile } from '../services/uploads/multipart-file.ts';
import type { UploadDeps } from '../services/uploads/store-upload.ts';
import { DEFAULT_UPLOAD_POLICY } from '../services/uploads/upload-quota.ts';
import { MAX_IMAGE_URL_LENGTH } from '../storage/image-url.ts';
import type { MediaStore } from '../storage/media-store.ts';
import { UploadExpiresAt, uploadQuotaError } from './upload.ts';
import {
  EXAMPLE_PARENT_ID,
  errorRef,
  parentErrors,
  Prompt,
  required,
  submitErrors,
  TaskIdResponse,
  WebhookEvents,
  WebhookSecret,
  WebhookUrl,
} from './task-schemas.ts';
import { submitAuth } from './submit-auth.ts';
import { refuseIdempotencyKey } from '../middleware/idempotency/index.ts';

// room for the multipart boundaries and part headers around the file
const MULTIPART_OVERHEAD = 64 * 1024;
const MAX_AUDIO_BODY = MAX_AUDIO_UPLOAD_BYTES + MULTIPART_OVERHEAD;
const audioTooLarge = () => new ApiError('payload_too_large', AUDIO_TOO_LARGE_MESSAGE);

const MAX_DESCRIPTION = 3000;
const MAX_LYRICS = 5000;
const MAX_TITLE = 80;
const MAX_TAGS = 200;

const credits = (type: string) => {
  const price = priceOf(type) ?? 0;
  return `Costs ${price} credit${price === 1 ? '' : 's'}`;
};

const text = (max: number, description: string, example?: string) =>
  z
    .string(required('a string'))
    .max(max, `At most ${max} characters`)
    .optional()
    .openapi({ description: `${description} At most ${max} characters.`, ...(example ? { example } : {}) });

const unit = (description: string) =>
  z
    .number(required('a number'))
    .min(0, 'Must be between 0 and 1')
    .max(1, 'Must be between 0 and 1')
    .optional()
    .openapi({ description: `${description} From 0 to 1.` });

const seconds = (description: string, max: number) =>
  z.number(required('a number')).min(0, `Must be between 0 and ${max}`).max(max, `Must be between 0 and ${max}`).optional().openapi({ description });

const bool = (description: string) => z.boolean(required('true or false')).optional().openapi({ description });

const SunoModel = z.enum(SUNO_MODELS, { error: () => `Must be one of ${SUNO_MODELS.join(', ')}` });

const SunoImagineRequest = z
  .object({
    prompt: text(
      MAX_DESCRIPTION,
      'What the song is like (style, mood, instruments, subject). Needed unless lyrics are given.',
      'a melancholy jazz song about rain in Paris, piano',
    ),
    lyrics: text(MAX_LYRICS, 'The words to sing; without them the song gets lyrics written for it (none when instrumental).'),
    model: SunoModel.optional().openapi({ description: `Suno model. Default ${DEFAULT_SUNO_MODEL}.` }),
    make_instrumental: bool('true: no words, no voice. Default false.'),
    title: text(MAX_TITLE, 'Title of the songs.'),
    tags: text(MAX_TAGS, "Style tags, e.g. 'jazz piano'."),
    webhook_url: WebhookUrl,
    webhook_events: WebhookEvents,
    webhook_secret: WebhookSecret,
  })
  .openapi('SunoImagineRequest', {
    example: {
      prompt: 'a melancholy jazz song about rain in Paris, piano',
      model: 'chirp-v4',
      make_instrumental: false,
      title: 'Paris Rain',
      tags: 'jazz piano',
    },
  });

const SunoExtendRequest = z
  .object({
    parent_task_id: z
      .guid({ error: () => 'Must be a task id' })
      .optional()
      .openapi({ description: 'A finished suno, suno-ext or suno-upload task of yours. Needed unless song_id is given.', example: EXAMPLE_PARENT_ID }),
    song_id: text(100, "Which song of the task (its songs[i].song_id); alone, it finds the task. Default: the task's first song."),
    continue_at: z
      .number(required('a number'))
      .positive('Must be more than 0')
      .max(3600, 'Must be at most 3600')
      .optional()
      .openapi({ description: "Seconds into the song where the new part begins; the song up to there is kept. Default: the song's end.", example: 20 }),
    from_upload: bool('true when the song is an audio you uploaded (a suno-upload task).'),
    prompt: text(MAX_DESCRIPTION, 'What the new part is like. Default: the original prompt.'),
    lyrics: text(MAX_LYRICS, 'Words for the new part.'),
    model: SunoModel.optional(),
    title: text(MAX_TITLE, 'Title of the extended song. Default: the original title.'),
    tags: text(MAX_TAGS, 'Style tags.'),
    webhook_url: WebhookUrl,
    webhook_events: WebhookEvents,
    webhook_secret: WebhookSecret,
  })
  .openapi('SunoExtendRequest', { example: { parent_task_id: EXAMPLE_PARENT_ID, continue_at: 20, prompt: 'the chorus again, louder' } });

const SunoLyricsRequest = z
  .object({
    prompt: Prompt.openapi({ description: 'What the lyrics are about.', example: 'a song about the first snow in the city' }),
    webhook_url: WebhookUrl,
    webhook_events: WebhookEvents,
    webhook_secret: WebhookSecret,
  })
  .openapi('SunoLyricsRequest', { example: { prompt: 'a song about the first snow in the city' } });

const SunoUploadRequest = z
  .object({
    audio_url: z
      .string(required('a string'))
      .max(MAX_IMAGE_URL_LENGTH, `At most ${MAX_IMAGE_URL_LENGTH} characters`)
      .openapi({
        description: `An audioURL from POST /upload-audio, or a public https:// URL of an MP3, WAV, Ogg or M4A file of at most ${MAX_AUDIO_UPLOAD_BYTES / 1024 / 1024} MB.`,
        example: 'https://api.example.com/media/upload-0f8e2c1a-7d3b-4a59-9c61-5e4f3a2b1c0d.mp3',
      }),
    webhook_url: WebhookUrl,
    webhook_events: WebhookEvents,
    webhook_secret: WebhookSecret,
  })
  .openapi('SunoUploadRequest', { example: { audio_url: 'https://api.example.com/media/upload-0f8e2c1a-7d3b-4a59-9c61-5e4f3a2b1c0d.mp3' } });

const longestUdio = Math.max(...Object.values(UDIO_SECONDS));

const UdioImagineRequest = z
  .object({
    prompt: text(MAX_DESCRIPTION, 'What the song is like. Needed unless lyrics are given.', 'sunny reggae with organ and horns'),
    lyrics: text(MAX_LYRICS, 'The words to sing; without them each song gets its own lyrics.'),
    model: z
      .enum(UDIO_MODELS, { error: () => `Must be one of ${UDIO_MODELS.join(', ')}` })
      .optional()
      .openapi({ description: `udio32-v1.5 (32-second songs) or udio130-v1.5 (130 seconds). Default ${DEFAULT_UDIO_MODEL}.` }),
    bypass_prompt_optimization: bool('Accepted for compatibility; the prompt is used as given.'),
    prompt_strength: unit('How closely the songs follow the prompt.'),
    clarity_strength: unit('How clean and separated the instruments sound.'),
    lyrics_strength: unit('How prominent the sung words are.'),
    generation_quality: unit('Quality against speed.'),
    negative_prompt: text(1000, 'What the songs should not have (instruments, styles).'),
    lyrics_placement_start: seconds('Seconds into the song where the lyrics begin.', longestUdio),
    lyrics_placement_end: seconds('Seconds into the song where the lyrics end.', longestUdio),
    tags: text(MAX_TAGS, 'Style tags.'),
    webhook_url: WebhookUrl,
    webhook_events: WebhookEvents,
    webhook_secret: WebhookSecret,
  })
  .openapi('UdioImagineRequest', {
    example: { prompt: 'sunny reggae with organ and horns', model: 'udio32-v1.5', prompt_strength: 0.7, lyrics_placement_start: 4, lyrics_placement_end: 20 },
  });

const UploadAudioResponse = z
  .object({
    audioURL: z.string().openapi({
      description: 'Absolute URL of the stored audio; it is kept until expires_at, or for good once a task uses it. Use it as /suno-upload audio_url.',
    }),
    expires_at: UploadExpiresAt,
  })
  .openapi('UploadAudioResponse', {
    example: { audioURL: 'https://api.example.com/media/upload-0f8e2c1a-7d3b-4a59-9c61-5e4f3a2b1c0d.mp3', expires_at: '2026-12-05T10:00:00.000Z' },
  });

const validation = (msg: string) => errorRef('Invalid input: malformed JSON, or a field that fails validation.', msg, 'validation_failed');

export function audioRoutes(deps: ApiDeps & TaskDeps & { media: MediaStore }) {
  const router = createRouter();
  const authed = submitAuth(deps);
  const submitted = jsonResponse(TaskIdResponse, 'The task was created and its price held; follow it with POST /fetch (songs, audio_url, lyrics).');

  // POST /suno-imagine – two songs from a description and/or lyrics (suno)
  router.openapi(
    createRoute({
      method: 'post',
      path: '/suno-imagine',
      tags: ['Suno'],
      summary: 'Suno: make songs',
      description: `Two songs from a description and/or lyrics (task type suno); /fetch shows songs[] with audio_url, image_url (cover), title, lyrics, duration and song_id. ${credits('suno')}.`,
      ...authed,
      request: { body: jsonBody(SunoImagineRequest) },
      responses: { 200: submitted, ...submitErrors, 400: validation('prompt: Required (describe the song, or give its lyrics)') },
    }),
    async (c) => c.json(await submitSunoImagine(deps, c.var.account, c.req.valid('json')), 200),
  );

  // POST /suno-extend – a song continued from continue_at (suno-ext)
  router.openapi(
    createRoute({
      method: 'post',
      path: '/suno-extend',
      tags: ['Suno'],
      summary: 'Suno: extend a song',
      description: `Two continuations of a song of a finished suno, suno-ext or suno-upload task (task type suno-ext): each keeps the song up to continue_at seconds and goes on from there. ${credits('suno-ext')}.`,
      ...authed,
      request: { body: jsonBody(SunoExtendRequest) },
      responses: {
        200: submitted,
        ...submitErrors,
        ...parentErrors,
        400: validation('continue_at: Must be at most 34.576 (the length of the song in seconds)'),
        404: errorRef('No task of yours has that id, or no song of yours that song_id.', 'Task not found', 'not_found'),
      },
    }),
    async (c) => c.json(await submitSunoExtend(deps, c.var.account, c.req.valid('json')), 200),
  );

  // POST /suno-lyrics – lyrics only (suno-lyrics)
  router.openapi(
    createRoute({
      method: 'post',
      path: '/suno-lyrics',
      tags: ['Suno'],
      summary: 'Suno: write lyrics',
      description: `Lyrics from a description, no song (task type suno-lyrics); /fetch shows lyrics. ${credits('suno-lyrics')}.`,
      ...authed,
      request: { body: jsonBody(SunoLyricsRequest) },
      responses: { 200: submitted, ...submitErrors },
    }),
    async (c) => c.json(await submitSunoLyrics(deps, c.var.account, c.req.valid('json')), 200),
  );

  // POST /suno-upload – an audio file made into a song to extend (suno-upload)
  router.openapi(
    createRoute({
      method: 'post',
      path: '/suno-upload',
      tags: ['Suno'],
      summary: 'Suno: upload a song',
      description: `Makes an audio file a song that /suno-extend can continue with from_upload (task type suno-upload); /fetch shows it in songs[] with its length. A URL that is malformed, not https (or not public), or an upload of ours that does not exist is refused at once; another site's file is read when the task runs, and one that cannot be read fails the task with the reason and gives the credits back. ${credits('suno-upload')}.`,
      ...authed,
      request: { body: jsonBody(SunoUploadRequest) },
      responses: { 200: submitted, ...submitErrors, 400: validation('audio_url: Must be an https:// URL') },
    }),
    async (c) => c.json(await submitSunoUpload(deps, c.var.account, c.req.valid('json')), 200),
  );

  // POST /udio-imagine – two songs (udio)
  router.openapi(
    createRoute({
      method: 'post',
      path: '/udio-imagine',
      tags: ['Udio'],
      summary: 'Udio: make songs',
      description: `Two songs, each with its own lyrics unless given (task type udio), ${UDIO_SECONDS['udio32-v1.5']} or ${UDIO_SECONDS['udio130-v1.5']} seconds long by model. ${credits('udio')}.`,
      ...authed,
      request: { body: jsonBody(UdioImagineRequest) },
      responses: { 200: submitted, ...submitErrors, 400: validation('prompt_strength: Must be between 0 and 1') },
    }),
    async (c) => c.json(await submitUdioImagine(deps, c.var.account, c.req.valid('json')), 200),
  );

  return router;
}

export function audioUploadRoutes(deps: ApiDeps & UploadDeps & UploadMemoryDeps & { media: MediaStore }) {
  const router = createRouter();

  // POST /upload-audio – store an audio file, answer its URL
  router.openapi(
    createRoute({
      method: 'post',
      path: '/upload-audio',
      tags: ['Media'],
      summary: 'Upload an audio file',
      description:
        `Stores an MP3, WAV, Ogg or M4A file (recognised by its content, at most ${MAX_AUDIO_UPLOAD_BYTES / 1024 / 1024} MB) and answers its URL, e.g. for /suno-upload. ` +
        `The upload is removed after ${DEFAULT_UPLOAD_POLICY.retentionDays} days (expires_at) unless a task uses it. ` +
        `Accounts without a plan can upload ${DEFAULT_UPLOAD_POLICY.freeCount} files (${DEFAULT_UPLOAD_POLICY.freeBytes / 1024 / 1024} MB) a day.`,
      security: apiKeySecurity,
      // the key and the quota from the headers, before a byte of the body is read
      middleware: [
        apiKeyAuth(deps, 'generate'),
        refuseIdempotencyKey(),
        declaredLengthLimit({ maxSize: MAX_AUDIO_BODY, tooLarge: audioTooLarge }),
        uploadQuotaGate(deps, MULTIPART_OVERHEAD),
        uploadMemorySlot(uploadMemoryOf(deps), MAX_AUDIO_BODY),
      ] as const,
      request: {
        body: {
          required: true,
          content: {
            // a plain schema (not zod): the handler reads the form itself for precise errors
            'multipart/form-data': { schema: { type: 'object', properties: { audio: { type: 'string', format: 'binary' } }, required: ['audio'] } },
          },
        },
      },
      responses: {
        200: jsonResponse(UploadAudioResponse, 'The stored audio.'),
        400: errorRef('No audio field.', 'audio: Required', 'validation_failed'),
        ...authedErrorResponses,
        413: errorRef(`Over ${MAX_AUDIO_UPLOAD_BYTES / 1024 / 1024} MB.`, AUDIO_TOO_LARGE_MESSAGE, 'payload_too_large'),
        415: errorRef('Not multipart/form-data, or not an MP3, WAV, Ogg or M4A file.', AUDIO_TYPE_MESSAGE, 'unsupported_media_type'),
        429: uploadQuotaError,
      },
    }),
    async (c) => {
      if (!/^multipart\/form-data\s*;/i.test(c.req.header('content-type') ?? '')) {
        throw new ApiError('unsupported_media_type', 'Content-Type must be multipart/form-data');
      }
      // streamed: the body counted and cut at its limit, only the audio kept (at most its limit)
      const audio = await readMultipartFile(c.req.raw, {
        field: 'audio',
        maxBodyBytes: MAX_AUDIO_BODY,
        maxFileBytes: MAX_AUDIO_UPLOAD_BYTES,
        tooLarge: audioTooLarge,
      });
      if (audio.kind === 'missing') throw new ApiError('validation_failed', 'audio: Required');
      if (audio.kind === 'text') throw new ApiError('validation_failed', 'audio: Must be a file');
      return c.json(await uploadAudio(deps, c.var.account.id, audio.data), 200);
    },
  );

  return router;
}
