/**
 * @module A task as the API shows it, in the APIFRAME v1 shape: POST /fetch, POST /fetch-many,
 * every webhook body and the worker's task events are built here, by `toTaskView`, and nowhere
 * else.
 *
 * The view is three parts, in this order:
 * 1. what every v1 result has: `task_id`, `task_type`, `status` (a v1 status, see
 *    `v1StatusOf`), `percentage` (a string, "0"…"100");
 * 2. the family's result fields, only those that apply (`TaskResultFields`: `prompt`, `mode`,
 *    `original_image_url`, `image_urls`, `image_url`, `video_url(s)`, `audio_url`, `songs`,
 *    `lyrics`, `seed`, `trigger_word`, …), `message` (the failure's, or a family's note on
 *    success) and `actions` (the follow-ups of a finished task);
 * 3. our extras, always present: `parent_task_id`, `cost`, `refund`, `result` (how it was
 *    made: engine, method, simulated, note, … or { message, code } on failure), `input_data`,
 *    `archived`, `created_at`, `updated_at`, `expires_at`.
 *
 * A family adds its fields in `task-view-families.ts` (see there); a new field also goes into
 * `TaskResultFields` here and into the route schema (`routes/task-schemas.ts`, TaskView).
 */
import type { TaskRow } from '../../repositories/task-repository.ts';
import { TERMINAL_STATUSES } from '../../repositories/task-repository.ts';
import { familyViewOf, type PictureLayout } from './task-view-families.ts';

/** The statuses a v1 client knows (spec §4's terminal success is `finished`). */
export const V1_STATUSES = ['pending', 'staged', 'starting', 'processing', 'finished', 'failed', 'retry'] as const;
export type V1Status = (typeof V1_STATUSES)[number];

/** A song of an audio task (result.songs[i]). */
export interface SongView {
  audio_url: string;
  image_url?: string;
  title?: string;
  lyrics?: string;
  tags?: string;
  duration?: number;
  id?: string;
  /** The same as `id`: the name v1 clients give a song (/suno-extend's song_id). */
  song_id?: string;
}

/** The family result fields a view may carry; each only when it applies to the task. */
export interface TaskResultFields {
  prompt?: string;
  /** The speed a Midjourney pro task was asked for (fast, turbo). */
  mode?: string;
  /** A grid task's picture of all four cells. */
  original_image_url?: string;
  /** A grid's cells, or a set's pictures (they appear one by one while the task runs). */
  image_urls?: string[];
  /** The one picture of a single-image task (an upscale, a faceswap, a flux image). */
  image_url?: string;
  video_url?: string;
  video_urls?: string[];
  audio_url?: string;
  songs?: SongView[];
  lyrics?: string;
  seed?: string;
  /** An AI photo training's trigger word. */
  trigger_word?: string;
  /** Why the task failed; or a family's word on success (an AI photo upload: 'Images ready for training'). */
  message?: string;
  /** A describe's or shorten's prompts, numbered (1️⃣ …). */
  content?: string[];
  /** A shorten's analysis (important tokens, what was removed). */
  full_content?: string;
  /** An Ideogram describe's description. */
  description?: string;
  /** What a finished task can be followed up with (a Midjourney grid: upscale1…4, variation1…4, reroll). */
  actions?: string[];
}

export interface TaskView extends TaskResultFields {
  task_id: string;
  task_type: string;
  status: V1Status;
  /** "0"…"100"; never goes backwards within a run. */
  percentage: string;
  parent_task_id: string | null;
  /** Credits held for the task (kept as the charge on success). */
  cost: number;
  /** Credits given back because it failed. */
  refund: number;
  result: Record<string, unknown> | null;
  input_data: Record<string, unknown> | null;
  /** True when the task was read from tasks_archive_1. */
  archived: boolean;
  created_at: string;
  updated_at: string;
  /** AI photo uploads and trainings: after this they can no longer be trained or generated from. */
  expires_at: string | null;
}

/** What the task row does not say: whether its job is waiting for another attempt. */
export interface TaskJobState {
  retrying?: boolean;
}

/** Shown when a failed task has no message of its own (old rows). */
const FAILED_MESSAGE = 'The task failed';

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

export function isTerminal(status: string): boolean {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}

/** Finished successfully: `finished`, or `success` as rows written before v1 compatibility say. */
export function isFinished(status: string): boolean {
  return status === 'finished' || status === 'success';
}

