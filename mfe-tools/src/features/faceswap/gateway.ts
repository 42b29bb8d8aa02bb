// Everything the Faceswap screen asks of the outside world, behind one interface so the screen
// can be tested with a fake: POST /upload and POST /faceswap through shared-kit's API client
// (the user's API key), the task row and its live updates through the page's supabase-js client.
import { useMemo } from 'react';
import { type ApiClient, useApiClient } from '@aim/shared-kit/api';
import { useUserRow } from '@aim/shared-kit/session';
import { getSupabaseClient } from '@aim/shared-kit/supabase';
import { cancelTask } from '../tasks/cancel-task.ts';
import { createTaskSource, fetchImage, type TaskSource, uploadImage } from '../tasks/task-store.ts';
import type { FaceswapTask } from './faceswap-rules.ts';

export type FaceswapGateway = TaskSource<FaceswapTask> & {
  /** False until the user's API key is known: the API calls need it, and ?taskId= waits for it. */
  ready: boolean;
  /** POST /upload; throws without a toast of its own (the screen says 'Error uploading images!'). */
  upload(file: File): Promise<string>;
  /** POST /faceswap {swap_image_url, target_image_url} → the new task's id. */
  faceswap(swapImageUrl: string, targetImageUrl: string): Promise<string>;
  fetchImage(url: string): Promise<Blob>;
  /** POST /cancel {task_id}: stops an active task (it ends failed, 'Cancelled', refunded). */
  cancel(taskId: string): Promise<void>;
};

function createFaceswapGateway(api: ApiClient, ready: boolean): FaceswapGateway {
  const tasks = createTaskSource<FaceswapTask>(getSupabaseClient(), 'faceswap-task');
  return {
    ready,
    upload: (file) => uploadImage(api, file, { toastOnError: false }),
    async faceswap(swapImageUrl, targetImageUrl) {
      // API errors (no credits, an unreadable URL) are toasted by the API client with the server's message.
      return (await api.post<{ task_id: string }>('/faceswap', { swap_image_url: swapImageUrl, target_image_url: targetImageUrl })).task_id;
    },
    readTask: tasks.readTask,
    watchTask: tasks.watchTask,
    fetchImage,
    cancel: (taskId) => cancelTask(api, taskId),
  };
}

/** The gateway for the signed-in user. */
export function useFaceswapGateway(): FaceswapGateway {
  const api = useApiClient();
  const { row } = useUserRow();
  const ready = !!row?.api_key;
  return useMemo(() => createFaceswapGateway(api, ready), [api, ready]);
}
