/**
 * The AI photo calls end to end (spec §3–§5, §7): POST /ai-photo-upload (photos judged by
 * their bytes, stored at submit, every validation message), /ai-photo-train (the caller's own
 * finished, unexpired upload; 4 credits per photo the upload kept) and /ai-photo-generate (the
 * caller's own finished, unexpired training; 1 credit per photo), each held with its task and
 * refunded once on failure; the worker building each job from the stored photos, the upload's
 * person and the training's identity, and refusing a model another engine trained; photos
 * shown in image_urls as they are stored; /fetch, realtime, a signed webhook, the OpenAPI
 * document. The engine is a test engine shaped like the local face engine's results.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { defineEngine } from '../src/engines/define-engine.ts';
import { type Engine, type EngineImage, type EngineJob, type EngineJobKind, EngineError } from '../src/engines/engine.ts';
import { createReplicateLoraEngine } from '../src/engines/replicate/lora.ts';
import { NUL_MESSAGE } from '../src/openapi/nul-guard.ts';
import type { TaskView } from '../src/services/tasks/task-view.ts';
import { verifyWebhookSignature } from '../src/webhooks/index.ts';
import { createWebhookService, type WebhookService } from '../src/webhooks/index.ts';
import { sendTaskWebhooks } from '../src/webhooks/task-webhooks.ts';
import { captureLogger, createUser, expectErrorBody, post, type TestUser } from './helpers.ts';
import { FAKE_OUTPUT_PNG, type FakeReplicate, startFakeReplicate } from './support/fake-replicate.ts';
import { balanceOf, grantCredits, ledgerOf, openTestDb, readTask, type TaskHarness, taskHarness, waitForTask } from './support/tasks.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const AI_PHOTO_KINDS: EngineJobKind[] = ['ai-photo-upload', 'ai-photo-train', 'ai-photo-generate'];

/** A small picture of its own colour (so no two are the same bytes). */
const picture = (i: number, format: 'jpeg' | 'png' | 'webp' = (['jpeg', 'png', 'webp'] as const)[i % 3], size = 48) =>
  sharp({ create: { width: size, height: size, channels: 3, background: { r: (i * 37) % 256, g: (i * 91) % 256, b: (i * 53) % 256 } } })
    .toFormat(format)
    .toBuffer();

const pngImage = (data: Buffer): EngineImage => ({ source: 'buffer', data, contentType: 'image/png', width: 48, height: 48 });

/**
 * Shaped like the local face engine's AI photo results: the upload check keeps every photo
 * but the fourth ("no face found") in `photos` verdicts; a training returns two reference
 * pictures and an identity profile in `data`; a generation returns `count` photos. Scripted
 * failures: an upload of a 99-year-old, a trigger word starting FAIL, a prompt starting fail:.
 */
function photoTestEngine(name: string, kinds: readonly EngineJobKind[] = AI_PHOTO_KINDS): Engine & { jobs: EngineJob[] } {
  const jobs: EngineJob[] = [];
  const engine = defineEngine({
    name,
    kinds,
    async execute(job, report) {
      jobs.push(job);
      if (job.kind === 'ai-photo-upload') {
        if (job.subject.age === 99) throw new EngineError('invalid_input', 'Scripted upload failure');
        const photos = job.images.map((_, index) => (index === 3 ? { index, usable: false, reason: 'no face found' } : { index, usable: true }));
        return { engine: name, method: 'test-check', simulated: false, layout: 'none', images: [], data: { photos } };
      }
      if (job.kind === 'ai-photo-train') {
        if (job.triggerWord.startsWith('FAIL')) throw new EngineError('upstream_failed', 'Scripted training failure');
        const crops = await Promise.all([200, 201].map(async (i) => pngImage(await picture(i, 'png'))));
        return {
          engine: name,
          method: 'test-profile',
          simulated: false,
          note: 'a test identity profile',
          layout: 'set',
          images: crops,
          upstreamId: `profile-${job.triggerWord}`,
          data: { identity: { photos: job.images.length }, layout: 'not-the-worker-s' },
        };
      }
      if (job.kind === 'ai-photo-generate') {
        if (job.prompt.startsWith('fail:')) throw new EngineError('upstream_failed', 'Scripted generation failure');
        if (job.prompt.startsWith('partial:')) {
          // the first photo is stored, the second cannot be fetched (nothing listens there)
          const first = pngImage(await picture(400, 'png'));
          return {
            engine: name,
            method: 'test-generation',
            simulated: false,
            layout: 'set',
            images: [first, { source: 'url', url: 'http://127.0.0.1:9/gone.png' }],
          };
        }
        report({ percentage: 50, status: 'running' });
        const photos = await Promise.all(Array.from({ length: job.count }, async (_, i) => pngImage(await picture(300 + i, 'png'))));
        return { engine: name, method: 'test-generation', simulated: false, layout: 'set', images: photos, data: { identity_score: 0.9 } };
      }
      throw new EngineError('unsupported', 'not an AI photo job');
    },
  });
  return Object.assign(engine, { jobs });
}

// made before the suites are collected: the validation tables are built from them
const photos = await Promise.all(Array.from({ length: 32 }, (_, i) => picture(i)));

