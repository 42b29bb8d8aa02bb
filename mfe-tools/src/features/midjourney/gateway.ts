// Everything the Midjourney tool asks of the outside world, behind one interface so the screen
// can be tested with a fake. The real one goes through shared-kit's API client (the provider API,
// spec §7) and the page's supabase-js client (task rows, realtime, toggle_favorite).
import { useMemo } from 'react';
import { useApiClient, type ApiClient } from '@aim/shared-kit/api';
import { useUserRow } from '@aim/shared-kit/session';
import { getSupabaseClient } from '@aim/shared-kit/supabase';
import { cancelTask } from '../tasks/cancel-task.ts';
import { createTaskSource, fetchImage, type TaskSource, uploadImage } from '../tasks/task-store.ts';
import type { LineageRow } from './lineage.ts';
import { createLineageReader } from './lineage-source.ts';
import type { BlendDimension, CustomZoom, MidjourneyTask, PanDirection, UpscaleType, VaryType } from './task-model.ts';

export type MidjourneyGateway = TaskSource<MidjourneyTask> & {
  /** False until the user's API key is known: the API calls need it. */
  ready: boolean;
  imagine(prompt: string): Promise<string>;
  /** POST /pro/upscale {parent_task_id, index, type} (spec §7): a grid cell, or an upscaled image (index 1) further. */
  upscale(parentTaskId: string, index: number, type: UpscaleType): Promise<string>;
  /** POST /pro/variations {parent_task_id, index} (spec §7): four variations of a grid cell. */
  variation(parentTaskId: string, index: number): Promise<string>;
  /** Vary (Strong)/(Subtle) of a grid cell. */
  varyCell(parentTaskId: string, index: number, type: VaryType): Promise<string>;
  /** Vary (Strong)/(Subtle) of an upscaled image. */
  varyImage(parentTaskId: string, type: VaryType): Promise<string>;
  /** Pan an upscaled image: a new grid that extends it one way. */
  pan(parentTaskId: string, direction: PanDirection): Promise<string>;
  /** Zoom Out an upscaled image by `ratio` (1–2); Custom Zoom adds what the new area shows and the canvas's shape. */
  zoomOut(parentTaskId: string, ratio: number, custom?: CustomZoom): Promise<string>;
  /** Vary Region: `mask` is base64 of a PNG the size of the picture, white where it changes; a blank prompt keeps the picture's. */
  varyRegion(parentTaskId: string, mask: string, prompt: string): Promise<string>;
  /** Four prompts that would picture the image at `imageUrl`. */
  describe(imageUrl: string): Promise<string>;
  /** A grid blending 2–5 images. */
  blend(imageUrls: string[], dimension: BlendDimension): Promise<string>;
  /** Shorter versions of a prompt. */
  shorten(prompt: string): Promise<string>;
  reroll(parentTaskId: string): Promise<string>;
  /** POST /pro/seed: answers the id of the seed task, whose /fetch carries the seed. */
  requestSeed(taskId: string): Promise<string>;
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

type TaskIdAnswer = { task_id: string };

/** The real gateway over an API client and a supabase-js client (exported for its payload test). */
export function createMidjourneyGateway(api: ApiClient, supabase: SupabaseClient, email: string | null, ready: boolean): MidjourneyGateway {
  const post = async (path: string, body: unknown) => (await api.post<TaskIdAnswer>(path, body)).task_id;
  const tasks = createTaskSource<MidjourneyTask>(supabase, 'mj-task');

  return {
    ready,
    imagine: (prompt) => post('/pro/imagine', { prompt }),
    upscale: (parentTaskId, index, type) => post('/pro/upscale', { parent_task_id: parentTaskId, index, type }),
    variation: (parentTaskId, index) => post('/pro/variations', { parent_task_id: parentTaskId, index }),
    varyCell: (parentTaskId, index, type) => post('/pro/vary', { parent_task_id: parentTaskId, index, type }),
    varyImage: (parentTaskId, type) => post('/variations', { parent_task_id: parentTaskId, index: type }),
    pan: (parentTaskId, direction) => post('/pan', { parent_task_id: parentTaskId, direction }),
    zoomOut: (parentTaskId, ratio, custom) =>
      post('/outpaint', {
        parent_task_id: parentTaskId,
        zoom_ratio: ratio,
        ...(custom?.aspectRatio ? { aspect_ratio: custom.aspectRatio } : {}),
        ...(custom?.prompt?.trim() ? { prompt: custom.prompt.trim() } : {}),
      }),
    // The API refuses an empty prompt; without one it keeps the picture's own.
    varyRegion: (parentTaskId, mask, prompt) => post('/inpaint', { parent_task_id: parentTaskId, mask, ...(prompt.trim() ? { prompt: prompt.trim() } : {}) }),
    describe: (imageUrl) => post('/describe', { image_url: imageUrl }),
    blend: (imageUrls, dimension) => post('/blend', { image_urls: imageUrls, dimension }),
    shorten: (prompt) => post('/shorten', { prompt }),
    reroll: (parentTaskId) => post('/pro/reroll', { parent_task_id: parentTaskId }),
    requestSeed: (taskId) => post('/pro/seed', { task_id: taskId }),
    fetchTask: (taskId) => api.post('/fetch', { task_id: taskId }),
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
  const api = useApiClient();
  const { row } = useUserRow();
  const email = row?.email ?? null;
  const ready = !!row?.api_key;
  return useMemo(() => createMidjourneyGateway(api, getSupabaseClient(), email, ready), [api, email, ready]);
}
