import { vi } from 'vitest';
import type { FaceswapTask } from '../../src/features/faceswap/faceswap-rules.ts';
import type { FaceswapGateway } from '../../src/features/faceswap/gateway.ts';
import type { LoadedTask } from '../../src/features/tasks/task-store.ts';

const media = (name: string) => `http://localhost:8080/media/${name}`;

export function makeFaceswapTask(over: Partial<FaceswapTask> = {}): FaceswapTask {
  const id = over.id ?? 'fs-1';
  return {
    id,
    type: 'faceswap',
    status: 'finished',
    percentage: 100,
    image_url: media(`${id}.png`),
    result: null,
    refund: 0,
    input_data: { swap_image_url: media('swap.png'), target_image_url: media('target.png') },
    ...over,
  };
}

/**
 * An in-memory stand-in for POST /upload, POST /faceswap and supabase-js: uploads answer a
 * media URL named after the file, tasks by id, live watchers a test pushes rows to, and every
 * call recorded by vi.fn.
 */
export function fakeFaceswapGateway(initial: LoadedTask<FaceswapTask>[] = []) {
  const rows = new Map(initial.map((t) => [t.task.id, t]));
  const watchers = new Map<string, (task: FaceswapTask) => void>();
  const unsubscribed: string[] = [];
  let nextId = 100;
  const gateway: FaceswapGateway = {
    ready: true,
    upload: vi.fn(async (file: File) => media(file.name)),
    faceswap: vi.fn(async (swap: string, target: string) => {
      const id = `fs-${nextId++}`;
      const task = makeFaceswapTask({ id, status: 'queued', percentage: 0, image_url: null, input_data: { swap_image_url: swap, target_image_url: target } });
      rows.set(id, { task, archived: false });
      return id;
    }),
    readTask: vi.fn(async (id: string) => rows.get(id) ?? null),
    watchTask: vi.fn((id: string, onRow: (task: FaceswapTask) => void, onLive: () => void) => {
      watchers.set(id, onRow);
      queueMicrotask(onLive);
      return () => {
        watchers.delete(id);
        unsubscribed.push(id);
      };
    }),
    cancel: vi.fn(async () => {}),
    fetchImage: vi.fn(async () => new Blob(['png'], { type: 'image/png' })),
  };
  /** What the worker does: the row changes, realtime tells the watcher. */
  function update(id: string, patch: Partial<FaceswapTask>) {
    const row = rows.get(id)!;
    row.task = { ...row.task, ...patch };
    watchers.get(id)?.(row.task);
  }
  return { gateway, rows, watchers, unsubscribed, update };
}
