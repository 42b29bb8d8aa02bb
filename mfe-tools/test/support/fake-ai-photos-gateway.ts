import { vi } from 'vitest';
import type { AiPhotoListItem, AiPhotoTask } from '../../src/features/ai-photos/ai-photos-rules.ts';
import type { AiPhotosGateway, GenerateInput, UploadPhotosInput } from '../../src/features/ai-photos/gateway.ts';
import type { LoadedTask } from '../../src/features/tasks/task-store.ts';

const media = (name: string) => `http://localhost:8080/media/${name}`;

export function makeAiPhotoTask(over: Partial<AiPhotoTask> = {}): AiPhotoTask {
  return {
    id: 'up-1',
    type: 'ai-photo-upload',
    status: 'finished',
    percentage: 100,
    image_url: null,
    image_urls: null,
    prompt: null,
    result: null,
    refund: 0,
    parent_id: null,
    input_data: null,
    ...over,
  };
}

/** What a list row of `task` looks like (the side list reads a few columns of input_data). */
export function listItemOf(task: AiPhotoTask, createdAt = new Date().toISOString()): AiPhotoListItem {
  const input = task.input_data ?? {};
  return {
    id: task.id,
    type: task.type,
    status: task.status,
    percentage: task.percentage,
    created_at: createdAt,
    expires_at: null,
    prompt: task.prompt,
    trigger_word: input.trigger_word ?? null,
    gender: input.gender ?? null,
    ethnicity: input.ethnicity ?? null,
    age: input.age === undefined || input.age === null ? null : String(input.age),
  };
}

/**
 * An in-memory stand-in for the three AI photo calls and supabase-js: each call creates a
 * queued task row (the list then shows it), tasks by id, live watchers a test pushes rows to,
 * and every call recorded by vi.fn.
 */
export function fakeAiPhotosGateway(initial: AiPhotoTask[] = []) {
  const rows = new Map<string, LoadedTask<AiPhotoTask>>(initial.map((task) => [task.id, { task, archived: false }]));
  const watchers = new Map<string, (task: AiPhotoTask) => void>();
  const unsubscribed: string[] = [];
  let nextId = 100;
  const create = (task: Partial<AiPhotoTask>) => {
    const id = `${task.type === 'ai-photo-upload' ? 'up' : task.type === 'ai-photo-train' ? 'tr' : 'gen'}-${nextId++}`;
    rows.set(id, { task: makeAiPhotoTask({ ...task, id, status: 'queued', percentage: 0 }), archived: false });
    return id;
  };
  const gateway: AiPhotosGateway = {
    ready: true,
    uploadPhotos: vi.fn(async ({ gender, ethnicity, age, images }: UploadPhotosInput) =>
      create({
        type: 'ai-photo-upload',
        input_data: { gender, ethnicity, age, images: images.map((_, i) => media(`photo-${i + 1}.jpg`)) },
      }),
    ),
    train: vi.fn(async (uploadId: string, triggerWord: string) =>
      create({ type: 'ai-photo-train', parent_id: uploadId, input_data: { training_images_id: uploadId, trigger_word: triggerWord } }),
    ),
    generate: vi.fn(async (input: GenerateInput) =>
      create({
        type: 'ai-photo-generate',
        prompt: input.prompt,
        parent_id: input.trainingId,
        input_data: { training_id: input.trainingId, aspect_ratio: input.aspectRatio },
      }),
    ),
    listTasks: vi.fn(async () => [...rows.values()].map((r) => listItemOf(r.task)).reverse()),
    readTask: vi.fn(async (id: string) => rows.get(id) ?? null),
    watchTask: vi.fn((id: string, onRow: (task: AiPhotoTask) => void, onLive: () => void) => {
      watchers.set(id, onRow);
      queueMicrotask(onLive);
      return () => {
        watchers.delete(id);
        unsubscribed.push(id);
      };
    }),
    cancel: vi.fn(async () => {}),
    fetchImage: vi.fn(async () => new Blob(['jpg'], { type: 'image/jpeg' })),
  };
  /** What the worker does: the row changes, realtime tells the watcher. */
  function update(id: string, patch: Partial<AiPhotoTask>) {
    const row = rows.get(id)!;
    row.task = { ...row.task, ...patch };
    watchers.get(id)?.(row.task);
  }
  return { gateway, rows, watchers, unsubscribed, update, media };
}
