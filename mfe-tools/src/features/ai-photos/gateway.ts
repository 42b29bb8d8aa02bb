// Everything the AI Photos screen asks of the outside world, behind one interface so the screen
// can be tested with a fake: the three AI photo calls through shared-kit's API client (the
// user's API key, spec §7), the side list and the task rows through the page's supabase-js client
// (spec §7 data store: ai-photo tasks not yet expired; a task by id and its live updates).
import { useMemo } from 'react';
import { type ApiBody, type TypedApi, useApi } from '@aim/shared-kit/api';
import { withNormalizedStatus } from '@aim/shared-kit/domain';
import { getSupabaseClient } from '@aim/shared-kit/supabase';
import { useUserRow } from '@aim/shared-kit/session';
import { cancelTask } from '../tasks/cancel-task.ts';
import { type ActionKey, type CreatePath, postCreate } from '../tasks/create-call.ts';
import { createTaskSource, fetchImage, type TaskSource } from '../tasks/task-store.ts';
import { AI_PHOTO_TYPES, type AiPhotoListItem, type AiPhotoTask, type AspectRatio, type Ethnicity, type Gender } from './ai-photos-rules.ts';

export type UploadPhotosInput = { images: string[]; gender: Gender; ethnicity: Ethnicity; age: number };
export type GenerateInput = {
  trainingId: string;
  prompt: string;
  aspectRatio: AspectRatio;
  width: number;
  height: number;
  numberOfImages: number;
  seed: number;
};

export type AiPhotosGateway = TaskSource<AiPhotoTask> & {
  /** False until the user's row (API key, email) is known: the calls need it, and ?taskId= waits for it. */
  ready: boolean;
  /**
   * The three calls take the user action's Idempotency-Key (see create-call.ts) and answer the
   * new task's id. They throw an `ApiError` without a toast of their own: the screen says the
   * spec's text ('Error uploading and preparing training data!', …) and shows the server's
   * reason beside the form.
   */
  uploadPhotos(input: UploadPhotosInput, key: ActionKey): Promise<string>;
  train(uploadTaskId: string, triggerWord: string, key: ActionKey): Promise<string>;
  generate(input: GenerateInput, key: ActionKey): Promise<string>;
  /** The side list: the user's ai-photo tasks not yet expired, newest first. */
  listTasks(): Promise<AiPhotoListItem[]>;
  fetchImage(url: string): Promise<Blob>;
  /** POST /cancel {task_id}: stops an active task (it ends failed, 'Cancelled', refunded). */
  cancel(taskId: string): Promise<void>;
};

type SupabaseClient = ReturnType<typeof getSupabaseClient>;

/** How many rows the side list reads; ai-photo tasks expire, so a user has few at a time. */
const LIST_LIMIT = 100;

// Only what a row shows: the result of a training (an identity profile) or of an upload check can be large.
const LIST_COLUMNS = [
  'id',
  'type',
  'status',
  'percentage',
  'created_at',
  'expires_at',
  'prompt',
  'trigger_word:input_data->>trigger_word',
  'gender:input_data->>gender',
  'ethnicity:input_data->>ethnicity',
  'age:input_data->>age',
].join(',');

function createAiPhotosGateway(api: TypedApi, supabase: SupabaseClient, email: string | null, ready: boolean): AiPhotosGateway {
  const post = <P extends CreatePath>(path: P, body: ApiBody<'post', P>, key: ActionKey) => postCreate(api, path, body, key, { toastOnError: false });
  const tasks = createTaskSource<AiPhotoTask>(supabase, 'ai-photo-task');
  return {
    ready,
    uploadPhotos: ({ images, gender, ethnicity, age }, key) => post('/ai-photo-upload', { images, ethnicity, gender, age }, key),
    train: (uploadTaskId, triggerWord, key) => post('/ai-photo-train', { training_images_id: uploadTaskId, trigger_word: triggerWord }, key),
    generate: (input, key) =>
      post(
        '/ai-photo-generate',
        {
          training_id: input.trainingId,
          prompt: input.prompt,
          aspect_ratio: input.aspectRatio,
          width: input.width,
          height: input.height,
          number_of_images: input.numberOfImages,
          seed: input.seed,
        },
        key,
      ),
    async listTasks() {
      if (!email) throw new Error('The signed-in user is not known yet.');
      // A task without an expiry date does not expire.
      const { data, error } = await supabase
        .from('tasks')
        .select(LIST_COLUMNS)
        .eq('email', email)
        .in('type', [...AI_PHOTO_TYPES])
        .or(`expires_at.is.null,expires_at.gt.${new Date().toISOString()}`)
        .order('created_at', { ascending: false })
        .order('id', { ascending: false })
        .limit(LIST_LIMIT);
      if (error) throw new Error(error.message);
      // an older `success` reads as finished, as on every screen
      return ((data ?? []) as unknown as AiPhotoListItem[]).map(withNormalizedStatus);
    },
    readTask: tasks.readTask,
    watchTask: tasks.watchTask,
    fetchImage,
    cancel: (taskId) => cancelTask(api, taskId),
  };
}

/** The gateway for the signed-in user. */
export function useAiPhotosGateway(): AiPhotosGateway {
  const api = useApi();
  const { row } = useUserRow();
  const email = row?.email ?? null;
  const ready = !!row?.api_key && !!email;
  return useMemo(() => createAiPhotosGateway(api, getSupabaseClient(), email, ready), [api, email, ready]);
}
