/**
 * The video calls end to end on the local video engine (small frames to stay quick): each v1
 * path's 400s naming the field and holding nothing, the price held with the task (per second
 * for Kling and Runway), the worker reading the pictures and videos users name, a real MP4 on
 * /fetch (video_url, video_urls, the poster in result.videos) served with byte ranges, an
 * extension keeping its parent's frames, the try-on picture, a completion webhook whose body
 * is the /fetch view, and an unreadable input failing with its reason and refunded once.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { closeLocalVideoEncoder, createLocalVideoEngine } from '../src/engines/local-video/index.ts';
import { readMp4, sampleBytes } from '../src/engines/local-video/mp4.ts';
import { priceOf } from '../src/services/pricing/catalog.ts';
import type { TaskView } from '../src/services/tasks/task-view.ts';
import { createImageFetcher } from '../src/storage/image-fetcher.ts';
import { createWebhookService, verifyWebhookSignature, type WebhookService } from '../src/webhooks/index.ts';
import { sendTaskWebhooks } from '../src/webhooks/task-webhooks.ts';
import { captureLogger, createUser, expectErrorBody, post, type TestUser } from './helpers.ts';
import { balanceOf, grantCredits, ledgerOf, openTestDb, type TaskHarness, taskHarness, waitForTask } from './support/tasks.ts';

/** Frames of a 64-pixel short side at 6 per second: a 5-second clip is 30 frames. */
const SHORT_SIDE = 64;
const FPS = 6;

const picture = (width: number, height: number, r: number) =>
  sharp({ create: { width, height, channels: 3, background: { r, g: 90, b: 160 } } })
    .png()
    .toBuffer();