describe.each(testDatabaseKinds())('AI photos on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let user: TestUser;
  let other: TestUser;
  let webhooks: WebhookService;
  let receiver: http.Server;
  let receiverUrl: string;
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const main = photoTestEngine('photo-test');
  // runs only generations: a model it trained goes to it, whatever the registry would pick
  const second = photoTestEngine('photo-second', ['ai-photo-generate']);
  const b64 = (i: number) => photos[i].toString('base64');
  const tenPhotos = () => Array.from({ length: 10 }, (_, i) => (i % 2 ? b64(i) : `data:image/${['jpeg', 'png', 'webp'][i % 3]};base64,${b64(i)}`));
  const upload = (over: Record<string, unknown> = {}) => ({ images: tenPhotos(), ethnicity: 'latino', gender: 'female', age: 32, ...over });

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

    db = await openTestDb(kind);
    h = await taskHarness(db, [main, second]);
    const worker = h.worker();
    const log = captureLogger();
    webhooks = createWebhookService({ db, log, allowPrivateTargets: true, pollIntervalMs: 50 });
    sendTaskWebhooks({ db, events: worker, webhooks, log });
    webhooks.start();
    await worker.start();
    user = await createUser(db);
    other = await createUser(db);
    await grantCredits(db, user.id, 1000);
    await grantCredits(db, other.id, 1000);
  });
  afterAll(async () => {
    expect(h?.appLog.lines.filter((l) => l.includes('unhandled error')) ?? []).toEqual([]);
    await webhooks?.stop();
    await h?.cleanup();
    await db?.close();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  const submit = async (path: string, json: Record<string, unknown>, key = user.apiKey) => {
    const res = await post(h.app, path, { key, json });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as { task_id: string };
    expect(Object.keys(body)).toEqual(['task_id']);
    return body.task_id;
  };
  const fetched = async (taskId: string, key = user.apiKey) => {
    const res = await post(h.app, '/fetch', { key, json: { task_id: taskId } });
    expect(res.status).toBe(200);
    return (await res.json()) as TaskView;
  };
  const row = async (taskId: string) =>
    (
      await db.query<{
        type: string;
        cost: number;
        parent_id: string | null;
        input_data: Record<string, unknown>;
        expires_at: Date | null;
        prompt: string | null;
      }>('select type, cost, parent_id, input_data, expires_at, prompt from public.tasks where id = $1', [taskId])
    ).rows[0];
  const countTasks = async (u = user) => (await db.query<{ n: number }>('select count(*)::int as n from public.tasks where user_id = $1', [u.id])).rows[0].n;
  const mediaFiles = async () => (await import('node:fs/promises')).readdir(h.mediaDir).catch(() => [] as string[]);
  const expectHeldOnce = async (taskId: string, price: number) => {
    expect((await row(taskId)).cost).toBe(price);
    expect((await ledgerOf(db, taskId))[0]).toEqual({ delta: -price, source_key: `hold:${taskId}` });
  };
  const expectRefundedOnce = async (taskId: string, price: number) => {
    expect(await ledgerOf(db, taskId)).toEqual([
      { delta: -price, source_key: `hold:${taskId}` },
      { delta: price, source_key: `refund:${taskId}` },
    ]);
    const after = await balanceOf(db, user.id);
    expect(after.credits).toBe(after.ledgerSum);
  };
  const expectAbout = (date: Date | string | null, expected: number) => {
    expect(date).not.toBeNull();
    expect(Math.abs(new Date(date as Date).getTime() - expected)).toBeLessThan(60_000);
  };
  /**
   * A finished task of `type` inserted as is (no engine run), for states a run would not leave;
   * `success` by default, as rows written before v1 compatibility say (they must still work as parents).
   */
  const insertTask = async (type: string, fields: { status?: string; expires?: string; result?: unknown; owner?: TestUser } = {}) => {
    const owner = fields.owner ?? user;
    const { rows } = await db.query<{ id: string }>(
      `insert into public.tasks (user_id, email, type, status, complete, input_data, result, expires_at)
       values ($1, $2, $3, $4, true, $5, $6, now() + $7::interval) returning id`,
      [
        owner.id,
        owner.email,
        type,
        fields.status ?? 'success',
        { ethnicity: 'white', gender: 'male', age: 40, images: [] },
        fields.result ?? null,
        fields.expires ?? '1 day',
      ],
    );
    return rows[0].id;
  };

  describe('the chain: upload → train → generate', () => {
    let uploadId: string;
    let trainId: string;
    let generateId: string;
    let submittedAt: number;

    beforeAll(async () => {
      main.jobs.length = 0;
      submittedAt = Date.now();
      uploadId = await submit('/ai-photo-upload', upload({ age: '32', webhook_url: receiverUrl, webhook_secret: 'photo-secret' }));
      await waitForTask(db, uploadId);
      trainId = await submit('/ai-photo-train', { training_images_id: uploadId, trigger_word: '  TOKMSN  ' });
      await waitForTask(db, trainId);
      generateId = await submit('/ai-photo-generate', {
        training_id: trainId,
        prompt: 'TOKMSN in a bright office',
        aspect_ratio: '3:4',
        width: 768,
        height: 1024,
        number_of_images: 3,
        seed: 1234,
        webhook_url: receiverUrl,
        webhook_secret: 'photo-secret',
      });
      await waitForTask(db, generateId);
    });

    it('should store the photos at submit and create the upload task with its price held, input_data and expires_at', async () => {
      const task = await row(uploadId);
      expect(task).toMatchObject({ type: 'ai-photo-upload', cost: 2, parent_id: null, prompt: null });
      const images = task.input_data.images as string[];
      expect(task.input_data).toEqual({ ethnicity: 'latino', gender: 'female', age: 32, images });
      expect(images).toHaveLength(10);
      for (const [i, url] of images.entries()) {
        expect(url).toMatch(new RegExp(`^http://localhost:8080/media/ai-photo-${uploadId}-${String(i + 1).padStart(2, '0')}\\.(jpg|png|webp)$`));
        const stored = await h.media.get(h.media.keyOf(url)!);
        expect(stored?.data.equals(photos[i]), `photo ${i}`).toBe(true);
      }
      expectAbout(task.expires_at, submittedAt + 7 * DAY_MS);
      await expectHeldOnce(uploadId, 2);
    });

    it('should give the upload check the stored photos and the person, and keep its verdicts', async () => {
      const job = main.jobs.find((j) => j.kind === 'ai-photo-upload');
      expect(job?.kind).toBe('ai-photo-upload');
      if (job?.kind !== 'ai-photo-upload') return;
      expect(job.subject).toEqual({ gender: 'female', ethnicity: 'latino', age: 32 });
      expect(job.images.map((img) => img.contentType)).toEqual(Array.from({ length: 10 }, (_, i) => ['image/jpeg', 'image/png', 'image/webp'][i % 3]));
      expect(job.images.every((img, i) => img.data.equals(photos[i]))).toBe(true);
      const view = await fetched(uploadId);
      expect(view).toMatchObject({ task_type: 'ai-photo-upload', status: 'finished', percentage: '100', message: 'Images ready for training' });
      expect(view).not.toHaveProperty('image_url');
      expect(view).not.toHaveProperty('image_urls');
      expect((view.result?.photos as unknown[] | undefined)?.[3]).toEqual({ index: 3, usable: false, reason: 'no face found' });
      expect(view.expires_at).toBe(new Date((await row(uploadId)).expires_at as Date).toISOString());
    });

    it('should price the training at 4 per photo the upload kept, held, pointing at the upload, and train on those photos', async () => {
      const task = await row(trainId);
      expect(task).toMatchObject({ type: 'ai-photo-train', parent_id: uploadId, input_data: { training_images_id: uploadId, trigger_word: 'TOKMSN' } });
      await expectHeldOnce(trainId, 4 * 9);
      expectAbout(task.expires_at, Date.now() + 30 * DAY_MS);
      const job = main.jobs.find((j) => j.kind === 'ai-photo-train');
      if (job?.kind !== 'ai-photo-train') throw new Error('no train job');
      expect(job.triggerWord).toBe('TOKMSN');
      expect(job.subject).toEqual({ gender: 'female', ethnicity: 'latino', age: 32 });
      // the fourth photo was rejected by the check: not trained on
      expect(job.images).toHaveLength(9);
      expect(job.images.every((img, i) => img.data.equals(photos[i < 3 ? i : i + 1]))).toBe(true);
      const view = await fetched(trainId);
      expect(view).toMatchObject({ task_type: 'ai-photo-train', status: 'finished', refund: 0, parent_task_id: uploadId, trigger_word: 'TOKMSN' });
      // the reference crops stay in the row (the worker reads them back), not in the v1 view
      expect(view).not.toHaveProperty('image_urls');
      expect((await readTask(db, trainId)).image_urls).toHaveLength(2);
      // the engine's data is kept, never over the worker's own keys
      expect(view.result).toMatchObject({ engine: 'photo-test', layout: 'set', upstream_id: 'profile-TOKMSN', identity: { photos: 9 } });
    });

    it('should generate from the trained identity: its engine, trigger word, person, data and pictures', async () => {
      const job = main.jobs.find((j) => j.kind === 'ai-photo-generate');
      if (job?.kind !== 'ai-photo-generate') throw new Error('no generate job');
      expect(job).toMatchObject({ prompt: 'TOKMSN in a bright office', count: 3, aspectRatio: '3:4', width: 768, height: 1024, seed: 1234 });
      const { identity } = job;
      expect(identity).toMatchObject({
        engine: 'photo-test',
        triggerWord: 'TOKMSN',
        subject: { gender: 'female', ethnicity: 'latino', age: 32 },
        upstreamId: 'profile-TOKMSN',
      });
      expect(identity.data).toEqual({ identity: { photos: 9 } });
      const crops = (await readTask(db, trainId)).image_urls ?? [];
      expect(identity.images.map((img) => img.url)).toEqual(crops);
      expect(identity.images[0].data.equals(await picture(200, 'png'))).toBe(true);
    });

    it('should price the generation at 1 per photo, held, and show its photos in image_urls on /fetch', async () => {
      const task = await row(generateId);
      expect(task).toMatchObject({
        type: 'ai-photo-generate',
        parent_id: trainId,
        prompt: 'TOKMSN in a bright office',
        input_data: { training_id: trainId, aspect_ratio: '3:4', width: 768, height: 1024, number_of_images: 3, seed: 1234 },
      });
      expect(task.expires_at).toEqual((await row(trainId)).expires_at);
      await expectHeldOnce(generateId, 3);
      const view = await fetched(generateId);
      expect(view).toMatchObject({ task_type: 'ai-photo-generate', status: 'finished', percentage: '100', cost: 3, refund: 0 });
      expect(view.image_urls).toEqual([1, 2, 3].map((i) => `http://localhost:8080/media/${generateId}-${i}.png`));
      expect(view).not.toHaveProperty('image_url');
      for (const [i, url] of (view.image_urls ?? []).entries()) {
        const media = await h.app.request(new URL(url).pathname);
        expect(media.status).toBe(200);
        expect(Buffer.from(await media.arrayBuffer()).equals(await picture(300 + i, 'png'))).toBe(true);
      }
    });

    it('should have shown the photos in image_urls as they were stored, before the task ended (realtime)', async () => {
      const { rows } = await db.query<{ status: string; percentage: number; n: number | null }>(
        `select new_row->>'status' as status, (new_row->>'percentage')::int as percentage, case when jsonb_typeof(new_row->'image_urls') = 'array' then jsonb_array_length(new_row->'image_urls') end as n
           from _realtime_local.changes where table_name = 'tasks' and op = 'UPDATE' and new_row->>'id' = $1 order by id`,
        [generateId],
      );
      const growing = rows.filter((r) => r.status !== 'finished' && r.n !== null).map((r) => r.n);
      expect(growing).toEqual([1, 2, 3]);
      expect(rows.at(-1)).toMatchObject({ status: 'finished', percentage: 100, n: 3 });
      const percentages = rows.map((r) => r.percentage);
      expect(percentages).toEqual([...percentages].sort((a, b) => a - b));
    });

    it('should send signed completion webhooks with the task as /fetch shows it', async () => {
      for (const id of [uploadId, generateId]) {
        const deadline = Date.now() + 15_000;
        let hit: (typeof received)[number] | undefined;
        while (!hit && Date.now() < deadline) {
          hit = received.find((r) => r.headers['x-webhook-event'] === 'task.completed' && (JSON.parse(r.body) as { task_id: string }).task_id === id);
          if (!hit) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(hit, `completion webhook of ${id}`).toBeDefined();
        expect(verifyWebhookSignature('photo-secret', hit!.headers as Record<string, string>, hit!.body).ok).toBe(true);
        expect(JSON.parse(hit!.body)).toMatchObject({ task_id: id, status: 'finished', expires_at: expect.any(String) });
        expect(JSON.parse(hit!.body)).toEqual({ ...(await fetched(id)), child_task_ids: undefined }); // /fetch's lineage is not in webhook bodies
      }
    });

    it('should train under TOKMSN when trigger_word is left out (the APIFRAME v1 default)', async () => {
      const runs = main.jobs.length;
      const id = await submit('/ai-photo-train', { training_images_id: uploadId });
      expect((await row(id)).input_data).toEqual({ training_images_id: uploadId, trigger_word: 'TOKMSN' });
      await expectHeldOnce(id, 4 * 9);
      expect(await waitForTask(db, id)).toMatchObject({ status: 'finished', refund: 0 });
      expect(main.jobs.slice(runs)).toEqual([expect.objectContaining({ kind: 'ai-photo-train', triggerWord: 'TOKMSN' })]);
      expect(await fetched(id)).toMatchObject({ task_type: 'ai-photo-train', status: 'finished', parent_task_id: uploadId, trigger_word: 'TOKMSN' });
    });

    it('should default to 4 photos at 1 credit each', async () => {
      const id = await submit('/ai-photo-generate', { training_id: trainId, prompt: 'TOKMSN on a beach' });
      await expectHeldOnce(id, 4);
      expect((await waitForTask(db, id)).image_urls).toHaveLength(4);
      expect((await row(id)).input_data).toEqual({ training_id: trainId, aspect_ratio: '1:1', number_of_images: 4 });
    });

    it("should answer 404 'Task not found' for another user's upload or training, and an unknown id", async () => {
      for (const [path, json] of [
        ['/ai-photo-train', { training_images_id: uploadId, trigger_word: 'TOKMSN' }],
        ['/ai-photo-generate', { training_id: trainId, prompt: 'x' }],
        ['/ai-photo-train', { training_images_id: '00000000-0000-4000-8000-000000000000', trigger_word: 'TOKMSN' }],
      ] as const) {
        const before = await balanceOf(db, other.id);
        const res = await post(h.app, path, { key: other.apiKey, json });
        expect(res.status, path).toBe(404);
        expect(await expectErrorBody(res)).toEqual({ msg: 'Task not found', code: 'not_found' });
        expect(await balanceOf(db, other.id)).toEqual(before);
      }
    });

    it('should answer 409 for a task of the wrong type', async () => {
      const train = await post(h.app, '/ai-photo-train', { key: user.apiKey, json: { training_images_id: trainId, trigger_word: 'TOKMSN' } });
      expect(train.status).toBe(409);
      expect(await expectErrorBody(train)).toEqual({ msg: 'The task is not an AI photo upload', code: 'conflict' });
      const generate = await post(h.app, '/ai-photo-generate', { key: user.apiKey, json: { training_id: uploadId, prompt: 'x' } });
      expect(generate.status).toBe(409);
      expect(await expectErrorBody(generate)).toEqual({ msg: 'The task is not an AI photo training', code: 'conflict' });
    });
  });

  describe('uploads that are not ready for training, trainings not ready for generating', () => {
    it.each([
      ['ai-photo-upload', { status: 'processing' }, 'The upload has not finished yet'],
      ['ai-photo-upload', { status: 'pending' }, 'The upload has not finished yet'],
      ['ai-photo-upload', { status: 'failed' }, 'The upload failed; upload the photos again'],
      ['ai-photo-train', { status: 'running' }, 'The training has not finished yet'],
      ['ai-photo-train', { status: 'failed' }, 'The training failed; train a new model'],
    ] as const)('should answer 409 for a %s task %j', async (type, fields, msg) => {
      const id = await insertTask(type, fields);
      const [path, json] =
        type === 'ai-photo-upload'
          ? ['/ai-photo-train', { training_images_id: id, trigger_word: 'TOKMSN' }]
          : ['/ai-photo-generate', { training_id: id, prompt: 'x' }];
      const before = await balanceOf(db, user.id);
      const res = await post(h.app, path, { key: user.apiKey, json });
      expect(res.status).toBe(409);
      expect(await expectErrorBody(res)).toEqual({ msg, code: 'conflict' });
      expect(await balanceOf(db, user.id)).toEqual(before);
    });

    it('should answer 409 naming the date for an expired upload or training', async () => {
      for (const [type, path, json, again] of [
        ['ai-photo-upload', '/ai-photo-train', (id: string) => ({ training_images_id: id, trigger_word: 'TOKMSN' }), 'upload the photos again'],
        ['ai-photo-train', '/ai-photo-generate', (id: string) => ({ training_id: id, prompt: 'x' }), 'train a new model'],
      ] as const) {
        const id = await insertTask(type, { expires: '-1 minute' });
        const res = await post(h.app, path, { key: user.apiKey, json: json(id) });
        expect(res.status).toBe(409);
        const { rows } = await db.query<{ expires_at: Date }>('select expires_at from public.tasks where id = $1', [id]);
        const what = type === 'ai-photo-upload' ? 'upload' : 'training';
        expect(await expectErrorBody(res)).toEqual({ msg: `The ${what} expired at ${new Date(rows[0].expires_at).toISOString()}; ${again}`, code: 'conflict' });
      }
    });

    it('should answer 409 for an upload whose check kept no photo', async () => {
      const id = await insertTask('ai-photo-upload', { result: { rejected: [{ index: 0, reason: 'no face' }] } });
      await db.query(`update public.tasks set input_data = jsonb_set(input_data, '{images}', '["http://localhost:8080/media/x.png"]') where id = $1`, [id]);
      const res = await post(h.app, '/ai-photo-train', { key: user.apiKey, json: { training_images_id: id, trigger_word: 'TOKMSN' } });
      expect(res.status).toBe(409);
      expect(await expectErrorBody(res)).toEqual({ msg: 'None of the uploaded photos can be used for training; upload other photos', code: 'conflict' });
    });
  });

  describe('validation: a 400 naming the field, nothing held, nothing stored', () => {
    const refused = async (path: string, json: unknown, msg: string, more: string[] = []) => {
      const before = await balanceOf(db, user.id);
      const tasks = await countTasks();
      const files = (await mediaFiles()).length;
      const res = await post(h.app, path, { key: user.apiKey, json });
      expect(res.status, await res.clone().text()).toBe(400);
      const body = (await res.clone().json()) as { errors: { msg: string }[] };
      expect(await expectErrorBody(res)).toMatchObject({ msg });
      if (more.length) expect(body.errors.slice(1).map((e) => e.msg)).toEqual(more);
      expect(await balanceOf(db, user.id)).toEqual(before);
      expect(await countTasks()).toBe(tasks);
      expect((await mediaFiles()).length).toBe(files);
    };
    const withImage = (i: number, value: unknown) => {
      const images: unknown[] = tenPhotos();
      images[i] = value;
      return upload({ images });
    };

    it('should refuse too few and too many photos with the spec’s words', async () => {
      await refused('/ai-photo-upload', upload({ images: tenPhotos().slice(0, 9) }), 'images: Upload 10 to 30 photos');
      await refused('/ai-photo-upload', upload({ images: [] }), 'images: Upload 10 to 30 photos');
      await refused(
        '/ai-photo-upload',
        upload({ images: Array.from({ length: 31 }, (_, i) => b64(i)) }),
        'images: You already selected the maximum of 30 images',
      );
    });

    it.each([
      [
        'missing images',
        (() => {
          const { images: _, ...rest } = upload();
          return rest;
        })(),
        'images: Required',
      ],
      ['images not a list', upload({ images: 'abc' }), 'images: Must be an array of base64 photos'],
      ['a photo that is not a string', withImage(3, 42), 'images.3: Must be a string'],
      ['a NUL in a photo', withImage(3, 'ab\u0000c'), `images.3: ${NUL_MESSAGE}`],
      ['a photo that is not base64', withImage(3, 'this is not base64!'), 'images[3]: not base64 (or a data:…;base64, URI)'],
      ['a data: URI without base64', withImage(3, 'data:image/png,abc'), 'images[3]: a data: URI must carry base64 (data:image/jpeg;base64,…)'],
      ['an empty photo', withImage(3, '  '), 'images[3]: empty'],
      ['a GIF', withImage(3, Buffer.from('R0lGODlhAQABAAAAACw=', 'base64').toString('base64')), 'images[3]: not a JPEG, PNG or WebP image'],
      ['text', withImage(3, Buffer.from('hello, I am not a photo').toString('base64')), 'images[3]: not a JPEG, PNG or WebP image'],
      [
        'a PNG cut short',
        withImage(3, Buffer.from('89504e470d0a1a0a0000000d4948445200', 'hex').toString('base64')),
        'images[3]: the image could not be read (damaged or cut short)',
      ],
      ['the same photo twice', withImage(4, `data:image/png;base64,${b64(1)}`), 'images[4]: the same photo as images[1]'],
      [
        'an unknown ethnicity',
        upload({ ethnicity: 'martian' }),
        'ethnicity: Must be one of asian, black, latino, middle eastern, native american, pacific islander, white, mixed, other',
      ],
      ['a missing ethnicity', upload({ ethnicity: undefined }), 'ethnicity: Required'],
      ['a gender outside the spec', upload({ gender: 'other' }), 'gender: Must be male or female'],
      ['a missing gender', upload({ gender: undefined }), 'gender: Required'],
      ['a missing age', upload({ age: undefined }), 'age: Required'],
      ['an age that is not a number', upload({ age: 'thirty' }), 'age: Must be a whole number from 1 to 120'],
      ['an age of 0', upload({ age: 0 }), 'age: Must be a whole number from 1 to 120'],
      ['an age of 121', upload({ age: 121 }), 'age: Must be a whole number from 1 to 120'],
      ['a fractional age', upload({ age: 30.5 }), 'age: Must be a whole number from 1 to 120'],
      ['a webhook that is not http', upload({ webhook_url: 'ftp://hooks' }), 'Webhook must start with http:// or https://'],
    ])('should refuse %s', async (_, json, msg) => {
      await refused('/ai-photo-upload', json, msg);
    });

    it('should refuse a photo over 10 MB and one over 40 megapixels', async () => {
      await refused('/ai-photo-upload', withImage(3, Buffer.alloc(10 * 1024 * 1024 + 1, 0xff).toString('base64')), 'images[3]: larger than 10 MB');
      // a real JPEG whose header claims 8000×6000
      const huge = await picture(99, 'jpeg', 16);
      const sof = huge.indexOf(Buffer.from([0xff, 0xc0]));
      huge.writeUInt16BE(6000, sof + 5);
      huge.writeUInt16BE(8000, sof + 7);
      await refused('/ai-photo-upload', withImage(3, huge.toString('base64')), 'images[3]: larger than 40 megapixels');
    });

    it('should name every bad photo at once', async () => {
      const images: unknown[] = tenPhotos();
      images[2] = 'nope!';
      images[7] = Buffer.from('GIF89a....').toString('base64');
      await refused('/ai-photo-upload', upload({ images }), 'images[2]: not base64 (or a data:…;base64, URI)', ['images[7]: not a JPEG, PNG or WebP image']);
    });

    it.each([
      [{ training_images_id: 'x', trigger_word: 'TOKMSN' }, 'training_images_id: Must be a task id'],
      [{ trigger_word: 'TOKMSN' }, 'training_images_id: Required'],
      [{ training_images_id: '00000000-0000-4000-8000-000000000000', trigger_word: 42 }, 'trigger_word: Must be a string'],
      [{ training_images_id: '00000000-0000-4000-8000-000000000000', trigger_word: '' }, 'Trigger word must be 6–12 characters'],
      [{ training_images_id: '00000000-0000-4000-8000-000000000000', trigger_word: 'ABCDE' }, 'Trigger word must be 6–12 characters'],
      [{ training_images_id: '00000000-0000-4000-8000-000000000000', trigger_word: 'ABCDEFGHIJKLM' }, 'Trigger word must be 6–12 characters'],
      [{ training_images_id: '00000000-0000-4000-8000-000000000000', trigger_word: '   ABCD   ' }, 'Trigger word must be 6–12 characters'],
      [{ training_images_id: '00000000-0000-4000-8000-000000000000', trigger_word: 'my face' }, 'Trigger word must be one word of letters, digits, _ or -'],
      [
        { training_images_id: '00000000-0000-4000-8000-000000000000', trigger_word: 'TOKMSN', webhook_url: 'nope' },
        'Webhook must start with http:// or https://',
      ],
    ])('should refuse training with %j', async (json, msg) => {
      await refused('/ai-photo-train', json, msg);
    });

    const training = '00000000-0000-4000-8000-000000000000';
    it.each([
      [{ prompt: 'x' }, 'training_id: Required'],
      [{ training_id: training }, 'prompt: Required'],
      [{ training_id: training, prompt: '   ' }, 'prompt: Prompt must not be empty'],
      [{ training_id: training, prompt: 'x', number_of_images: 0 }, 'number_of_images: Must be a whole number from 1 to 4'],
      [{ training_id: training, prompt: 'x', number_of_images: 5 }, 'number_of_images: Must be a whole number from 1 to 4'],
      [{ training_id: training, prompt: 'x', aspect_ratio: '5:4' }, 'aspect_ratio: Must be one of 1:1, 16:9, 9:16, 4:3, 3:4, 3:2, 2:3 or custom'],
      [{ training_id: training, prompt: 'x', width: 1024 }, 'height: Required with width'],
      [{ training_id: training, prompt: 'x', height: 1024 }, 'width: Required with height'],
      [{ training_id: training, prompt: 'x', aspect_ratio: 'custom' }, 'width: Required when aspect_ratio is custom'],
      [{ training_id: training, prompt: 'x', width: 100, height: 1024 }, 'width: Must be a whole number from 256 to 1440'],
      [{ training_id: training, prompt: 'x', width: 1024, height: 2048 }, 'height: Must be a whole number from 256 to 1440'],
      [
        { training_id: training, prompt: 'x', aspect_ratio: '16:9', width: 1024, height: 1024 },
        'width: 1024×1024 is not 16:9; leave width and height out, or set aspect_ratio to custom',
      ],
      [{ training_id: training, prompt: 'x', seed: -1 }, 'seed: Must be a whole number from 0 to 4294967295'],
    ])('should refuse generating with %j', async (json, msg) => {
      await refused('/ai-photo-generate', json, msg);
    });
  });

  describe('size limits', () => {
    it('should take an upload bigger than the 1 MiB JSON limit', async () => {
      const noisy = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          sharp({ create: { width: 200, height: 200, channels: 3, background: { r: i, g: 0, b: 0 }, noise: { type: 'gaussian', mean: 128, sigma: 60 } } })
            .png()
            .toBuffer(),
        ),
      );
      const json = upload({ images: noisy.map((p) => p.toString('base64')) });
      expect(JSON.stringify(json).length).toBeGreaterThan(1024 * 1024);
      await waitForTask(db, await submit('/ai-photo-upload', json));
    });

    it('should answer 413 for a body over the upload limit, without reading it as JSON', async () => {
      const res = await h.app.request('/ai-photo-upload', {
        method: 'POST',
        headers: { authorization: user.apiKey, 'content-type': 'application/json', 'content-length': String(128 * 1024 * 1024 + 1) },
        body: '{}',
      });
      expect(res.status).toBe(413);
      expect(await expectErrorBody(res)).toEqual({
        msg: 'Request body is too large: the photos of one upload must total at most 128 MB as base64',
        code: 'payload_too_large',
      });
    });
  });

  describe('credits', () => {
    it('should answer 402 without the credits, storing no photo and creating nothing', async () => {
      const poor = await createUser(db);
      await grantCredits(db, poor.id, 1);
      const files = (await mediaFiles()).length;
      const res = await post(h.app, '/ai-photo-upload', { key: poor.apiKey, json: upload() });
      expect(res.status).toBe(402);
      expect(await expectErrorBody(res)).toEqual({ msg: 'Not enough credits', code: 'insufficient_credits' });
      expect(await countTasks(poor)).toBe(0);
      expect((await mediaFiles()).length).toBe(files);
    });

    it('should answer 402 for a training the balance does not cover at 4 per photo', async () => {
      const rich = await createUser(db);
      await grantCredits(db, rich.id, 2 + 4 * 9 - 1);
      const uploadId = await submit('/ai-photo-upload', upload(), rich.apiKey);
      await waitForTask(db, uploadId);
      const res = await post(h.app, '/ai-photo-train', { key: rich.apiKey, json: { training_images_id: uploadId, trigger_word: 'TOKMSN' } });
      expect(res.status).toBe(402);
      expect(await countTasks(rich)).toBe(1);
    });

    it('should answer 401 without a key', async () => {
      for (const path of ['/ai-photo-upload', '/ai-photo-train', '/ai-photo-generate']) {
        const res = await post(h.app, path, { json: {} });
        expect(res.status, path).toBe(401);
      }
    });
  });

  describe('failures are refunded once', () => {
    let uploadId: string;
    let trainId: string;

    beforeAll(async () => {
      uploadId = await submit('/ai-photo-upload', upload());
      await waitForTask(db, uploadId);
      trainId = await submit('/ai-photo-train', { training_images_id: uploadId, trigger_word: 'REFUND' });
      await waitForTask(db, trainId);
    });

    it('should refund a failed upload check', async () => {
      const id = await submit('/ai-photo-upload', upload({ age: 99 }));
      expect(await waitForTask(db, id)).toMatchObject({ status: 'failed', refund: 2, result: { message: 'Scripted upload failure', code: 'invalid_input' } });
      await expectRefundedOnce(id, 2);
    });

    it('should refund a failed training its 4 per photo', async () => {
      const id = await submit('/ai-photo-train', { training_images_id: uploadId, trigger_word: 'FAILING' });
      expect(await waitForTask(db, id)).toMatchObject({
        status: 'failed',
        refund: 36,
        result: { message: 'Scripted training failure', code: 'upstream_failed' },
      });
      await expectRefundedOnce(id, 36);
    });

    it('should refund a failed generation its 1 per photo, and show no photo', async () => {
      const id = await submit('/ai-photo-generate', { training_id: trainId, prompt: 'fail:now', number_of_images: 2 });
      const task = await waitForTask(db, id);
      expect(task).toMatchObject({
        status: 'failed',
        refund: 2,
        image_urls: null,
        result: { message: 'Scripted generation failure', code: 'upstream_failed' },
      });
      await expectRefundedOnce(id, 2);
    });

    it('should not show the photos stored before a failure, and refund once', async () => {
      const id = await submit('/ai-photo-generate', { training_id: trainId, prompt: 'partial:now', number_of_images: 2 });
      const task = await waitForTask(db, id);
      expect(task).toMatchObject({ status: 'failed', refund: 2, image_url: null, image_urls: null });
      await expectRefundedOnce(id, 2);
      // it was shown while the task ran
      const shown = await db.query<{ n: number }>(
        `select count(*)::int as n from _realtime_local.changes
          where table_name = 'tasks' and op = 'UPDATE' and new_row->>'id' = $1 and new_row->>'status' <> 'failed' and jsonb_typeof(new_row->'image_urls') = 'array'`,
        [id],
      );
      expect(shown.rows[0].n).toBeGreaterThanOrEqual(1);
    });

    it('should fail and refund a generation whose model another engine trained, naming both', async () => {
      const gone = await insertTask('ai-photo-train', { result: { engine: 'gone-engine', method: 'x', simulated: false, layout: 'none' } });
      await db.query(`update public.tasks set parent_id = $2, input_data = '{"trigger_word": "TOKMSN"}' where id = $1`, [gone, uploadId]);
      const runs = main.jobs.length;
      const id = await submit('/ai-photo-generate', { training_id: gone, prompt: 'x', number_of_images: 1 });
      expect(await waitForTask(db, id)).toMatchObject({
        status: 'failed',
        refund: 1,
        result: {
          message: 'This model was trained by another engine (gone-engine) than the one generating photos here (photo-test); train it again.',
          code: 'unsupported',
        },
      });
      await expectRefundedOnce(id, 1);
      expect(main.jobs.length).toBe(runs);
    });

    it('should fail and refund when the uploaded photos are gone from the media store', async () => {
      const id = await insertTask('ai-photo-upload');
      await db.query(
        `update public.tasks set input_data = jsonb_set(input_data, '{images}', '["http://localhost:8080/media/ai-photo-gone-01.png"]') where id = $1`,
        [id],
      );
      const train = await submit('/ai-photo-train', { training_images_id: id, trigger_word: 'TOKMSN' });
      expect(await waitForTask(db, train)).toMatchObject({
        status: 'failed',
        refund: 4,
        result: { message: 'The uploaded photos are no longer stored; upload them again.', code: 'invalid_input' },
      });
      await expectRefundedOnce(train, 4);
    });

    it('should run a generation on the engine that trained the model when this server has it', async () => {
      const byOther = await insertTask('ai-photo-train', { result: { engine: 'photo-second', method: 'x', simulated: false, layout: 'none' } });
      await db.query(`update public.tasks set parent_id = $2, input_data = '{"trigger_word": "TOKMSN"}' where id = $1`, [byOther, uploadId]);
      const id = await submit('/ai-photo-generate', { training_id: byOther, prompt: 'x', number_of_images: 1 });
      const { rows } = await db.query<{ queue: string }>('select queue from public.task_jobs where task_id = $1', [id]);
      expect(rows[0].queue).toBe('photo-second');
      expect(await waitForTask(db, id)).toMatchObject({ status: 'finished', result: { engine: 'photo-second' } });
      expect(second.jobs.at(-1)).toMatchObject({ kind: 'ai-photo-generate', identity: { engine: 'photo-second', triggerWord: 'TOKMSN' } });
      expect((await readTask(db, id)).refund).toBe(0);
    });
  });

  it('should document the three calls with examples in the OpenAPI document and on /docs', async () => {
    const doc = (await (await h.app.request('/openapi.json')).json()) as {
      paths: Record<string, { post?: { security?: unknown; responses: Record<string, unknown> } }>;
      components: { schemas: Record<string, { example?: Record<string, unknown>; properties?: Record<string, unknown>; required?: string[] }> };
    };
    for (const path of ['/ai-photo-upload', '/ai-photo-train', '/ai-photo-generate']) {
      const op = doc.paths[path]?.post;
      expect(op?.security, path).toEqual([{ apiKey: [] }]);
      expect(Object.keys(op?.responses ?? {}), path).toEqual(expect.arrayContaining(['200', '400', '401', '402', '413', '415', '500']));
    }
    expect(Object.keys(doc.paths['/ai-photo-train'].post?.responses ?? {})).toEqual(expect.arrayContaining(['404', '409']));
    expect(doc.components.schemas.AiPhotoUploadRequest.example).toMatchObject({ ethnicity: 'latino', gender: 'female', age: 32 });
    expect(doc.components.schemas.AiPhotoTrainRequest.example).toMatchObject({ trigger_word: 'TOKMSN' });
    // trigger_word may be left out: v1's default, shown in the document
    expect(doc.components.schemas.AiPhotoTrainRequest.required).toEqual(['training_images_id']);
    expect(doc.components.schemas.AiPhotoTrainRequest.properties?.trigger_word).toMatchObject({
      type: 'string',
      default: 'TOKMSN',
      minLength: 6,
      maxLength: 12,
    });
    expect(doc.components.schemas.AiPhotoGenerateRequest.example).toMatchObject({ number_of_images: 4 });
    expect(doc.components.schemas.Task.properties).toHaveProperty('expires_at');
    const html = await (await h.app.request('/docs')).text();
    for (const path of ['/ai-photo-upload', '/ai-photo-train', '/ai-photo-generate']) expect(html).toContain(`POST</span> <code>${path}</code>`);
    expect(html).toContain('&#34;trigger_word&#34;: &#34;TOKMSN&#34;');
  });
});

