import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { taskRepository } from '../src/repositories/task-repository.ts';
import type { TaskView } from '../src/services/tasks/task-view.ts';
import { createUser, expectErrorBody, post, type TestUser } from './helpers.ts';
import { balanceOf, grantCredits, ledgerOf, openTestDb, readTask, taskHarness, TEST_CELL_SIZE, waitForTask, type TaskHarness } from './support/tasks.ts';

describe.each(testDatabaseKinds())('generation calls on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let user: TestUser;
  const events: { task: TaskView; kind: string; userId: string }[] = [];

  beforeAll(async () => {
    db = await openTestDb(kind);
    h = await taskHarness(db);
    const worker = h.worker();
    worker.onTaskEvent((task, eventKind, owner) => {
      events.push({ task, kind: eventKind, userId: owner.userId });
    });
    await worker.start();
    user = await createUser(db);
    await grantCredits(db, user.id, 200);
  });
  afterAll(async () => {
    // no request of this suite may have ended in a 500
    expect(h?.appLog.lines.filter((l) => l.includes('unhandled error')) ?? []).toEqual([]);
    await h?.cleanup();
    await db?.close();
  });

  const submit = async (path: string, json: unknown, key = user.apiKey) => {
    const res = await post(h.app, path, { key, json });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as { task_id: string };
    expect(Object.keys(body)).toEqual(['task_id']);
    return body.task_id;
  };
  const fetchTask = async (taskId: string, key = user.apiKey) => post(h.app, '/fetch', { key, json: { task_id: taskId } });
  const fetched = async (taskId: string) => {
    const res = await fetchTask(taskId);
    expect(res.status).toBe(200);
    return (await res.json()) as TaskView;
  };
  const mediaOf = async (url: string) => {
    expect(url.startsWith(`http://localhost:8080/media/`)).toBe(true);
    const res = await h.app.request(new URL(url).pathname);
    expect(res.status).toBe(200);
    return { res, data: Buffer.from(await res.arrayBuffer()) };
  };

  describe('the Midjourney lifecycle on the local engine', () => {
    let imagineId: string;

    beforeAll(async () => {
      const before = (await balanceOf(db, user.id)).credits;
      imagineId = await submit('/pro/imagine', { prompt: '  a lighthouse on a cliff at sunset  ', mode: 'turbo' });
      // the hold is taken with the task, before any work
      expect((await balanceOf(db, user.id)).credits).toBe(before - 4);
      await waitForTask(db, imagineId);
    });

    it('should end imagine finished with a stored grid of four that /media serves', async () => {
      const task = await fetched(imagineId);
      expect(task).toMatchObject({
        task_id: imagineId,
        task_type: 'imagine',
        status: 'finished',
        percentage: '100',
        prompt: 'a lighthouse on a cliff at sunset',
        mode: 'turbo',
        cost: 4,
        refund: 0,
        archived: false,
        actions: ['upscale1', 'upscale2', 'upscale3', 'upscale4', 'variation1', 'variation2', 'variation3', 'variation4', 'reroll'],
      });
      expect((await readTask(db, imagineId)).status).toBe('finished');
      expect(task.result).toMatchObject({ engine: 'local', simulated: true, layout: 'grid', method: 'procedural-svg' });
      expect(task.seed).toMatch(/^\d+$/);
      expect(task.image_urls).toHaveLength(4);
      expect(task).not.toHaveProperty('image_url');
      const grid = await mediaOf(task.original_image_url!);
      expect(grid.res.headers.get('content-type')).toBe('image/png');
      expect(grid.res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(await sharp(grid.data).metadata()).toMatchObject({ width: 2 * TEST_CELL_SIZE, height: 2 * TEST_CELL_SIZE });
      for (const url of task.image_urls!) {
        const cell = await mediaOf(url);
        expect(await sharp(cell.data).metadata()).toMatchObject({ format: 'png', width: TEST_CELL_SIZE });
      }
      expect(await ledgerOf(db, imagineId)).toEqual([{ delta: -4, source_key: `hold:${imagineId}` }]);
    });

    it('should have streamed rising progress and one success event', () => {
      const mine = events.filter((e) => e.task.task_id === imagineId);
      const percentages = mine.map((e) => Number(e.task.percentage));
      expect(percentages).toEqual([...percentages].sort((a, b) => a - b));
      expect(mine.filter((e) => e.kind === 'progress').length).toBeGreaterThan(1);
      expect(mine.at(-1)).toMatchObject({ kind: 'success', userId: user.id, task: { status: 'finished', percentage: '100' } });
    });

    it('should have fed every progress write to the realtime change capture of tasks', async () => {
      const { rows } = await db.query<{ percentage: number; status: string }>(
        `select (new_row->>'percentage')::int as percentage, new_row->>'status' as status from _realtime_local.changes
          where table_name = 'tasks' and op = 'UPDATE' and new_row->>'id' = $1 order by id`,
        [imagineId],
      );
      expect(rows.length).toBeGreaterThan(2);
      expect(rows.at(-1)).toEqual({ percentage: 100, status: 'finished' });
      const percentages = rows.map((r) => r.percentage);
      expect(percentages).toEqual([...percentages].sort((a, b) => a - b));
    });

    it('should upscale image 2 into a single image, and 2x to twice the size', async () => {
      const plain = await submit('/pro/upscale', { parent_task_id: imagineId, index: 2 });
      const double = await submit('/pro/upscale', { parent_task_id: imagineId, index: 2, type: '2x' });
      await waitForTask(db, plain);
      await waitForTask(db, double);
      const one = await fetched(plain);
      expect(one).toMatchObject({
        task_type: 'upscale#2',
        status: 'finished',
        parent_task_id: imagineId,
        cost: 2,
        input_data: { index: 2, upscale_type: '1x' },
      });
      expect(one.actions).toContain('upscale_creative');
      expect(one).not.toHaveProperty('image_urls');
      const cell = await mediaOf(one.image_url!);
      const parentCell = await mediaOf((await fetched(imagineId)).image_urls![1]);
      const raw = (data: Buffer) => sharp(data).removeAlpha().raw().toBuffer();
      // U2 is the second cell of the grid as it is
      expect((await raw(cell.data)).equals(await raw(parentCell.data))).toBe(true);
      const two = await fetched(double);
      expect(two).toMatchObject({ task_type: 'upscale-2x', status: 'finished', cost: 1 });
      expect(await sharp((await mediaOf(two.image_url!)).data).metadata()).toMatchObject({ width: 2 * TEST_CELL_SIZE });
    });

    it('should make variations of image 3 as a new grid task', async () => {
      const id = await submit('/pro/variations', { parent_task_id: imagineId, index: 3 });
      const task = await waitForTask(db, id);
      expect(task.status).toBe('finished');
      const view = await fetched(id);
      expect(view).toMatchObject({ task_type: 'variation-3', parent_task_id: imagineId, prompt: 'a lighthouse on a cliff at sunset', cost: 4 });
      expect(view.image_urls).toHaveLength(4);
      expect(view.result).toMatchObject({ layout: 'grid', simulated: true });
    });

    it('should reroll the same prompt into another grid', async () => {
      const id = await submit('/pro/reroll', { parent_task_id: imagineId });
      await waitForTask(db, id);
      const view = await fetched(id);
      expect(view).toMatchObject({ task_type: 'reroll', status: 'finished', prompt: 'a lighthouse on a cliff at sunset' });
      expect(view.original_image_url).not.toBe((await fetched(imagineId)).original_image_url);
    });

    it('should answer the seed of a task through /pro/seed then /fetch', async () => {
      const id = await submit('/pro/seed', { task_id: imagineId });
      await waitForTask(db, id);
      const view = await fetched(id);
      expect(view).toMatchObject({ task_type: 'seed', status: 'finished', cost: 2, parent_task_id: imagineId });
      expect(view).not.toHaveProperty('image_url');
      expect(view.seed).toBe((await fetched(imagineId)).seed);
    });
  });

  describe('flux and ideogram on the same machinery', () => {
    it('should render one flux image and an ideogram grid in the aspect ratio asked', async () => {
      const flux = await submit('/flux/imagine', { prompt: 'a red fox in the snow' });
      const ideogram = await submit('/ideogram/imagine', { prompt: 'a poster of a jazz night', aspect_ratio: '16:9' });
      await waitForTask(db, flux);
      await waitForTask(db, ideogram);
      const f = await fetched(flux);
      expect(f).toMatchObject({ task_type: 'flux-imagine', status: 'finished', cost: 1, result: { layout: 'single' }, image_url: expect.any(String) });
      const i = await fetched(ideogram);
      expect(i).toMatchObject({ task_type: 'ideogram-imagine', status: 'finished', cost: 1, input_data: { aspect_ratio: '16:9' } });
      const meta = await sharp((await mediaOf(i.image_urls![0])).data).metadata();
      expect(meta.width! / meta.height!).toBeCloseTo(16 / 9, 1);
    });
  });

  describe('POST /fetch', () => {
    it("should answer 404 for another user's task and for an unknown id", async () => {
      const other = await createUser(db);
      await grantCredits(db, other.id, 4);
      const theirs = await submit('/pro/imagine', { prompt: 'theirs' }, other.apiKey);
      for (const id of [theirs, '00000000-0000-0000-0000-000000000000']) {
        const res = await fetchTask(id);
        expect(res.status).toBe(404);
        expect(await expectErrorBody(res)).toEqual({ msg: 'Task not found', code: 'not_found' });
      }
      expect((await fetchTask(theirs, other.apiKey)).status).toBe(200);
    });

    it('should read an archived task of the caller from tasks_archive_1, an old success as finished', async () => {
      const { rows } = await db.query<{ id: string }>(
        `insert into public.tasks_archive_1 (id, user_id, email, type, status, percentage, complete, prompt, image_url, image_urls, seed, cost)
         values (gen_random_uuid(), $1, $2, 'imagine', 'success', 100, true, 'old one', 'http://localhost:8080/media/x-grid.png', array['http://localhost:8080/media/x-1.png'], '7', 4)
         returning id`,
        [user.id, user.email],
      );
      const view = await fetched(rows[0].id);
      expect(view).toMatchObject({ task_id: rows[0].id, archived: true, status: 'finished', percentage: '100', prompt: 'old one', seed: '7' });
    });

    it.each([
      ['no task_id', {}, 'task_id: Required'],
      ['a task_id that is not an id', { task_id: 'abc' }, 'task_id: Must be a task id'],
      ['a number', { task_id: 12 }, 'task_id: Must be a task id'],
    ])('should answer 400 for %s', async (_name, json, msg) => {
      const res = await post(h.app, '/fetch', { key: user.apiKey, json });
      expect(res.status).toBe(400);
      expect(await expectErrorBody(res)).toEqual({ msg, code: 'validation_failed' });
    });
  });

  describe('bad input never creates a task nor answers 500', () => {
    let pendingId: string;
    let foreignId: string;
    let gridId: string;

    beforeAll(async () => {
      const { rows } = await db.query<{ id: string }>(
        `insert into public.tasks (user_id, email, type, status, prompt) values ($1, $2, 'imagine', 'running', 'still going') returning id`,
        [user.id, user.email],
      );
      pendingId = rows[0].id;
      const other = await createUser(db);
      const theirs = await db.query<{ id: string }>(
        `insert into public.tasks (user_id, email, type, status, prompt, image_url, image_urls) values ($1, $2, 'imagine', 'success', 'x', 'u', array['u']) returning id`,
        [other.id, other.email],
      );
      foreignId = theirs.rows[0].id;
      const mine = await db.query<{ id: string }>(
        `insert into public.tasks (user_id, email, type, status, prompt, image_url, image_urls) values ($1, $2, 'upscale#1', 'success', 'x', 'u', array['u']) returning id`,
        [user.id, user.email],
      );
      gridId = mine.rows[0].id;
    });

    const cases: [string, string, () => unknown, number, string | RegExp][] = [
      ['imagine without prompt', '/pro/imagine', () => ({}), 400, 'prompt: Required'],
      ['imagine with a blank prompt', '/pro/imagine', () => ({ prompt: '   ' }), 400, 'prompt: Prompt must not be empty'],
      ['imagine with a prompt too long', '/pro/imagine', () => ({ prompt: 'a'.repeat(4001) }), 400, 'prompt: At most 4000 characters'],
      ['imagine with a number prompt', '/pro/imagine', () => ({ prompt: 5 }), 400, 'prompt: Must be a string'],
      ['imagine with an unknown mode', '/pro/imagine', () => ({ prompt: 'x', mode: 'relax' }), 400, /^mode: /],
      ['imagine with a bad webhook URL', '/pro/imagine', () => ({ prompt: 'x', webhook_url: 'ftp://x' }), 400, 'Webhook must start with http:// or https://'],
      ['variations without index', '/pro/variations', () => ({ parent_task_id: gridId }), 400, 'index: Required'],
      ['variations with index 0', '/pro/variations', () => ({ parent_task_id: gridId, index: 0 }), 400, 'index: Must be 1, 2, 3 or 4'],
      ['variations with index 5', '/pro/variations', () => ({ parent_task_id: gridId, index: 5 }), 400, 'index: Must be 1, 2, 3 or 4'],
      ['variations with index 1.5', '/pro/variations', () => ({ parent_task_id: gridId, index: 1.5 }), 400, 'index: Must be 1, 2, 3 or 4'],
      ['variations with index "2"', '/pro/variations', () => ({ parent_task_id: gridId, index: '2' }), 400, 'index: Must be a number'],
      [
        'variations of a single image, index 2',
        '/pro/variations',
        () => ({ parent_task_id: gridId, index: 2 }),
        400,
        'index must be between 1 and 1 for this task',
      ],
      ['upscale of an unknown type', '/pro/upscale', () => ({ parent_task_id: gridId, index: 1, type: '8x' }), 400, /^type: /],
      ['upscale of a running task', '/pro/upscale', () => ({ parent_task_id: pendingId, index: 1 }), 409, 'The task has not finished successfully'],
      ["upscale of someone else's task", '/pro/upscale', () => ({ parent_task_id: foreignId, index: 1 }), 404, 'Task not found'],
      ['reroll of an unknown task', '/pro/reroll', () => ({ parent_task_id: '00000000-0000-0000-0000-000000000001' }), 404, 'Task not found'],
      ['reroll with a bad id', '/pro/reroll', () => ({ parent_task_id: 'x' }), 400, 'parent_task_id: Must be a task id'],
      ['seed of a running task', '/pro/seed', () => ({ task_id: pendingId }), 409, 'The task has not finished successfully'],
      ['flux with an unknown aspect ratio', '/flux/imagine', () => ({ prompt: 'x', aspect_ratio: '5:1' }), 400, /^aspect_ratio: /],
      ['ideogram without prompt', '/ideogram/imagine', () => ({ aspect_ratio: '1:1' }), 400, 'prompt: Required'],
      ['malformed JSON', '/pro/imagine', () => '{"prompt":', 400, 'Malformed JSON in request body'],
    ];

    it.each(cases)('should refuse %s', async (_name, path, json, status, msg) => {
      const before = await balanceOf(db, user.id);
      const { rows: count } = await db.query<{ n: number }>('select count(*)::int as n from public.tasks where user_id = $1', [user.id]);
      const res = await post(h.app, path, { key: user.apiKey, json: json() });
      expect(res.status).toBe(status);
      const error = await expectErrorBody(res);
      if (typeof msg === 'string') expect(error.msg).toBe(msg);
      else expect(error.msg).toMatch(msg);
      expect(await balanceOf(db, user.id)).toEqual(before);
      const { rows: after } = await db.query<{ n: number }>('select count(*)::int as n from public.tasks where user_id = $1', [user.id]);
      expect(after[0].n).toBe(count[0].n);
    });

    it.each(['/pro/imagine', '/pro/variations', '/pro/upscale', '/pro/reroll', '/pro/seed', '/flux/imagine', '/ideogram/imagine', '/fetch'])(
      'should answer 401 without a key and 415 for a non-JSON body on %s',
      async (path) => {
        const anonymous = await post(h.app, path, { json: { prompt: 'x' } });
        expect(anonymous.status).toBe(401);
        const text = await post(h.app, path, { key: user.apiKey, json: 'prompt=x', headers: { 'content-type': 'text/plain' } });
        expect(text.status).toBe(415);
        await expectErrorBody(text);
      },
    );
  });

  describe('credits and webhooks at submit', () => {
    it('should answer 402 with no task and no ledger row when the balance is short', async () => {
      const poor = await createUser(db);
      await grantCredits(db, poor.id, 3);
      const res = await post(h.app, '/pro/imagine', { key: poor.apiKey, json: { prompt: 'too expensive' } });
      expect(res.status).toBe(402);
      expect(await expectErrorBody(res)).toEqual({ msg: 'Not enough credits', code: 'insufficient_credits' });
      const { rows } = await db.query<{ n: number }>('select count(*)::int as n from public.tasks where user_id = $1', [poor.id]);
      expect(rows[0].n).toBe(0);
      expect(await balanceOf(db, poor.id)).toEqual({ credits: 3, ledgerSum: 3, ledgerRows: 1 });
      // a cheaper task still fits
      expect((await post(h.app, '/flux/imagine', { key: poor.apiKey, json: { prompt: 'cheap' } })).status).toBe(200);
    });

    it('should keep the webhook out of the task row and out of reach of clients', async () => {
      const id = await submit('/pro/imagine', { prompt: 'with a hook', webhook_url: ' https://hooks.example.com/a ', webhook_secret: 'shh' });
      expect(await taskRepository(db).findWebhook(id)).toEqual({ url: 'https://hooks.example.com/a', secret: 'shh', events: null });
      // a secret alone rides with the account's webhook URL
      const secretOnly = await submit('/pro/imagine', { prompt: 'secret only', webhook_url: '', webhook_secret: 'abc' });
      expect(await taskRepository(db).findWebhook(secretOnly)).toEqual({ url: null, secret: 'abc', events: null });
      const none = await submit('/pro/imagine', { prompt: 'no hook' });
      expect(await taskRepository(db).findWebhook(none)).toBeUndefined();
      const row = await db.query('select to_jsonb(t) as t from public.tasks t where id = $1', [id]);
      expect(JSON.stringify(row.rows[0])).not.toContain('shh');
      await expect(
        db.transaction(async (tx) => {
          await tx.query('set local role authenticated');
          await tx.query('select * from public.task_webhooks');
        }),
      ).rejects.toThrow(/permission denied/);
    });
  });

  it('should document every generation endpoint with examples', async () => {
    const doc = (await (await h.app.request('/openapi.json')).json()) as {
      paths: Record<string, { post?: { requestBody?: { content: Record<string, { schema: { $ref?: string } }> }; responses: Record<string, unknown> } }>;
      components: { schemas: Record<string, { example?: unknown }> };
    };
    for (const path of [
      '/pro/imagine',
      '/pro/variations',
      '/pro/upscale',
      '/pro/reroll',
      '/pro/seed',
      '/flux/imagine',
      '/ideogram/imagine',
      '/fetch',
      '/upload',
    ]) {
      const op = doc.paths[path]?.post;
      expect(op, path).toBeDefined();
      expect(Object.keys(op!.responses)).toEqual(expect.arrayContaining(['200', '400', '401']));
      const ref = op!.requestBody!.content['application/json']?.schema.$ref;
      if (ref) expect(doc.components.schemas[ref.split('/').pop()!].example, path).toBeDefined();
    }
    expect(doc.paths['/media/{key}']).toBeDefined();
    expect(doc.components.schemas.Task.example).toBeDefined();
  });
});
