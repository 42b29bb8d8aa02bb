// Everything the Faceswap screen asks of the outside world, behind one interface so the screen
// can be tested with a fake: POST /upload and POST /faceswap through shared-kit's API client
// (the user's API key), the task row and its live updates through the page's supabase-js client.
import { useMemo } from 'react';
import { type TypedApi, useApi } from '@aim/shared-kit/api';
import { useUserRow } from '@aim/shared-kit/session';
import { getSupabaseClient } from '@aim/shared-kit/supabase';
import { cancelTask } from '../tasks/cancel-task.ts';
import { type ActionKey, postCreate } from '../tasks/create-call.ts';
import { createTaskSource, fetchImage, type TaskSource, uploadImage } from '../tasks/task-store.ts';
import type { FaceswapTask } from './faceswap-rules.ts';

export type FaceswapGateway = TaskSource<FaceswapTask> & {
  /** False until the user's API key is known: the API calls need it, and ?taskId= waits for it. */
  ready: boolean;
  /** POST /upload; throws without a toast of its own (the screen says 'Error uploading images!'). */
  upload(file: File): Promise<string>;
  /** POST /faceswap {swap_image_url, target_image_url} with the Generate click's Idempotency-Key (create-call.ts) → the new task's id. */
  faceswap(swapImageUrl: string, targetImageUrl: string, key: ActionKey): Promise<string>;
  fetchImage(url: string): Promise<Blob>;
  /** POST /cancel {task_id}: stops an active task (it ends failed, 'Cancelled', refunded). */
  cancel(taskId: string): Promise<void>;
};

function createFaceswapGateway(api: TypedApi, ready: boolean): FaceswapGateway {
  const tasks = createTaskSource<FaceswapTask>(getSupabaseClient(), 'faceswap-task');
  return {
    ready,
    upload: (file) => uploadImage(api, file, { toastOnError: false }),
    // API errors (no credits, an unreadable URL) are toasted with the server's message.
    faceswap: (swapImageUrl, targetImageUrl, key) => postCreate(api, '/faceswap', { swap_image_url: swapImageUrl, target_image_url: targetImageUrl }, key),
    readTask: tasks.readTask,
    watchTask: tasks.watchTask,
    fetchImage,
    cancel: (taskId) => cancelTask(api, taskId),
  };
}

/** The gateway for the signed-in user. */
export function useFaceswapGateway(): FaceswapGateway {
  const api = useApi();
  const { row } = useUserRow();
  const ready = !!row?.api_key;
  return useMemo(() => createFaceswapGateway(api, ready), [api, ready]);
}
