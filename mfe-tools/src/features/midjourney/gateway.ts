// Everything the Midjourney tool asks of the outside world, behind one interface so the screen
// can be tested with a fake. The real one goes through shared-kit's API client (the provider API,
// spec §7) and the page's supabase-js client (task rows, realtime, toggle_favorite).
import { useMemo } from 'react';
import { type ApiBody, type TypedApi, useApi } from '@aim/shared-kit/api';
import { useUserRow } from '@aim/shared-kit/session';
import { getSupabaseClient } from '@aim/shared-kit/supabase';
import { cancelTask } from '../tasks/cancel-task.ts';
import { type ActionKey, type CreatePath, postCreate } from '../tasks/create-call.ts';
import { createTaskSource, fetchImage, type TaskSource, uploadImage } from '../tasks/task-store.ts';
import type { LineageRow } from './lineage.ts';
import { createLineageReader } from './lineage-source.ts';
import type { BlendDimension, CustomZoom, MidjourneyTask, PanDirection, UpscaleType, VaryType } from './task-model.ts';

/**
 * The calls that create a task take the user action's Idempotency-Key (`key`, see create-call.ts)
 * and answer the new task's id; their errors are toasted with the server's text.
 */
export type MidjourneyGateway = TaskSource<MidjourneyTask> & {
  /** False until the user's API key is known: the API calls need it. */
  ready: boolean;
  imagine(prompt: string, key: ActionKey): Promise<string>;
  /** POST /pro/upscale {parent_task_id, index, type} (spec §7): a grid cell, or an upscaled image (index 1) further. */
  upscale(parentTaskId: string, index: number, type: UpscaleType, key: ActionKey): Promise<string>;
  /** POST /pro/variations {parent_task_id, index} (spec §7): four variations of a grid cell. */
  variation(parentTaskId: string, index: number, key: ActionKey): Promise<string>;
  /** Vary (Strong)/(Subtle) of a grid cell. */
  varyCell(parentTaskId: string, index: number, type: VaryType, key: ActionKey): Promise<string>;
  /** Vary (Strong)/(Subtle) of an upscaled image. */
  varyImage(parentTaskId: string, type: VaryType, key: ActionKey): Promise<string>;
  /** Pan an upscaled image: a new grid that extends it one way. */
  pan(parentTaskId: string, direction: PanDirection, key: ActionKey): Promise<string>;
  /** Zoom Out an upscaled image by `ratio` (1–2); Custom Zoom adds what the new area shows and the canvas's shape. */
  zoomOut(parentTaskId: string, ratio: number, key: ActionKey, custom?: CustomZoom): Promise<string>;
  /** Vary Region: `mask` is base64 of a PNG the size of the picture, white where it changes; a blank prompt keeps the picture's. */
  varyRegion(parentTaskId: string, mask: string, prompt: string, key: ActionKey): Promise<string>;
  /** Four prompts that would picture the image at `imageUrl`. */
  describe(imageUrl: string, key: ActionKey): Promise<string>;
  /** A grid blending 2–5 images. */
  blend(imageUrls: string[], dimension: BlendDimension, key: ActionKey): Promise<string>;
  /** Shorter versions of a prompt. */
  shorten(prompt: string, key: ActionKey): Promise<string>;
  reroll(parentTaskId: string, key: ActionKey): Promise<string>;
  /** POST /pro/seed: answers the id of the seed task, whose /fetch carries the seed. */
  requestSeed(taskId: string, key: ActionKey): Promise<string>;
  fetchTask(taskId: string): Promise<{ status?: string; seed?: string | number | null }>;
  /** POST /cancel {task_id}: stops an active task (it ends failed, 'Cancelled', refunded). */
  cancel(taskId: string): Promise<void>;
  upload(file: File): Promise<string>;
  toggleFavorite(taskId: string): Promise<boolean | null>;
  fetchImage(url: string): Promise<Blob>;
  /** The family of a task (its ancestors and every task made from the first of them), the user's own rows only. */
  readLineage(taskId: string): Promise<LineageRow[]>;
};

type SupabaseClient = ReturnType<typeof getSupabaseClient>;

/**
 * The real gateway over an API client and a supabase-js client (exported for its payload test);
 * `notifyError` shows a refused call's text (default: the API client's toast).
 */
export function createMidjourneyGateway(
  api: TypedApi,
  supabase: SupabaseClient,
  email: string | null,
  ready: boolean,
  notifyError?: (message: string) => void,
): MidjourneyGateway {
  const post = <P extends CreatePath>(path: P, body: ApiBody<'post', P>, key: ActionKey) => postCreate(api, path, body, key, { notifyError });
  const tasks = createTaskSource<MidjourneyTask>(supabase, 'mj-task');

  return {
    ready,
    imagine: (prompt, key) => post('/pro/imagine', { prompt }, key),
    upscale: (parentTaskId, index, type, key) => post('/pro/upscale', { parent_task_id: parentTaskId, index, type }, key),
    variation: (parentTaskId, index, key) => post('/pro/variations', { parent_task_id: parentTaskId, index }, key),
    varyCell: (parentTaskId, index, type, key) => post('/pro/vary', { parent_task_id: parentTaskId, index, type }, key),
    varyImage: (parentTaskId, type, key) => post('/variations', { parent_task_id: parentTaskId, index: type }, key),
    pan: (parentTaskId, direction, key) => post('/pan', { parent_task_id: parentTaskId, direction }, key),
    zoomOut: (parentTaskId, ratio, key, custom) =>
      post(
        '/outpaint',
        {
          parent_task_id: parentTaskId,
          zoom_ratio: ratio,
          ...(custom?.aspectRatio ? { aspect_ratio: custom.aspectRatio } : {}),
          ...(custom?.prompt?.trim() ? { prompt: custom.prompt.trim() } : {}),
        },
        key,
      ),
    // The API refuses an empty prompt; without one it keeps the picture's own.
    varyRegion: (parentTaskId, mask, prompt, key) =>
      post('/inpaint', { parent_task_id: parentTaskId, mask, ...(prompt.trim() ? { prompt: prompt.trim() } : {}) }, key),
    describe: (imageUrl, key) => post('/describe', { image_url: imageUrl }, key),
    blend: (imageUrls, dimension, key) => post('/blend', { image_urls: imageUrls, dimension }, key),
    shorten: (prompt, key) => post('/shorten', { prompt }, key),
    reroll: (parentTaskId, key) => post('/pro/reroll', { parent_task_id: parentTaskId }, key),
    requestSeed: (taskId, key) => post('/pro/seed', { task_id: taskId }, key),
    fetchTask: (taskId) => api.post('/fetch', { body: { task_id: taskId } }),
    cancel: (taskId) => cancelTask(api, taskId),
    upload: (file) => uploadImage(api, file),
    readTask: tasks.readTask,
    watchTask: tasks.watchTask,
    async toggleFavorite(taskId) {
      const { data, error } = await supabase.rpc('toggle_favorite', { task_id: taskId, email });
      if (error) throw new Error(error.message);
      return typeof data === 'boolean' ? data : null;
    },
    fetchImage,
    readLineage: createLineageReader(supabase),
  };
}

/** The gateway for the signed-in user. */
export function useMidjourneyGateway(): MidjourneyGateway {
  const api = useApi();
  const { row } = useUserRow();
  const email = row?.email ?? null;
  const ready = !!row?.api_key;
  return useMemo(() => createMidjourneyGateway(api, getSupabaseClient(), email, ready), [api, email, ready]);
}
