import { vi } from 'vitest';
import type { MidjourneyGateway } from '../../src/features/midjourney/gateway.ts';
import type { MidjourneyTask } from '../../src/features/midjourney/task-model.ts';
import type { LoadedTask } from '../../src/features/tasks/task-store.ts';
import type { LineageRow } from '../../src/features/midjourney/lineage.ts';

const cells = (id: string) => [1, 2, 3, 4].map((i) => `http://localhost:8080/media/${id}-${i}.png`);

export function makeTask(over: Partial<MidjourneyTask> = {}): MidjourneyTask {
  const id = over.id ?? 'task-1';
  return {
    id,
    type: 'imagine',
    status: 'finished',
    percentage: 100,
    prompt: 'a lighthouse at dawn',
    image_url: `http://localhost:8080/media/${id}.png`,
    image_urls: cells(id),
    seed: null,
    favorite: false,
    result: null,
    refund: 0,
    ...over,
  };
}

/**
 * An in-memory stand-in for the provider API + supabase-js: tasks by id, live watchers that a
 * test pushes rows to, and every call recorded by vi.fn.
 */
export function fakeGateway(initial: LoadedTask<MidjourneyTask>[] = []) {
  const rows = new Map(initial.map((t) => [t.task.id, t]));
  const watchers = new Map<string, (task: MidjourneyTask) => void>();
  const unsubscribed: string[] = [];
  let nextId = 100;
  const create = (over: Partial<MidjourneyTask>) => {
    const id = `task-${nextId++}`;
    rows.set(id, { task: makeTask({ id, status: 'queued', percentage: 0, image_url: null, image_urls: null, ...over }), archived: false });
    return id;
  };
  const gateway: MidjourneyGateway = {
    ready: true,
    imagine: vi.fn(async (prompt: string) => create({ type: 'imagine', prompt })),
    upscale: vi.fn(async (parent: string, index: number, type: string) => create({ type: `upscale-${type}`, parent_id: parent, input_data: { index } })),
    variation: vi.fn(async (parent: string, index: number) => create({ type: `variation-${index}`, parent_id: parent })),
    varyCell: vi.fn(async (parent: string, index: number, type: string) => create({ type: `variation-${type}`, parent_id: parent, input_data: { index } })),
    varyImage: vi.fn(async (parent: string, type: string) => create({ type: `variation-${type}`, parent_id: parent })),
    pan: vi.fn(async (parent: string, direction: string) => create({ type: `pan-${direction}`, parent_id: parent })),
    // The server's names: outpaint-1.5x and outpaint-2x are the buttons, anything else (a prompt too) is Custom Zoom.
    zoomOut: vi.fn(async (parent: string, ratio: number, _key: string, custom?: object) =>
      create({ type: custom === undefined && (ratio === 1.5 || ratio === 2) ? `outpaint-${ratio}x` : 'outpaint-custom', parent_id: parent }),
    ),
    varyRegion: vi.fn(async (parent: string, _mask: string, prompt: string) => create({ type: 'inpaint', parent_id: parent, prompt })),
    describe: vi.fn(async (imageUrl: string) => create({ type: 'describe', prompt: null, input_data: { image_url: imageUrl } })),
    blend: vi.fn(async (imageUrls: string[]) => create({ type: 'blend', prompt: null, input_data: { image_urls: imageUrls } })),
    shorten: vi.fn(async (prompt: string) => create({ type: 'shorten', prompt })),
    reroll: vi.fn(async () => create({ type: 'reroll' })),
    requestSeed: vi.fn(async () => 'seed-task'),
    fetchTask: vi.fn(async () => ({ status: 'finished', seed: '4242' })),
    upload: vi.fn(async (file: File) => `http://localhost:8080/media/upload-${file.name}`),
    readTask: vi.fn(async (id: string) => rows.get(id) ?? null),
    watchTask: vi.fn((id: string, onRow: (task: MidjourneyTask) => void, onLive: () => void) => {
      watchers.set(id, onRow);
      queueMicrotask(onLive);
      return () => {
        watchers.delete(id);
        unsubscribed.push(id);
      };
    }),
    toggleFavorite: vi.fn(async (id: string) => {
      const row = rows.get(id)!;
      row.task = { ...row.task, favorite: !row.task.favorite };
      return row.task.favorite;
    }),
    cancel: vi.fn(async () => {}),
    fetchImage: vi.fn(async () => new Blob(['png'], { type: 'image/png' })),
    // What RLS lets the user read: the task's ancestors and every task made from the first of them.
    readLineage: vi.fn(async (id: string) => {
      const all = [...rows.values()];
      let root = rows.get(id);
      while (root?.task.parent_id && rows.has(root.task.parent_id)) root = rows.get(root.task.parent_id);
      if (!root) return [];
      const family: LineageRow[] = [];
      const visit = (loaded: LoadedTask<MidjourneyTask>) => {
        const { task, archived } = loaded;
        const { id: taskId, type, status, image_url, image_urls } = task;
        // rows are kept in the order they were made
        const created_at = `2026-11-24T00:00:${String(all.indexOf(loaded)).padStart(2, '0')}.000Z`;
        family.push({ id: taskId, type, status, parent_id: task.parent_id ?? null, image_url, image_urls, created_at, archived });
        for (const child of all) if (child.task.parent_id === taskId) visit(child);
      };
      visit(root);
      return family;
    }),
  };
  /** What the worker does: the row changes, realtime tells the watcher. */
  function update(id: string, patch: Partial<MidjourneyTask>) {
    const row = rows.get(id)!;
    row.task = { ...row.task, ...patch };
    watchers.get(id)?.(row.task);
  }
  return { gateway, rows, watchers, unsubscribed, update };
}
