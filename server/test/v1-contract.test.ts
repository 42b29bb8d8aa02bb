/**
 * The API as an APIFRAME v1 client sees it, over a real socket: the key alone in Authorization
 * (no Bearer), submit, poll POST /fetch until `finished`, follow-ups, POST /fetch-many, GET
 * /account, webhook bodies equal to the /fetch result, errors read from `message`. Every v1
 * path gets its case here as it is built (see test/support/v1-client.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { verifyWebhookSignature } from '../src/webhooks/index.ts';
import { createUser, type TestUser } from './helpers.ts';
import { createLocalEngine } from '../src/engines/local/index.ts';
import { grantCredits, openTestDb, TEST_CELL_SIZE, taskHarness, type TaskHarness } from './support/tasks.ts';
import { startV1Platform, type V1Platform } from './support/v1-platform.ts';
import { createV1Client, V1_CLIENT_STATUSES, V1ApiError, type V1Client, type V1Task, V1TaskFailedError } from './support/v1-client.ts';

const CREDITS = 50;

describe.each(testDatabaseKinds())('an APIFRAME v1 client on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let baseUrl: string;
  let receiverUrl: string;
  let received: V1Platform['received'];
  let platform: V1Platform;
  let user: TestUser;
  /** An account without credits. */
  let poor: TestUser;
  let v1: V1Client;

  beforeAll(async () => {
    db = await openTestDb(kind);
    // outputs over 256×256 fail, so a 4x upscale of a cell is a real engine failure
    h = await taskHarness(db, [createLocalEngine({ cellSize: TEST_CELL_SIZE, maxOutputPixels: 256 * 256 })]);
    platform = await startV1Platform({ db, h, worker: h.worker() });
    ({ baseUrl, receiverUrl, received } = platform);
    user = await createUser(db);
    await grantCredits(db, user.id, CREDITS);
    v1 = createV1Client({ baseUrl, apiKey: user.apiKey });
    poor = await createUser(db);
  });
  afterAll(async () => {
    await platform?.close();
    await h?.cleanup();
    await db?.close();
  });

  /** What every v1 view has, whatever its family. */
  const expectV1View = (task: V1Task) => {
    expect(V1_CLIENT_STATUSES).toContain(task.status);
    expect(typeof task.task_id).toBe('string');
    expect(typeof task.task_type).toBe('string');
    expect(task.percentage).toMatch(/^(\d|[1-9]\d|100)$/);
    if (task.status === 'finished') expect(task.percentage).toBe('100');
    if (task.status === 'failed') expect(typeof task.message).toBe('string');
  };

  /** A media URL of the answers, read back through the server under test. */
  const readMedia = async (url: unknown) => {
    expect(typeof url).toBe('string');
    const res = await fetch(`${baseUrl}${new URL(url as string).pathname}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\//);
  };

  let imagineId: string;
  let upscaleId: string;
  let seedId: string;

  it('submits /pro/imagine with the raw key and polls /fetch until finished: a grid with its actions', async () => {
    imagineId = await v1.submit('/pro/imagine', { prompt: 'a lighthouse on a cliff at sunset', webhook_url: receiverUrl, webhook_secret: 'v1-secret' });
    const polled: V1Task[] = [];
    const done = await v1.waitForFinished(imagineId, { onPoll: (t) => polled.push(t), intervalMs: 20 });
    for (const view of polled) expectV1View(view);
    const percentages = polled.map((t) => Number(t.percentage));
    expect(percentages).toEqual([...percentages].sort((a, b) => a - b));
    expect(done).toMatchObject({
      task_id: imagineId,
      task_type: 'imagine',
      status: 'finished',
      percentage: '100',
      prompt: 'a lighthouse on a cliff at sunset',
    });
    expect(done.image_urls).toHaveLength(4);
    expect(done.actions).toEqual(['upscale1', 'upscale2', 'upscale3', 'upscale4', 'variation1', 'variation2', 'variation3', 'variation4', 'reroll']);
    await readMedia(done.original_image_url);
    for (const url of done.image_urls as string[]) await readMedia(url);
  });

  it('upscales image 2 and gets the seed, each polled until finished', async () => {
    upscaleId = await v1.submit('/pro/upscale', { parent_task_id: imagineId, index: 2 });
    const upscaled = await v1.waitForFinished(upscaleId);
    expectV1View(upscaled);
    expect(upscaled).toMatchObject({ task_type: 'upscale#2', parent_task_id: imagineId });
    await readMedia(upscaled.image_url);
    expect(upscaled.actions).toEqual(expect.arrayContaining(['upscale_subtle', 'upscale_creative', 'vary_strong', 'zoom_out_2x', 'pan_left']));

    seedId = await v1.submit('/pro/seed', { task_id: imagineId });
    const seed = await v1.waitForFinished(seedId);
    expectV1View(seed);
    expect(seed.seed).toMatch(/^\d+$/);
  });

  it('sees a task fail: status failed, the reason in message, the credits given back', async () => {
    const before = (await v1.account()).credits;
    const failingId = await v1.submit('/pro/upscale', { parent_task_id: imagineId, index: 1, type: '4x' });
    const error = await v1.waitForFinished(failingId).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(V1TaskFailedError);
    const failed = (error as V1TaskFailedError).task;
    expectV1View(failed);
    expect(failed).toMatchObject({ task_id: failingId, task_type: 'upscale-4x', status: 'failed', refund: 2 });
    expect(failed.message).toMatch(/too large/);
    expect(failed).not.toHaveProperty('image_url');
    expect((await v1.account()).credits).toBe(before);
  });

  it('reads several tasks at once with /fetch-many, each as /fetch shows it', async () => {
    const { tasks } = await v1.fetchMany([seedId, imagineId, upscaleId]);
    expect(tasks).toEqual([await v1.fetch(seedId), await v1.fetch(imagineId), await v1.fetch(upscaleId)]);
  });

  it('reads the account: email, credits left, images made, plan', async () => {
    // imagine 4 + upscale 1x 2 + seed 2 credits; the grid's 4 images and the upscale's 1
    expect(await v1.account()).toEqual({ email: user.email, credits: CREDITS - 8, total_images: 5, plan: 'zero' });
  });

  it('received the completion webhook: the /fetch result as the body, signed', async () => {
    await expect.poll(() => received.some((r) => r.headers['x-webhook-event'] === 'task.completed'), { timeout: 15_000, interval: 50 }).toBe(true);
    const completion = received.find((r) => r.headers['x-webhook-event'] === 'task.completed')!;
    expect(verifyWebhookSignature('v1-secret', completion.headers as Record<string, string>, completion.body).ok).toBe(true);
    expect(completion.headers['x-webhook-secret']).toBe('v1-secret');
    // the body is the /fetch view of that moment, less child_task_ids (the upscale and seed made since)
    expect(JSON.parse(completion.body)).toEqual({ ...(await v1.fetch(imagineId)), child_task_ids: undefined });
    for (const r of received) expectV1View(JSON.parse(r.body) as V1Task);
  });

  it.each([
    ['an unknown task', () => v1.fetch('00000000-0000-4000-8000-000000000000'), 404, 'Task not found'],
    ['another key', () => createV1Client({ baseUrl, apiKey: 'f'.repeat(64) }).account(), 401, 'Invalid API key'],
    ['one id to /fetch-many', () => v1.fetchMany([imagineId]), 400, 'task_ids: Must hold 2 to 20 task ids'],
    ['a bad index', () => v1.submit('/pro/upscale', { parent_task_id: imagineId, index: 9 }), 400, 'index: Must be 1, 2, 3 or 4'],
    ['a balance too short', () => createV1Client({ baseUrl, apiKey: poor.apiKey }).submit('/pro/imagine', { prompt: 'a cat' }), 402, 'Not enough credits'],
  ])('reads the message of an error: %s', async (_name, call, status, message) => {
    const error = await call().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(V1ApiError);
    expect(error).toMatchObject({ status, message });
  });
});
