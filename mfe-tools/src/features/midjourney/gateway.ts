// Everything the Midjourney tool asks of the outside world, behind one interface so the screen
// can be tested with a fake. The real one goes through shared-kit's API client (the provider API,
// spec §7) and the page's supabase-js client (task rows, realtime, toggle_favorite).
import { useMemo } from 'react';
import { useApiClient, type ApiClient } from '@aim/shared-kit/api';
import { useUserRow } from '@aim/shared-kit/session';
import { getSupabaseClient } from '@aim/shared-kit/supabase';
import { createTaskSource, fetchImage, type TaskSource, uploadImage } from '../tasks/task-store.ts';
import type { MidjourneyTask, UpscaleType } from './task-model.ts';

export type MidjourneyGateway = TaskSource<MidjourneyTask> & {
  /** False until the user's API key is known: the API calls need it. */
  ready: boolean;
  imagine(prompt: string): Promise<string>;
  /** `type` omitted: the cell as is (upscale#N); subtle, creative, 2x or 4x enlarge it. */
  upscale(parentTaskId: string, index: number, type?: UpscaleType): Promise<string>;
  variation(parentTaskId: string, index: number): Promise<string>;
  reroll(parentTaskId: string): Promise<string>;
  /** POST /pro/seed: answers the id of the seed task, whose /fetch carries the seed. */
  requestSeed(taskId: string): Promise<string>;
  fetchTask(taskId: string): Promise<{ status?: string; seed?: string | number | null }>;
  upload(file: File): Promise<string>;
  toggleFavorite(taskId: string): Promise<boolean | null>;
  fetchImage(url: string): Promise<Blob>;
};

type SupabaseClient = ReturnType<typeof getSupabaseClient>;

type TaskIdAnswer = { task_id: string };

function createMidjourneyGateway(api: ApiClient, supabase: SupabaseClient, email: string | null, ready: boolean): MidjourneyGateway {
  const post = async (path: string, body: unknown) => (await api.post<TaskIdAnswer>(path, body)).task_id;
  const tasks = createTaskSource<MidjourneyTask>(supabase, 'mj-task');

  return {
    ready,
    imagine: (prompt) => post('/pro/imagine', { prompt }),
    upscale: (parentTaskId, index, type) => post('/pro/upscale', { parent_task_id: parentTaskId, index, ...(type ? { type } : {}) }),
    variation: (parentTaskId, index) => post('/pro/variations', { parent_task_id: parentTaskId, index }),
    reroll: (parentTaskId) => post('/pro/reroll', { parent_task_id: parentTaskId }),
    requestSeed: (taskId) => post('/pro/seed', { task_id: taskId }),
    fetchTask: (taskId) => api.post('/fetch', { task_id: taskId }),
    upload: (file) => uploadImage(api, file),
    readTask: tasks.readTask,
    watchTask: tasks.watchTask,
    async toggleFavorite(taskId) {
      const { data, error } = await supabase.rpc('toggle_favorite', { task_id: taskId, email });
      if (error) throw new Error(error.message);
      return typeof data === 'boolean' ? data : null;
    },
    fetchImage,
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
