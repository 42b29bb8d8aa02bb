/**
 * Reading tasks back in the APIFRAME v1 shape: POST /fetch (the exact view of each family
 * present today, statuses, string percentages, rows written as `success` before), POST
 * /fetch-many (ownership, bounds, duplicates) and GET /account (total_images). Rows are
 * inserted as the worker leaves them, so every state is reached without waiting for engines;
 * one flaky task runs on a real worker to show `retry` live, and parents written as `success`
 * still start follow-ups. Lineage: parent_task_id and child_task_ids (live and archived children,
 * oldest first, never another account's), read through indexes.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { createLocalEngine } from '../src/engines/local/index.ts';
import type { TaskView } from '../src/services/tasks/task-view.ts';
import { createUser, expectErrorBody, post, type TestUser } from './helpers.ts';
import { grantCredits, openTestDb, scriptedEngine, TEST_CELL_SIZE, taskHarness, waitForTask, type TaskHarness } from './support/tasks.ts';

const MEDIA = 'http://localhost:8080/media';
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const GRID_ACTIONS = ['upscale1', 'upscale2', 'upscale3', 'upscale4', 'variation1', 'variation2', 'variation3', 'variation4', 'reroll'];
const UPSCALED_ACTIONS = [
  'upscale_subtle',
  'upscale_creative',
  'upscale_2x',
  'upscale_4x',
  'vary_subtle',
  'vary_strong',
  'zoom_out_2x',
  'zoom_out_1.5x',
  'pan_up',
  'pan_down',
  'pan_left',
  'pan_right',
];

interface Fixture {
  type: string;
  status: string;
  percentage?: number;
  prompt?: string | null;
  parentId?: string | null;
  imageUrl?: string | null;
  imageUrls?: string[] | null;
  seed?: string | null;
  cost?: number;
  refund?: number;
  result?: Record<string, unknown> | null;
  inputData?: Record<string, unknown> | null;
  expiresAt?: string | null;
  archived?: boolean;
  owner?: TestUser;
}

describe.each(testDatabaseKinds())('reading tasks in the v1 shape on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let user: TestUser;
  let other: TestUser;

  beforeAll(async () => {
    db = await openTestDb(kind);
    // flux runs on a scripted engine (a flaky prompt fails retryably), the rest on the local one
    h = await taskHarness(db, [
      scriptedEngine('scripted', ['flux-imagine', 'ai-photo-upload', 'ai-photo-train', 'ai-photo-generate']),
      createLocalEngine({ cellSize: TEST_CELL_SIZE }),
    ]);
    user = await createUser(db);
    other = await createUser(db);
  });
  afterAll(async () => {
    expect(h?.appLog.lines.filter((l) => l.includes('unhandled error')) ?? []).toEqual([]);
    await h?.cleanup();
    await db?.close();
  });

  /** A task row as the worker (or an older version of it) left it; answers its id. */
  async function insertTask(f: Fixture): Promise<string> {
    const owner = f.owner ?? user;
    const id = randomUUID();
    await db.query(
      `insert into public.${f.archived ? 'tasks_archive_1' : 'tasks'}
         (id, user_id, email, type, status, percentage, complete, prompt, parent_id, image_url, image_urls, seed, cost, refund, result, input_data, expires_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
      [
        id,
        owner.id,
        owner.email,
        f.type,
        f.status,
        f.percentage ?? (['success', 'finished'].includes(f.status) ? 100 : 0),
        ['success', 'finished', 'failed'].includes(f.status),
        f.prompt === undefined ? 'a lighthouse' : f.prompt,
        f.parentId ?? null,
        f.imageUrl ?? null,
        f.imageUrls ?? null,
        f.seed ?? null,
        f.cost ?? 4,
        f.refund ?? 0,
        f.result ?? null,
        f.inputData ?? null,
        f.expiresAt ?? null,
      ],
    );
    return id;
  }

  const fetchView = async (taskId: string, key = user.apiKey) => {
    const res = await post(h.app, '/fetch', { key, json: { task_id: taskId } });
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as TaskView & { child_task_ids: string[] };
  };
  const fetchMany = (taskIds: unknown, key = user.apiKey) => post(h.app, '/fetch-many', { key, json: { task_ids: taskIds } });
  const extras = (over: Partial<TaskView> & { child_task_ids?: string[] } = {}) => ({
    parent_task_id: null,
    child_task_ids: [],
    cost: 4,
    refund: 0,
    result: null,
    input_data: null,
    archived: false,
    created_at: ISO,
    updated_at: ISO,
    expires_at: null,
    ...over,
  });
  const cells = (id: string) => [1, 2, 3, 4].map((i) => `${MEDIA}/${id}-${i}.png`);

  describe('POST /fetch: the v1 view of each family', () => {
    it('an imagine grid: original_image_url, the four image_urls, the seed and the grid actions, status finished, percentage "100"', async () => {
      const result = { engine: 'local', method: 'procedural-svg', simulated: true, layout: 'grid', width: 256, height: 256 };
      const id = await insertTask({ type: 'imagine', status: 'finished', imageUrl: `${MEDIA}/g-grid.png`, imageUrls: cells('g'), seed: '42', result });
      expect(await fetchView(id)).toEqual({
        task_id: id,
        task_type: 'imagine',
        status: 'finished',
        percentage: '100',
        prompt: 'a lighthouse',
        original_image_url: `${MEDIA}/g-grid.png`,
        image_urls: cells('g'),
        seed: '42',
        actions: GRID_ACTIONS,
        ...extras({ result }),
      });
    });

    it('a grid still running: its status and percentage only, no pictures and no actions yet', async () => {
      const id = await insertTask({ type: 'reroll', status: 'running', percentage: 40 });
      expect(await fetchView(id)).toEqual({ task_id: id, task_type: 'reroll', status: 'processing', percentage: '40', prompt: 'a lighthouse', ...extras() });
    });

    it('a variation of an archived grid reads from the archive with the same shape', async () => {
      const parent = await insertTask({ type: 'imagine', status: 'finished', imageUrl: `${MEDIA}/p-grid.png`, imageUrls: cells('p') });
      const id = await insertTask({
        type: 'variation-3',
        status: 'finished',
        parentId: parent,
        imageUrl: `${MEDIA}/v-grid.png`,
        imageUrls: cells('v'),
        archived: true,
      });
      expect(await fetchView(id)).toEqual({
        task_id: id,
        task_type: 'variation-3',
        status: 'finished',
        percentage: '100',
        prompt: 'a lighthouse',
        original_image_url: `${MEDIA}/v-grid.png`,
        image_urls: cells('v'),
        actions: GRID_ACTIONS,
        ...extras({ parent_task_id: parent, archived: true }),
      });
    });

    it('an upscale: image_url alone and what an upscaled image can become', async () => {
      const id = await insertTask({
        type: 'upscale#2',
        status: 'finished',
        imageUrl: `${MEDIA}/u-image.png`,
        imageUrls: [`${MEDIA}/u-image.png`],
        cost: 2,
        result: { layout: 'single' },
        inputData: { index: 2, upscale_type: '1x' },
      });
      expect(await fetchView(id)).toEqual({
        task_id: id,
        task_type: 'upscale#2',
        status: 'finished',
        percentage: '100',
        prompt: 'a lighthouse',
        image_url: `${MEDIA}/u-image.png`,
        actions: UPSCALED_ACTIONS,
        ...extras({ cost: 2, result: { layout: 'single' }, input_data: { index: 2, upscale_type: '1x' } }),
      });
    });

    it('an enlargement (upscale-2x) is an end result: image_url, no actions', async () => {
      const id = await insertTask({ type: 'upscale-2x', status: 'finished', imageUrl: `${MEDIA}/x-image.png`, imageUrls: [`${MEDIA}/x-image.png`], cost: 1 });
      const view = await fetchView(id);
      expect(view).toMatchObject({ task_type: 'upscale-2x', status: 'finished', image_url: `${MEDIA}/x-image.png` });
      expect(view).not.toHaveProperty('actions');
      expect(view).not.toHaveProperty('image_urls');
    });

    it('a seed task: the seed, no picture', async () => {
      const id = await insertTask({ type: 'seed', status: 'finished', seed: '1234567', cost: 2, result: { layout: 'none' } });
      expect(await fetchView(id)).toEqual({
        task_id: id,
        task_type: 'seed',
        status: 'finished',
        percentage: '100',
        prompt: 'a lighthouse',
        seed: '1234567',
        ...extras({ cost: 2, result: { layout: 'none' } }),
      });
    });

    it('a faceswap: image_url, its two pictures in input_data, no prompt', async () => {
      const inputData = { swap_image_url: `${MEDIA}/upload-a.png`, target_image_url: 'https://images.example.com/t.jpg' };
      const id = await insertTask({
        type: 'faceswap',
        status: 'finished',
        prompt: null,
        imageUrl: `${MEDIA}/f-image.png`,
        imageUrls: [`${MEDIA}/f-image.png`],
        cost: 2,
        inputData,
      });
      expect(await fetchView(id)).toEqual({
        task_id: id,
        task_type: 'faceswap',
        status: 'finished',
        percentage: '100',
        image_url: `${MEDIA}/f-image.png`,
        ...extras({ cost: 2, input_data: inputData }),
      });
    });

    it('an AI photo upload: "Images ready for training" and its expiry; the verdicts stay in result', async () => {
      const result = { layout: 'none', photos: [{ index: 0, ok: true }], usable: 1 };
      const id = await insertTask({ type: 'ai-photo-upload', status: 'finished', prompt: null, cost: 2, result, expiresAt: '2030-01-01T00:00:00.000Z' });
      expect(await fetchView(id)).toEqual({
        task_id: id,
        task_type: 'ai-photo-upload',
        status: 'finished',
        percentage: '100',
        message: 'Images ready for training',
        ...extras({ cost: 2, result, expires_at: '2030-01-01T00:00:00.000Z' }),
      });
    });

    it('an AI photo training: its trigger_word, not the reference crops', async () => {
      const inputData = { training_images_id: randomUUID(), trigger_word: 'ohwxanna' };
      const id = await insertTask({
        type: 'ai-photo-train',
        status: 'finished',
        prompt: null,
        imageUrls: cells('crop'),
        imageUrl: `${MEDIA}/crop-1.png`,
        inputData,
        cost: 40,
      });
      expect(await fetchView(id)).toEqual({
        task_id: id,
        task_type: 'ai-photo-train',
        status: 'finished',
        percentage: '100',
        trigger_word: 'ohwxanna',
        ...extras({ cost: 40, input_data: inputData }),
      });
    });

    it('an AI photo generation: image_urls as they are stored, while it runs', async () => {
      const id = await insertTask({
        type: 'ai-photo-generate',
        status: 'processing',
        percentage: 55,
        imageUrl: `${MEDIA}/gen-1.png`,
        imageUrls: cells('gen').slice(0, 2),
      });
      expect(await fetchView(id)).toEqual({
        task_id: id,
        task_type: 'ai-photo-generate',
        status: 'processing',
        percentage: '55',
        prompt: 'a lighthouse',
        image_urls: cells('gen').slice(0, 2),
        ...extras(),
      });
    });

    it('flux: image_url; ideogram: image_urls without the composite', async () => {
      const flux = await insertTask({
        type: 'flux-imagine',
        status: 'finished',
        imageUrl: `${MEDIA}/fl-image.png`,
        imageUrls: [`${MEDIA}/fl-image.png`],
        cost: 1,
      });
      expect(await fetchView(flux)).toMatchObject({ task_type: 'flux-imagine', image_url: `${MEDIA}/fl-image.png` });
      expect(await fetchView(flux)).not.toHaveProperty('image_urls');
      const ideogram = await insertTask({
        type: 'ideogram-imagine',
        status: 'finished',
        imageUrl: `${MEDIA}/id-grid.png`,
        imageUrls: cells('id'),
        result: { layout: 'grid' },
      });
      const view = await fetchView(ideogram);
      expect(view).toMatchObject({ task_type: 'ideogram-imagine', image_urls: cells('id') });
      expect(view).not.toHaveProperty('original_image_url');
      expect(view).not.toHaveProperty('image_url');
    });

    it('a failed task: status failed, its message on top, the percentage it reached, the refund; no pictures', async () => {
      const result = { message: 'Upstream refused the prompt', code: 'banned_prompt' };
      const id = await insertTask({ type: 'imagine', status: 'failed', percentage: 35, imageUrls: cells('stale'), refund: 4, result });
      expect(await fetchView(id)).toEqual({
        task_id: id,
        task_type: 'imagine',
        status: 'failed',
        percentage: '35',
        prompt: 'a lighthouse',
        message: 'Upstream refused the prompt',
        ...extras({ refund: 4, result }),
      });
    });
  });

  describe('POST /fetch: statuses', () => {
    it.each([
      ['pending', 'pending'],
      ['staged', 'staged'],
      ['queued', 'pending'],
      ['submitted', 'starting'],
      ['starting', 'starting'],
      ['running', 'processing'],
      ['processing', 'processing'],
      ['finished', 'finished'],
      ['success', 'finished'],
      ['failed', 'failed'],
    ])('a row that says %s reads as %s', async (stored, shown) => {
      const id = await insertTask({ type: 'imagine', status: stored, percentage: stored === 'success' || stored === 'finished' ? 100 : 20 });
      const view = await fetchView(id);
      expect(view.status).toBe(shown);
      expect(view.percentage).toBe(shown === 'finished' ? '100' : '20');
    });

    it('an old success row, live or archived, reads exactly like a finished one', async () => {
      const fields = { type: 'imagine', imageUrl: `${MEDIA}/o-grid.png`, imageUrls: cells('o'), seed: '9' } as const;
      for (const archived of [false, true]) {
        const old = await fetchView(await insertTask({ ...fields, status: 'success', archived }));
        const current = await fetchView(await insertTask({ ...fields, status: 'finished', archived }));
        expect({ ...old, task_id: 'x', created_at: 'x', updated_at: 'x' }).toEqual({ ...current, task_id: 'x', created_at: 'x', updated_at: 'x' });
        expect(old).toMatchObject({ status: 'finished', percentage: '100', actions: GRID_ACTIONS, archived });
      }
    });

    it('a task whose job waits for another attempt reads as retry; its first wait (or a shutdown handing it back) as pending', async () => {
      const id = await insertTask({ type: 'imagine', status: 'queued', percentage: 30 });
      await db.query(`insert into public.task_jobs (task_id, queue, state, attempts, run_at) values ($1, 'local', 'queued', 1, now() + interval '1 hour')`, [
        id,
      ]);
      expect(await fetchView(id)).toMatchObject({ status: 'retry', percentage: '30' });
      await db.query(`update public.task_jobs set attempts = 0 where task_id = $1`, [id]);
      expect(await fetchView(id)).toMatchObject({ status: 'pending', percentage: '30' });
    });

    it('shows retry live while a flaky task waits for its second attempt, then finished', async () => {
      const worker = h.worker({ backoffMs: 1500, maxBackoffMs: 1500 });
      await worker.start();
      await grantCredits(db, user.id, 1);
      const res = await post(h.app, '/flux/imagine', { key: user.apiKey, json: { prompt: 'flaky:1' } });
      expect(res.status).toBe(200);
      const { task_id } = (await res.json()) as { task_id: string };
      const seen = new Set<string>();
      const deadline = Date.now() + 20_000;
      for (;;) {
        const view = await fetchView(task_id);
        seen.add(view.status);
        expect(view.percentage).toMatch(/^(\d|[1-9]\d|100)$/);
        if (view.status === 'finished' || view.status === 'failed' || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      await worker.stop();
      expect(seen.has('retry'), [...seen].join()).toBe(true);
      expect([...seen].at(-1)).toBe('finished');
      expect((await waitForTask(db, task_id)).status).toBe('finished');
    });
  });

  describe('lineage: parent_task_id and child_task_ids', () => {
    /** Inserts a child `secondsLater` after now (the order children are listed in). */
    async function insertChild(parentId: string, type: string, secondsLater: number, over: Partial<Fixture> = {}): Promise<string> {
      const id = await insertTask({ type, status: 'finished', parentId, ...over });
      const table = over.archived ? 'tasks_archive_1' : 'tasks';
      await db.query(`update public.${table} set created_at = now() + make_interval(secs => $2) where id = $1`, [id, secondsLater]);
      return id;
    }

    it('lists the children of a task oldest first, live and archived, and each child names its parent', async () => {
      const grid = await insertTask({ type: 'imagine', status: 'finished', imageUrl: `${MEDIA}/l-grid.png`, imageUrls: cells('l') });
      const upscale = await insertChild(grid, 'upscale#2', 1);
      const variation = await insertChild(grid, 'variation-3', 2, { archived: true });
      const reroll = await insertChild(grid, 'reroll', 3);
      const pan = await insertChild(upscale, 'pan-left', 4);
      const zoom = await insertChild(upscale, 'outpaint-2x', 5);
      const region = await insertChild(upscale, 'inpaint', 6, { status: 'running' });

      const root = await fetchView(grid);
      expect(root.parent_task_id).toBeNull();
      expect(root.child_task_ids).toEqual([upscale, variation, reroll]);
      // right after parent_task_id, before our other extras: a field added, nothing renamed or moved
      const keys = Object.keys(root);
      expect(keys.slice(keys.indexOf('parent_task_id'), keys.indexOf('parent_task_id') + 3)).toEqual(['parent_task_id', 'child_task_ids', 'cost']);
      expect(keys.slice(0, 4)).toEqual(['task_id', 'task_type', 'status', 'percentage']);

      // an id in capitals names the same task, and the same children
      expect((await fetchView(grid.toUpperCase())).child_task_ids).toEqual([upscale, variation, reroll]);

      const middle = await fetchView(upscale);
      expect(middle).toMatchObject({ parent_task_id: grid, child_task_ids: [pan, zoom, region] });
      expect(await fetchView(variation)).toMatchObject({ parent_task_id: grid, child_task_ids: [], archived: true });
      expect(await fetchView(region)).toMatchObject({ parent_task_id: upscale, child_task_ids: [], status: 'processing' });

      // /fetch-many answers the same lineage per task
      const many = (await (await fetchMany([upscale, grid])).json()) as { tasks: (TaskView & { child_task_ids: string[] })[] };
      expect(many.tasks.map((t) => t.child_task_ids)).toEqual([
        [pan, zoom, region],
        [upscale, variation, reroll],
      ]);
    });

    it('lists the children of an archived task too', async () => {
      const old = await insertTask({ type: 'imagine', status: 'finished', archived: true });
      const live = await insertChild(old, 'upscale#1', 1);
      const archived = await insertChild(old, 'upscale#4', 2, { archived: true });
      expect(await fetchView(old)).toMatchObject({ archived: true, child_task_ids: [live, archived] });
    });

    it('never shows another account’s task as a child, live or archived, and answers 404 for a family that is not yours', async () => {
      const mine = await insertTask({ type: 'imagine', status: 'finished' });
      const child = await insertChild(mine, 'upscale#1', 1);
      // rows no API call can make (a parent is always the caller's), written straight into the tables
      await insertChild(mine, 'reroll', 2, { owner: other });
      await insertChild(mine, 'variation-1', 3, { owner: other, archived: true });
      expect((await fetchView(mine)).child_task_ids).toEqual([child]);
      const many = (await (await fetchMany([mine, child])).json()) as { tasks: (TaskView & { child_task_ids: string[] })[] };
      expect(many.tasks[0]!.child_task_ids).toEqual([child]);
      // the other account cannot read the family at all
      const res = await post(h.app, '/fetch', { key: other.apiKey, json: { task_id: mine } });
      expect(res.status).toBe(404);
      const theirs = (await (await fetchMany([mine, child], other.apiKey)).json()) as { tasks: TaskView[] };
      expect(theirs.tasks).toEqual([]);
    });

    it('finds children through the parent_id indexes of both tables', async () => {
      // one transaction, so the setting and the plans share a connection (a pool on PostgreSQL)
      await db.transaction(async (tx) => {
        await tx.query('set local enable_seqscan = off');
        for (const [table, index] of [
          ['tasks', 'tasks_parent_idx'],
          ['tasks_archive_1', 'tasks_archive_1_parent_idx'],
        ]) {
          const { rows } = await tx.query<{ 'QUERY PLAN': string }>(
            // parent_id alone: on a tiny table the planner may as well take the user's index for the full query
            `explain select id from public.${table} where parent_id = any($1::uuid[])`,
            [[randomUUID()]],
          );
          expect(rows.map((r) => r['QUERY PLAN']).join('\n'), table).toContain(index);
        }
      });
    });
  });

  describe('follow-ups of tasks written as success before v1 compatibility', () => {
    it('upscales, varies, rerolls and seeds an old success grid', async () => {
      await grantCredits(db, user.id, 20);
      const grid = await insertTask({
        type: 'imagine',
        status: 'success',
        imageUrl: `${MEDIA}/old-grid.png`,
        imageUrls: cells('old'),
        result: { layout: 'grid' },
      });
      for (const [path, json] of [
        ['/pro/upscale', { parent_task_id: grid, index: 1 }],
        ['/pro/variations', { parent_task_id: grid, index: 2 }],
        ['/pro/reroll', { parent_task_id: grid }],
        ['/pro/seed', { task_id: grid }],
      ] as const) {
        const res = await post(h.app, path, { key: user.apiKey, json });
        expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
      }
    });

    it('trains on an old success upload and generates from an old success training', async () => {
      await grantCredits(db, user.id, 60);
      const images = Array.from({ length: 10 }, (_, i) => `${MEDIA}/ai-photo-old-${i}.png`);
      const upload = await insertTask({
        type: 'ai-photo-upload',
        status: 'success',
        prompt: null,
        inputData: { ethnicity: 'white', gender: 'female', age: 30, images },
        expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      });
      const train = await post(h.app, '/ai-photo-train', { key: user.apiKey, json: { training_images_id: upload, trigger_word: 'ohwxanna' } });
      expect(train.status, await train.clone().text()).toBe(200);
      const training = await insertTask({
        type: 'ai-photo-train',
        status: 'success',
        prompt: null,
        parentId: upload,
        inputData: { training_images_id: upload, trigger_word: 'ohwxanna' },
        result: { engine: 'scripted' },
        expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      });
      const generate = await post(h.app, '/ai-photo-generate', {
        key: user.apiKey,
        json: { training_id: training, prompt: 'ohwxanna at the beach', number_of_images: 1 },
      });
      expect(generate.status, await generate.clone().text()).toBe(200);
    });

    it('still refuses an unfinished parent', async () => {
      const running = await insertTask({ type: 'imagine', status: 'running', imageUrl: `${MEDIA}/r-grid.png`, imageUrls: cells('r') });
      const res = await post(h.app, '/pro/upscale', { key: user.apiKey, json: { parent_task_id: running, index: 1 } });
      expect(res.status).toBe(409);
      expect(await expectErrorBody(res)).toEqual({ msg: 'The task has not finished successfully', code: 'conflict' });
    });
  });

  describe('POST /fetch-many', () => {
    it("answers the caller's tasks in the order asked, each once, leaving out others' and unknown ids", async () => {
      const a = await insertTask({ type: 'imagine', status: 'finished', imageUrl: `${MEDIA}/a-grid.png`, imageUrls: cells('a') });
      const b = await insertTask({ type: 'upscale#1', status: 'running', percentage: 60 });
      const archived = await insertTask({ type: 'seed', status: 'success', seed: '5', archived: true });
      const theirs = await insertTask({ type: 'imagine', status: 'finished', owner: other });
      const unknown = randomUUID();
      const res = await fetchMany([b, theirs, a, unknown, b.toUpperCase(), archived, a]);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { tasks: TaskView[] };
      expect(Object.keys(body)).toEqual(['tasks']);
      expect(body.tasks.map((t) => t.task_id)).toEqual([b, a, archived]);
      // each entry is exactly what /fetch says
      expect(body.tasks).toEqual([await fetchView(b), await fetchView(a), await fetchView(archived)]);
      expect(body.tasks.map((t) => [t.status, t.percentage])).toEqual([
        ['processing', '60'],
        ['finished', '100'],
        ['finished', '100'],
      ]);
    });

    it('answers an empty list when none of the ids is the caller’s', async () => {
      const theirs = await insertTask({ type: 'imagine', status: 'finished', owner: other });
      const res = await fetchMany([theirs, randomUUID()]);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ tasks: [] });
    });

    it('takes exactly 20 ids', async () => {
      const ids = await Promise.all(Array.from({ length: 20 }, () => insertTask({ type: 'seed', status: 'finished', seed: '1' })));
      const res = await fetchMany(ids);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { tasks: TaskView[] }).tasks.map((t) => t.task_id)).toEqual(ids);
    });

    it.each([
      ['no task_ids', undefined, 'task_ids: Required'],
      ['an empty list', [], 'task_ids: Must hold 2 to 20 task ids'],
      ['one id', [randomUUID()], 'task_ids: Must hold 2 to 20 task ids'],
      ['21 ids', Array.from({ length: 21 }, () => randomUUID()), 'task_ids: Must hold 2 to 20 task ids'],
      ['a string', 'abc', 'task_ids: Must be an array of task ids'],
      ['an id that is not one', [randomUUID(), 'abc'], 'task_ids.1: Must be a task id'],
      ['a number among ids', [randomUUID(), 7], 'task_ids.1: Must be a task id'],
    ])('answers 400 for %s', async (_name, taskIds, msg) => {
      const res = await post(h.app, '/fetch-many', { key: user.apiKey, json: taskIds === undefined ? {} : { task_ids: taskIds } });
      expect(res.status).toBe(400);
      expect(await expectErrorBody(res)).toEqual({ msg, code: 'validation_failed' });
    });

    it('answers 401 without a key', async () => {
      const res = await post(h.app, '/fetch-many', { json: { task_ids: [randomUUID(), randomUUID()] } });
      expect(res.status).toBe(401);
      expect(await expectErrorBody(res)).toEqual({ msg: 'Missing API key', code: 'missing_api_key' });
    });
  });

  describe('GET /account', () => {
    const account = async (key: string) => {
      const res = await h.app.request('/account', { headers: { authorization: key } });
      expect(res.status).toBe(200);
      return res.json();
    };

    it('answers email, credits, total_images and plan, counting the pictures of finished generations only', async () => {
      const owner = await createUser(db);
      await grantCredits(db, owner.id, 123);
      await db.query(`update public.mdusers set plan = 'starter' where id = $1`, [owner.id]);
      expect(await account(owner.apiKey)).toEqual({ email: owner.email, credits: 123, total_images: 0, plan: 'starter' });

      const one = (name: string) => [`${MEDIA}/${name}.png`];
      await insertTask({ owner, type: 'imagine', status: 'finished', imageUrl: `${MEDIA}/c-grid.png`, imageUrls: cells('c') }); // 4
      await insertTask({ owner, type: 'reroll', status: 'success', imageUrl: `${MEDIA}/d-grid.png`, imageUrls: cells('d'), archived: true }); // 4, old and archived
      await insertTask({ owner, type: 'upscale#1', status: 'finished', imageUrl: one('u')[0], imageUrls: one('u') }); // 1
      await insertTask({ owner, type: 'faceswap', status: 'finished', imageUrl: one('f')[0] }); // 1: image_url alone
      await insertTask({ owner, type: 'ai-photo-generate', status: 'finished', imageUrl: one('g1')[0], imageUrls: cells('g').slice(0, 3) }); // 3
      // not counted: the user's own photos and crops of them, failures, unfinished work, pictureless tasks, someone else's
      await insertTask({ owner, type: 'ai-photo-train', status: 'finished', imageUrls: cells('t'), imageUrl: cells('t')[0] });
      await insertTask({ owner, type: 'ai-photo-upload', status: 'finished' });
      await insertTask({ owner, type: 'imagine', status: 'failed', imageUrls: cells('x') });
      await insertTask({ owner, type: 'ai-photo-generate', status: 'processing', imageUrls: cells('p').slice(0, 2) });
      await insertTask({ owner, type: 'seed', status: 'finished', seed: '3' });
      await insertTask({ owner: other, type: 'imagine', status: 'finished', imageUrls: cells('o') });
      expect(await account(owner.apiKey)).toEqual({ email: owner.email, credits: 123, total_images: 13, plan: 'starter' });
      expect(await account(`Bearer ${owner.apiKey}`)).toMatchObject({ total_images: 13 });
    });

    it('answers 401 for a missing or unknown key', async () => {
      for (const headers of [{}, { authorization: 'f'.repeat(64) }] as Record<string, string>[]) {
        const res = await h.app.request('/account', { headers });
        expect(res.status).toBe(401);
        await expectErrorBody(res);
      }
    });
  });
});