describe.each(testDatabaseKinds())('AI photos on the Replicate LoRA adapter on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let upstream: FakeReplicate;
  let user: TestUser;
  // the upload check stays local (here the test engine); training and generation are hosted
  const check = photoTestEngine('photo-check', ['ai-photo-upload']);

  beforeAll(async () => {
    upstream = await startFakeReplicate({ token: 'r8_e2e', destinations: ['acme/people'] });
    db = await openTestDb(kind);
    const lora = createReplicateLoraEngine({
      apiToken: 'r8_e2e',
      destination: 'acme/people',
      baseUrl: upstream.baseUrl,
      pollIntervalMs: 10,
      maxPollIntervalMs: 20,
    });
    h = await taskHarness(db, [check, lora]);
    await h.worker().start();
    user = await createUser(db);
    await grantCredits(db, user.id, 100);
  });
  afterAll(async () => {
    expect(h?.appLog.lines.filter((l) => l.includes('unhandled error')) ?? []).toEqual([]);
    await h?.cleanup();
    await db?.close();
    await upstream?.close();
  });

  it('should train on the kept photos, record the trained version, generate from it and copy the photos into our store', async () => {
    const submit = async (path: string, json: Record<string, unknown>) => {
      const res = await post(h.app, path, { key: user.apiKey, json });
      expect(res.status, await res.clone().text()).toBe(200);
      return ((await res.json()) as { task_id: string }).task_id;
    };
    const uploadId = await submit('/ai-photo-upload', {
      images: photos.slice(0, 10).map((p) => p.toString('base64')),
      ethnicity: 'asian',
      gender: 'male',
      age: 40,
    });
    expect(await waitForTask(db, uploadId)).toMatchObject({ status: 'finished' });

    const trainId = await submit('/ai-photo-train', { training_images_id: uploadId, trigger_word: 'ZKWLMN' });
    const train = await waitForTask(db, trainId);
    const [training] = upstream.trainings.values();
    expect(train).toMatchObject({ status: 'finished', cost: 36, refund: 0, image_urls: null });
    expect(train.result).toMatchObject({
      engine: 'replicate-lora',
      simulated: false,
      layout: 'none',
      upstream_id: training.id,
      upstream_version: expect.stringMatching(/^acme\/people:[0-9a-f]{64}$/),
      weights: expect.stringContaining(training.id),
    });
    // the nine photos the check kept, as stored, in the zip Replicate trained on
    expect(training.input.trigger_word).toBe('ZKWLMN');
    expect(training.photos.map((p) => p.data)).toEqual(photos.filter((_, i) => i < 10 && i !== 3));

    const generateId = await submit('/ai-photo-generate', { training_id: trainId, prompt: 'on a mountain at dawn', aspect_ratio: '16:9', seed: 5 });
    const generated = await waitForTask(db, generateId);
    const [prediction] = upstream.predictions.values();
    expect(prediction.input).toEqual({ prompt: 'photo of ZKWLMN, a man, on a mountain at dawn', num_outputs: 4, aspect_ratio: '16:9', seed: 5 });
    expect(prediction.model.version).toBe(String(train.result?.upstream_version).split(':')[1]);
    expect(generated).toMatchObject({
      status: 'finished',
      cost: 4,
      refund: 0,
      result: { engine: 'replicate-lora', layout: 'set', upstream_id: prediction.id },
    });
    expect(generated.image_urls).toEqual([1, 2, 3, 4].map((i) => `http://localhost:8080/media/${generateId}-${i}.png`));
    for (const url of generated.image_urls ?? []) {
      expect((await h.media.get(h.media.keyOf(url)!))?.data.equals(FAKE_OUTPUT_PNG)).toBe(true);
    }
  });
});