describe.each(testDatabaseKinds())('the video calls on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let user: TestUser;
  let files: http.Server;
  let origin: string;
  let receiver: http.Server;
  let receiverUrl: string;
  let webhooks: WebhookService;
  let uploadedUrl: string;
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const bytes: Record<string, Buffer> = {};

  beforeAll(async () => {
    bytes.portrait = await picture(90, 160, 200);
    bytes.wide = await picture(320, 180, 40);
    files = http.createServer((req, res) => {
      const routes: Record<string, () => void> = {
        '/portrait.png': () => res.writeHead(200, { 'content-type': 'image/png' }).end(bytes.portrait),
        '/page.html': () => res.writeHead(200, { 'content-type': 'video/mp4' }).end('<!doctype html><p>not a video</p>'),
        '/gone.png': () => res.writeHead(404).end('not found'),
      };
      (routes[new URL(req.url ?? '/', 'http://x').pathname] ?? (() => res.writeHead(404).end()))();
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
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
    h = await taskHarness(db, [createLocalVideoEngine({ shortSide: SHORT_SIDE, fps: FPS })]);
    const worker = h.worker({ imageFetcher: createImageFetcher({ media: h.media, embedded: true }) });
    const log = captureLogger();
    webhooks = createWebhookService({ db, log, allowPrivateTargets: true, pollIntervalMs: 50 });
    sendTaskWebhooks({ db, events: worker, webhooks, log });
    webhooks.start();
    await worker.start();
    user = await createUser(db);
    await grantCredits(db, user.id, 1_000);
    const form = new FormData();
    form.set('image', new Blob([new Uint8Array(bytes.wide)], { type: 'image/png' }), 'wide.png');
    const upload = await h.app.request('/upload', { method: 'POST', headers: { authorization: user.apiKey }, body: form });
    expect(upload.status).toBe(200);
    uploadedUrl = ((await upload.json()) as { imageURL: string }).imageURL;
  }, 60_000);
  afterAll(async () => {
    expect(h?.appLog.lines.filter((l) => l.includes('unhandled error')) ?? []).toEqual([]);
    await webhooks?.stop();
    await h?.cleanup();
    await db?.close();
    await closeLocalVideoEncoder();
    for (const server of [files, receiver]) {
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
    }
  });

  const submit = async (path: string, json: Record<string, unknown>) => {
    const res = await post(h.app, path, { key: user.apiKey, json });
    expect(res.status, await res.clone().text()).toBe(200);
    return ((await res.json()) as { task_id: string }).task_id;
  };
  const fetched = async (taskId: string) => {
    const res = await post(h.app, '/fetch', { key: user.apiKey, json: { task_id: taskId } });
    expect(res.status).toBe(200);
    return (await res.json()) as TaskView & {
      result: { videos?: { video_url: string; poster_url?: string; width: number; height: number; duration: number }[] };
    };
  };
  const finished = async (taskId: string) => {
    const task = await waitForTask(db, taskId, { timeoutMs: 60_000 });
    expect(task.status, JSON.stringify(task.result)).toBe('finished');
    return fetched(taskId);
  };
  const mediaOf = async (url: string, headers: Record<string, string> = {}) => h.app.request(new URL(url).pathname, { headers });
  const mp4Of = async (url: string) => Buffer.from(await (await mediaOf(url)).arrayBuffer());
  const countTasks = async () => (await db.query<{ n: number }>('select count(*)::int as n from public.tasks where user_id = $1', [user.id])).rows[0].n;

  describe.each([
    ['/luma-imagine', { prompt: 'x', aspect_ratio: '2:1' }, 'aspect_ratio: Must be one of 1:1, 16:9, 9:16, 4:3, 3:4, 21:9, 9:21'],
    ['/luma-imagine', { prompt: 'x', loop: 'yes' }, 'loop: Must be true or false'],
    ['/luma-imagine', { prompt: 'x', enhance_prompt: 1 }, 'enhance_prompt: Must be true or false'],
    ['/luma-imagine', { prompt: '   ' }, 'prompt: Prompt must not be empty'],
    ['/luma-imagine', { prompt: 'x', image_url: 'ftp://example.com/a.png' }, 'image_url: Must be a valid http:// or https:// URL'],
    [
      '/luma-imagine',
      { prompt: 'x', end_image_url: 'http://localhost:8080/media/upload-00000000-0000-0000-0000-000000000000.png' },
      'end_image_url: No image of this server has this URL (upload it first)',
    ],
    ['/luma-extend', { prompt: 'x' }, 'parent_task_id: Required'],
    ['/luma-extend', { parent_task_id: 'nope', prompt: 'x' }, 'parent_task_id: Must be a task id'],
    ['/kling-imagine', { prompt: 'x', duration: 7 }, 'duration: Must be 5 or 10'],
    ['/kling-imagine', { prompt: 'x', cfg_scale: 1.5 }, 'cfg_scale: Must be a number from 0 to 1'],
    ['/kling-imagine', { prompt: 'x', cfg_scale: -0.1 }, 'cfg_scale: Must be a number from 0 to 1'],
    ['/kling-imagine', { prompt: 'x', cfg_scale: 'lots' }, 'cfg_scale: Must be a number from 0 to 1'],
    ['/kling-imagine', { prompt: 'x', mode: 'max' }, 'mode: Must be std or pro'],
    ['/kling-imagine', { prompt: 'x', mode: 'pro', model: 'kling-v1' }, 'mode: pro needs model kling-v1-5 or kling-v1-6'],
    ['/kling-imagine', { prompt: 'x', model: 'kling-v9' }, 'model: Must be one of kling-v1, kling-v1-5, kling-v1-6'],
    ['/kling-imagine', { prompt: 'x', generation_type: 'video2video' }, 'generation_type: Must be text2video or image2video'],
    ['/kling-imagine', { prompt: 'x', generation_type: 'image2video' }, 'image_url: Required for generation_type image2video'],
    ['/kling-imagine', { prompt: 'x', aspect_ratio: '9:21' }, 'aspect_ratio: Must be one of 16:9, 9:16, 1:1, 4:3, 3:4, 21:9'],
    ['/kling-tryon', { cloth_image_url: 'https://example.com/c.png' }, 'human_image_url: Required'],
    [
      '/kling-tryon',
      { human_image_url: 'https://example.com/h.png', cloth_image_url: 'https://example.com/c.png', model: 'v2' },
      'model: Must be kolors-virtual-try-on-v1 or kolors-virtual-try-on-v1-5',
    ],
    ['/runway-imagine', { prompt: 'x', generation_type: 'video2video' }, 'video_url: Required for generation_type video2video'],
    ['/runway-imagine', { prompt: 'x', duration: '15' }, 'duration: Must be 5 or 10'],
    ['/runway-imagine', { prompt: 'x', model: 'gen4' }, 'model: Must be gen3 or gen3a_turbo'],
    ['/runway-imagine', { prompt: 'x', flip: 'true' }, 'flip: Must be true or false'],
    ['/runway-imagine', { prompt: 'x', video_url: 'not a url' }, 'video_url: Must be a valid http:// or https:// URL'],
    ['/imagine-video', { prompt: 'x' }, 'image_url: Required'],
    ['/imagine-video', { prompt: 'x', image_url: 'https://example.com/a.png', motion: 'medium' }, 'motion: Must be low or high'],
    ['/imagine-video-extend', { parent_task_id: '8d2f1a64-5b3c-4e7d-9f10-2a3b4c5d6e7f', index: 5, prompt: 'x' }, 'index: Must be 1, 2, 3 or 4'],
    ['/imagine-video-extend', { parent_task_id: '8d2f1a64-5b3c-4e7d-9f10-2a3b4c5d6e7f', index: '0', prompt: 'x' }, 'index: Must be 1, 2, 3 or 4'],
  ])('%s with %j', (path, json, msg) => {
    it(`should answer 400 '${msg}', holding nothing`, async () => {
      const before = await balanceOf(db, user.id);
      const tasks = await countTasks();
      const res = await post(h.app, path, { key: user.apiKey, json });
      expect(res.status).toBe(400);
      expect((await expectErrorBody(res)).msg).toBe(msg);
      expect(await balanceOf(db, user.id)).toEqual(before);
      expect(await countTasks()).toBe(tasks);
    });
  });

  it.each(['/luma-imagine', '/luma-extend', '/kling-imagine', '/kling-tryon', '/runway-imagine', '/imagine-video', '/imagine-video-extend'])(
    'should refuse %s without an API key (401)',
    async (path) => {
      const res = await post(h.app, path, { json: { prompt: 'x' } });
      expect(res.status).toBe(401);
    },
  );

  describe('a Luma clip from a prompt, then extended', () => {
    let lumaId: string;
    let view: Awaited<ReturnType<typeof fetched>>;

    beforeAll(async () => {
      lumaId = await submit('/luma-imagine', {
        prompt: 'a lighthouse at dusk',
        aspect_ratio: '16:9',
        webhook_url: receiverUrl,
        webhook_secret: 'video-secret',
      });
      view = await finished(lumaId);
    }, 90_000);

    it('should hold its price in the task’s transaction and keep it as the charge', async () => {
      expect(view.cost).toBe(priceOf('luma'));
      expect(await ledgerOf(db, lumaId)).toEqual([{ delta: -priceOf('luma')!, source_key: `hold:${lumaId}` }]);
    });

    it('should show video_url and video_urls on /fetch, with the poster and the clip’s size in result.videos', () => {
      expect(view).toMatchObject({ task_type: 'luma', status: 'finished', percentage: '100', prompt: 'a lighthouse at dusk', actions: ['extend'] });
      expect(view.video_url).toMatch(new RegExp(`/media/${lumaId}-video-1\\.mp4$`));
      expect(view.video_urls).toEqual([view.video_url]);
      expect(view).not.toHaveProperty('image_url');
      expect(view.result).toMatchObject({ engine: 'local-video', simulated: true, method: 'procedural-camera-move', width: 114, height: 64 });
      expect(view.result.videos?.[0]).toMatchObject({ video_url: view.video_url, width: 114, height: 64, duration: 5 });
      expect(view.result.videos?.[0].poster_url).toMatch(/-video-1-poster\.jpg$/);
    });

    it('should serve a real MP4: H.264, moov first, 5 seconds of 16:9 frames at the engine’s rate', async () => {
      const res = await mediaOf(view.video_url!);
      expect(res.headers.get('content-type')).toBe('video/mp4');
      const file = Buffer.from(await res.arrayBuffer());
      const mp4 = readMp4(file);
      expect(mp4).toMatchObject({ codec: 'avc1', width: 114, height: 64, durationSec: 5, topLevel: ['ftyp', 'moov', 'mdat'] });
      expect(mp4.samples).toHaveLength(5 * FPS);
      // a keyframe each second, so players can seek
      expect(mp4.samples.flatMap((s, i) => (s.sync ? [i] : []))).toEqual([0, 6, 12, 18, 24]);
      const poster = await mediaOf(view.result.videos![0].poster_url!);
      expect(await sharp(Buffer.from(await poster.arrayBuffer())).metadata()).toMatchObject({ format: 'jpeg', width: 114, height: 64 });
    });

    it('should answer byte ranges of the video with 206 and Content-Range', async () => {
      const whole = await mp4Of(view.video_url!);
      const res = await mediaOf(view.video_url!, { range: 'bytes=0-99' });
      expect(res.status).toBe(206);
      expect(res.headers.get('content-range')).toBe(`bytes 0-99/${whole.length}`);
      expect(res.headers.get('accept-ranges')).toBe('bytes');
      expect(Buffer.from(await res.arrayBuffer()).equals(whole.subarray(0, 100))).toBe(true);
      // the tail a browser asks for, and the whole file announcing that ranges work
      const tail = await mediaOf(view.video_url!, { range: 'bytes=-10' });
      expect(tail.status).toBe(206);
      expect(tail.headers.get('content-range')).toBe(`bytes ${whole.length - 10}-${whole.length - 1}/${whole.length}`);
      expect(tail.headers.get('content-length')).toBe('10');
      const all = await mediaOf(view.video_url!);
      expect(all.status).toBe(200);
      expect(all.headers.get('accept-ranges')).toBe('bytes');
      expect(all.headers.get('content-length')).toBe(String(whole.length));
      // past the end: 416 with the size, in the error contract
      const past = await mediaOf(view.video_url!, { range: `bytes=${whole.length}-` });
      expect(past.status).toBe(416);
      expect(past.headers.get('content-range')).toBe(`bytes */${whole.length}`);
      expect(await expectErrorBody(past)).toEqual({ msg: `Range not satisfiable: the file has ${whole.length} bytes`, code: 'range_not_satisfiable' });
    });

    it('should send a signed completion webhook whose body is the /fetch view', async () => {
      const deadline = Date.now() + 15_000;
      let hit: (typeof received)[number] | undefined;
      while (!hit && Date.now() < deadline) {
        hit = received.find((r) => r.headers['x-webhook-event'] === 'task.completed' && (JSON.parse(r.body) as { task_id: string }).task_id === lumaId);
        if (!hit) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(hit, 'completion webhook').toBeDefined();
      expect(verifyWebhookSignature('video-secret', hit!.headers as Record<string, string>, hit!.body).ok).toBe(true);
      expect(JSON.parse(hit!.body)).toEqual({ ...(await fetched(lumaId)), child_task_ids: undefined }); // /fetch's lineage is not in webhook bodies
    });

    it('should extend it: luma-ext, the parent’s frames unchanged followed by 5 new seconds', async () => {
      const extId = await submit('/luma-extend', { parent_task_id: lumaId, prompt: 'night falls', end_image_url: uploadedUrl });
      const ext = await finished(extId);
      expect(ext).toMatchObject({ task_type: 'luma-ext', parent_task_id: lumaId, cost: priceOf('luma-ext') });
      const [parentFile, file] = await Promise.all([mp4Of(view.video_url!), mp4Of(ext.video_url!)]);
      const [parent, extended] = [readMp4(parentFile), readMp4(file)];
      expect(extended).toMatchObject({ width: 114, height: 64, durationSec: 10 });
      expect(extended.samples).toHaveLength(10 * FPS);
      const [before, after] = [sampleBytes(parentFile, parent), sampleBytes(file, extended)];
      for (const [i, sample] of before.entries()) expect(Buffer.from(after[i]).equals(Buffer.from(sample)), `sample ${i}`).toBe(true);
      // the extension's poster is its parent's (the first frame a viewer sees)
      expect(ext.result.videos?.[0].duration).toBe(10);
      expect(ext.result.note).toMatch(/parent video, unchanged/);
    });

    it('should refuse to extend a task of another family (400) or of another user (404)', async () => {
      const klingId = await submit('/kling-imagine', { prompt: 'a fox' });
      await finished(klingId);
      const res = await post(h.app, '/luma-extend', { key: user.apiKey, json: { parent_task_id: klingId, prompt: 'more' } });
      expect(res.status).toBe(400);
      expect((await expectErrorBody(res)).msg).toBe('parent_task_id: Must be a luma or luma-ext task (this one is kling-video)');
      const stranger = await createUser(db);
      await grantCredits(db, stranger.id, 100);
      const theirs = await post(h.app, '/luma-extend', { key: stranger.apiKey, json: { parent_task_id: lumaId, prompt: 'more' } });
      expect(theirs.status).toBe(404);
    });
  });

  it.each([
    ['/kling-imagine', { prompt: 'a fox', duration: 10, mode: 'pro', model: 'kling-v1-6' }, 'kling-video', 30, { width: 170, height: 96, duration: 10 }],
    ['/kling-imagine', { prompt: 'a fox', duration: '5', image_url: `${'ORIGIN'}/portrait.png` }, 'kling-video', 15, { width: 64, height: 114, duration: 5 }],
    ['/runway-imagine', { prompt: 'a boat', duration: 5, flip: true }, 'runway', 15, { width: 64, height: 114, duration: 5 }],
    ['/runway-imagine', { prompt: 'a boat', duration: 10, aspect_ratio: '1:1' }, 'runway', 30, { width: 64, height: 64, duration: 10 }],
  ])('%s %j should hold %s’s per-second price and make a clip of that shape and length', async (path, json, type, price, shape) => {
    const body = JSON.parse(JSON.stringify(json).replace('ORIGIN', origin));
    const before = (await balanceOf(db, user.id)).credits;
    const id = await submit(path, body);
    const view = await finished(id);
    expect(view).toMatchObject({ task_type: type, cost: price });
    expect((await balanceOf(db, user.id)).credits).toBe(before - price);
    expect(view.result.videos?.[0]).toMatchObject(shape);
    const mp4 = readMp4(await mp4Of(view.video_url!));
    expect({ width: mp4.width, height: mp4.height, duration: mp4.durationSec }).toEqual(shape);
  });

  it('should hand the engine the start and end frames a Luma clip names (ours from the store, another site’s over HTTP)', async () => {
    const id = await submit('/luma-imagine', {
      prompt: 'dawn',
      image_url: `${origin}/portrait.png`,
      end_image_url: uploadedUrl,
      aspect_ratio: '9:16',
      loop: true,
    });
    const view = await finished(id);
    expect(view.input_data).toEqual({ image_url: `${origin}/portrait.png`, end_image_url: uploadedUrl, aspect_ratio: '9:16', loop: true });
    expect(view.result).toMatchObject({ method: 'image-camera-move', width: 64, height: 114 });
    expect(view.result.note).toMatch(/over the start image, dissolving into the end image/);
  });

  it('should make four Midjourney clips from a picture, then extend the second four ways', async () => {
    const id = await submit('/imagine-video', { prompt: 'waves', image_url: uploadedUrl, motion: 'high' });
    const view = await finished(id);
    expect(view).toMatchObject({ task_type: 'imagine-video', cost: priceOf('imagine-video'), actions: ['extend1', 'extend2', 'extend3', 'extend4'] });
    expect(view.video_urls).toHaveLength(4);
    expect(view.result).toMatchObject({ method: 'image-camera-move', width: 114, height: 64 });
    const extId = await submit('/imagine-video-extend', { parent_task_id: id, index: '2', prompt: 'the sky clears' });
    const ext = await finished(extId);
    expect(ext.video_urls).toHaveLength(4);
    const parentFile = await mp4Of(view.video_urls![1]);
    const parentSamples = sampleBytes(parentFile, readMp4(parentFile));
    for (const url of ext.video_urls!) {
      const file = await mp4Of(url);
      const mp4 = readMp4(file);
      expect(mp4.durationSec).toBe(9);
      expect(Buffer.from(sampleBytes(file, mp4)[parentSamples.length - 1]).equals(Buffer.from(parentSamples.at(-1)!))).toBe(true);
    }
  });

  it('should answer a try-on as a labelled picture (image_url)', async () => {
    const id = await submit('/kling-tryon', { human_image_url: `${origin}/portrait.png`, cloth_image_url: uploadedUrl });
    const view = await finished(id);
    expect(view).toMatchObject({ task_type: 'kling-tryon', cost: priceOf('kling-tryon') });
    expect(view.image_url).toMatch(/-image\.png$/);
    expect(view).not.toHaveProperty('video_url');
    expect(view.result).toMatchObject({ method: 'garment-inset', simulated: true });
    const png = Buffer.from(await (await mediaOf(view.image_url!)).arrayBuffer());
    expect(await sharp(png).metadata()).toMatchObject({ width: 90, height: 160 });
  });

  it('should restyle one of our videos with runway video2video, keeping its frame shape', async () => {
    const lumaId = await submit('/luma-imagine', { prompt: 'a tower', aspect_ratio: '9:16' });
    const luma = await finished(lumaId);
    const id = await submit('/runway-imagine', { prompt: 'as a watercolour', generation_type: 'video2video', video_url: luma.video_url });
    const view = await finished(id);
    expect(view.result.videos?.[0]).toMatchObject({ width: 64, height: 114, duration: 5 });
    expect(view.result.note).toMatch(/input video's frames are not used/);
  });

  it.each([
    ['/imagine-video', { prompt: 'x', image_url: 'ORIGIN/gone.png' }, 'The start image could not be read: the server answered HTTP 404'],
    ['/runway-imagine', { prompt: 'x', video_url: 'ORIGIN/page.html' }, 'The input video could not be read: it is not an MP4 or WebM video'],
    ['/runway-imagine', { prompt: 'x', video_url: 'ORIGIN/portrait.png' }, 'The input video could not be read: it is not an MP4 or WebM video'],
    [
      '/kling-tryon',
      { human_image_url: 'ORIGIN/portrait.png', cloth_image_url: 'ORIGIN/gone.png' },
      'The cloth image could not be read: the server answered HTTP 404',
    ],
  ])('%s %j should fail with the reason and refund once', async (path, json, message) => {
    const before = (await balanceOf(db, user.id)).credits;
    const id = await submit(path, JSON.parse(JSON.stringify(json).replaceAll('ORIGIN', origin)));
    const task = await waitForTask(db, id, { timeoutMs: 30_000 });
    expect(task.status).toBe('failed');
    const view = await fetched(id);
    expect(view).toMatchObject({ status: 'failed', message });
    expect(view.refund).toBe(view.cost);
    expect((await balanceOf(db, user.id)).credits).toBe(before);
    expect(await ledgerOf(db, id)).toEqual([
      { delta: -view.cost, source_key: `hold:${id}` },
      { delta: view.cost, source_key: `refund:${id}` },
    ]);
  });
});