/**
 * Our stored status (spec §4) as a v1 status. A job waiting for another attempt is `retry`,
 * whatever the row says (the worker stores `queued` then); `queued` otherwise means waiting to
 * start, here or at the upstream. `submitted` (an upstream accepted the job) reads as
 * `starting`; `running` as `processing`; an unknown active status as `processing`.
 */
function v1StatusOf(status: string, job: TaskJobState = {}): V1Status {
  if (isFinished(status)) return 'finished';
  if (status === 'failed') return 'failed';
  if (job.retrying || status === 'retry' || status === 'retrying') return 'retry';
  switch (status) {
    case 'pending':
    case 'queued':
      return 'pending';
    case 'staged':
      return 'staged';
    case 'submitted':
    case 'starting':
      return 'starting';
    default:
      return 'processing';
  }
}

const nonEmpty = (urls: string[] | null | undefined): urls is string[] => Array.isArray(urls) && urls.length > 0;

/** The picture fields of a layout: a grid's cells under its composite, a set's pictures, a single one. */
function pictureFields(row: TaskRow, layout: PictureLayout): TaskResultFields {
  switch (layout) {
    case 'grid':
      return { ...(row.image_url ? { original_image_url: row.image_url } : {}), ...(nonEmpty(row.image_urls) ? { image_urls: row.image_urls } : {}) };
    case 'set':
      return nonEmpty(row.image_urls) ? { image_urls: row.image_urls } : {};
    case 'single': {
      const url = row.image_url ?? row.image_urls?.[0];
      return url ? { image_url: url } : {};
    }
    default:
      return {};
  }
}

/** Videos, songs and lyrics, for whichever task has them. */
function mediaFields(row: TaskRow): TaskResultFields {
  const fields: TaskResultFields = {};
  const videos = nonEmpty(row.video_urls) ? row.video_urls : row.video_url ? [row.video_url] : [];
  if (videos.length > 0) {
    fields.video_url = row.video_url ?? videos[0];
    fields.video_urls = videos;
  }
  if (nonEmpty(row.audio_urls)) fields.audio_url = row.audio_urls[0];
  const songs = row.result?.songs;
  if (Array.isArray(songs) && songs.length > 0) fields.songs = songs as SongView[];
  if (row.lyrics) fields.lyrics = row.lyrics;
  return fields;
}

/** The layout the engine reported for a task, when it did (old rows and failures may not say). */
function reportedLayout(row: TaskRow): PictureLayout | undefined {
  const layout = row.result?.layout;
  return layout === 'grid' || layout === 'single' || layout === 'set' || layout === 'none' ? layout : undefined;
}

/**
 * THE view of a task (see the module comment). `job` says what only the queue knows; without
 * it a task waiting for a retry reads as pending (a terminal task needs none).
 */
export function toTaskView(row: TaskRow, job: TaskJobState = {}): TaskView {
  const status = v1StatusOf(row.status, job);
  const family = familyViewOf(row.type);
  // Pictures stored before a failure are not shown (the worker clears them; old rows may not).
  const layout = status === 'failed' ? 'none' : (family?.pictures ?? reportedLayout(row) ?? (nonEmpty(row.image_urls) ? 'set' : 'single'));
  const fields: TaskResultFields = {
    ...(row.prompt ? { prompt: row.prompt } : {}),
    ...(row.mode ? { mode: row.mode } : {}),
    ...pictureFields(row, layout),
    ...(status === 'failed' ? {} : mediaFields(row)),
    ...(row.seed ? { seed: row.seed } : {}),
    ...family?.fields?.(row, status),
  };
  if (status === 'failed') {
    const message = row.result?.message;
    fields.message = typeof message === 'string' && message ? message : FAILED_MESSAGE;
  }
  if (status === 'finished') {
    const actions = family?.actions?.(row) ?? [];
    if (actions.length > 0) fields.actions = actions;
  }
  return {
    task_id: row.id,
    task_type: row.type,
    status,
    percentage: String(status === 'finished' ? 100 : Math.min(Math.max(Math.trunc(row.percentage), 0), 100)),
    ...fields,
    parent_task_id: row.parent_id,
    cost: row.cost,
    refund: row.refund,
    result: row.result,
    input_data: row.input_data,
    archived: row.archived,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    expires_at: row.expires_at ? iso(row.expires_at) : null,
  };
}
