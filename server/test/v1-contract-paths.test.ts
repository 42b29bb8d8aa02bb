/**
 * Every APIFRAME v1 path as a v1 client uses it, over a real socket, on the local engines (the
 * naive client of test/support/v1-client.ts: the key alone in Authorization, the exact v1
 * request shapes, POST /fetch polled until `finished`). Per family: the result fields a v1
 * client reads and the follow-ups (`actions`) it offers, each media URL read back through the
 * server with its content type, follow-ups chained from real parents, one completion webhook
 * whose body is the /fetch view, one out-of-range parameter (400, the top-level `message`
 * naming the field) and one broken parent rule (4xx with a clear message). Then /fetch-many
 * across families and /account. test/v1-contract.test.ts covers the pro basics on both
 * databases; this file runs on PGlite only, with the engines' smallest outputs, to stay quick.
 */
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { createLocalEngine } from '../src/engines/local/index.ts';
import { createLocalAudioEngine } from '../src/engines/local-audio/index.ts';
import { encodeWav } from '../src/engines/local-audio/wav.ts';
import { closeLocalFaceEngine, createLocalFaceEngine } from '../src/engines/local-face/index.ts';
import { closeLocalVideoEncoder, createLocalVideoEngine } from '../src/engines/local-video/index.ts';
import { createImageFetcher } from '../src/storage/image-fetcher.ts';
import { verifyWebhookSignature } from '../src/webhooks/index.ts';
import { createUser, type TestUser } from './helpers.ts';
import { facePhotos } from './support/face-photos.ts';
import { grantCredits, openTestDb, TEST_CELL_SIZE, taskHarness, type TaskHarness } from './support/tasks.ts';
import { startV1Platform, type V1Platform } from './support/v1-platform.ts';
import { createV1Client, V1_CLIENT_STATUSES, V1ApiError, type V1Client, type V1Task } from './support/v1-client.ts';

const CREDITS = 5_000;
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
/** What an upscale-subtle/-creative offers: the same, without upscaling again. */
const UPSCALED_ALT_ACTIONS = UPSCALED_ACTIONS.filter((a) => !a.startsWith('upscale_'));
const EXTEND_ACTIONS = ['extend1', 'extend2', 'extend3', 'extend4'];

const FACES = new URL('./fixtures/faces/', import.meta.url);
const png = (data: Buffer | Uint8Array) => new Blob([new Uint8Array(data)], { type: 'image/png' });
const picture = (width: number, height: number, r: number, g: number, b: number) =>
  sharp({ create: { width, height, channels: 3, background: { r, g, b } } })
    .png()
    .toBuffer();

describe('every APIFRAME v1 path as a v1 client uses it (PGlite, local engines)', () => {
  let db: Db;
  let h: TaskHarness;
  let baseUrl: string;
  let receiverUrl: string;
  let received: V1Platform['received'];
  let platform: V1Platform;
  let user: TestUser;
  let v1: V1Client;
  /** Every task submitted, for /fetch-many and /account. */
  const submitted: string[] = [];
  /** One finished task of each family, by family. */
  const byFamily: Record<string, V1Task> = {};
  /** Uploaded media (POST /upload, /upload-audio). */
  const url: Record<string, string> = {};

  beforeAll(async () => {
    db = await openTestDb('pglite');
    h = await taskHarness(db, [
      createLocalEngine({ cellSize: TEST_CELL_SIZE }),
      createLocalFaceEngine({ detectionSize: 512, aiPhotos: { referenceSize: 128, maxReferences: 4 } }),
      // 64-pixel short side at 6 frames a second: a 5-second clip is 30 small frames
      createLocalVideoEngine({ shortSide: 64, fps: 6 }),
      createLocalAudioEngine({ sunoSeconds: [2, 2.5], extendSeconds: [1, 1.5], udioSeconds: { 'udio32-v1.5': 2 } }),
    ]);
    // embedded rules (the tests' API config): our own media are read from the store
    platform = await startV1Platform({ db, h, worker: h.worker({ pollMs: 50, imageFetcher: createImageFetcher({ media: h.media, embedded: true }) }) });
    ({ baseUrl, receiverUrl, received } = platform);
    user = await createUser(db);
    await grantCredits(db, user.id, CREDITS);
    v1 = createV1Client({ baseUrl, apiKey: user.apiKey });
    aiPhotoChain = runAiPhotoChain();
    // read (and its failure reported) by the AI photo tests
    aiPhotoChain.catch(() => {});
  });
  afterAll(async () => {
    expect(h?.appLog.lines.filter((l) => l.includes('unhandled error')) ?? []).toEqual([]);
    await platform?.close();
    await h?.cleanup();
    await db?.close();
    await closeLocalVideoEncoder();
    await closeLocalFaceEngine();
  });

  /** What every v1 view has, whatever its family. */
  const expectV1View = (task: V1Task) => {
    expect(V1_CLIENT_STATUSES).toContain(task.status);
    expect(typeof task.task_id).toBe('string');
    expect(typeof task.task_type).toBe('string');
    expect(task.percentage).toMatch(/^(\d|[1-9]\d|100)$/);
    if (task.status === 'finished') expect(task.percentage).toBe('100');
  };

  /** Submits with the v1 body, polls /fetch until finished; the finished view. */
  const finished = async (path: string, body: Record<string, unknown>): Promise<V1Task> => {
    const id = await v1.submit(path, body);
    submitted.push(id);
    const polled: V1Task[] = [];
    const view = await v1.waitForFinished(id, { intervalMs: 150, timeoutMs: 60_000, onPoll: (t) => polled.push(t) });
    for (const t of polled) expectV1View(t);
    expect(view.task_id).toBe(id);
    return view;
  };
  /** Several submits at once (the worker runs them side by side), each polled until finished. */
  const allFinished = (calls: [path: string, body: Record<string, unknown>][]) => Promise.all(calls.map(([path, body]) => finished(path, body)));

  /** A media URL of an answer, read back through the server under test with its content type. */
  const readMedia = async (mediaUrl: unknown, type: 'image' | 'video' | 'audio') => {
    expect(typeof mediaUrl, `a ${type} URL`).toBe('string');
    const res = await fetch(`${baseUrl}${new URL(mediaUrl as string).pathname}`);
    expect(res.status, mediaUrl as string).toBe(200);
    expect(res.headers.get('content-type'), mediaUrl as string).toMatch(new RegExp(`^${type}/`));
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
  };
  const readAll = async (urls: unknown, type: 'image' | 'video' | 'audio', count?: number) => {
    expect(Array.isArray(urls)).toBe(true);
    if (count !== undefined) expect(urls).toHaveLength(count);
    for (const u of urls as unknown[]) await readMedia(u, type);
  };

  /** A Midjourney grid: the composite, its four cells, U1–U4, V1–V4 and reroll (when it has a prompt). */
  const expectGrid = async (view: V1Task, taskType: string, parent?: string) => {
    const actions = view.prompt ? GRID_ACTIONS : GRID_ACTIONS.filter((a) => a !== 'reroll');
    expect(view).toMatchObject({ task_type: taskType, status: 'finished', percentage: '100', actions });
    if (parent) expect(view.parent_task_id).toBe(parent);
    await readMedia(view.original_image_url, 'image');
    await readAll(view.image_urls, 'image', 4);
  };

  /** The signed completion webhook of a task: its body is the /fetch view now. */
  const expectWebhook = async (taskId: string, secret: string) => {
    const completion = () =>
      received.find((r) => r.headers['x-webhook-event'] === 'task.completed' && (JSON.parse(r.body) as { task_id?: string }).task_id === taskId);
    await expect.poll(() => completion() !== undefined, { timeout: 15_000, interval: 50 }).toBe(true);
    const hit = completion()!;
    expect(verifyWebhookSignature(secret, hit.headers as Record<string, string>, hit.body).ok).toBe(true);
    // the /fetch view less child_task_ids (/fetch's lineage; webhook bodies leave it out)
    expect(JSON.parse(hit.body)).toEqual({ ...(await v1.fetch(taskId)), child_task_ids: undefined });
  };

  /** A refused call: its status, and `message` as a v1 client shows it. */
  const refused = async (call: () => Promise<unknown>, status: number, message: string | RegExp) => {
    const error = await call().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(V1ApiError);
    expect((error as V1ApiError).status).toBe(status);
    if (typeof message === 'string') expect((error as V1ApiError).message).toBe(message);
    else expect((error as V1ApiError).message).toMatch(message);
  };
  /** A parameter out of its range: 400, the message naming the field first. */
  const outOfRange = (path: string, body: Record<string, unknown>, field: string, problem: string | RegExp) =>
    refused(() => v1.submit(path, body), 400, typeof problem === 'string' ? `${field}: ${problem}` : new RegExp(`^${field}: ${problem.source}`));

  const hook = (family: string) => ({ webhook_url: receiverUrl, webhook_secret: `${family}-secret` });

  /**
   * The AI photo chain, started with the suite (beforeAll): it runs on the face engine's own
   * thread, alongside the other families, and its tests read what it answered.
   */
  let aiPhotoChain: Promise<{ upload: V1Task; train: V1Task; generated: V1Task }>;
  const runAiPhotoChain = async () => {
    const photos = await facePhotos(10, { longSide: 320 });
    const upload = await finished('/ai-photo-upload', { images: photos.map((p) => p.toString('base64')), ethnicity: 'white', gender: 'female', age: 70 });
    const train = await finished('/ai-photo-train', { training_images_id: upload.task_id });
    const generated = await finished('/ai-photo-generate', {
      training_id: train.task_id,
      prompt: 'TOKMSN, a portrait in a garden',
      width: 256,
      height: 256,
      number_of_images: 1,
      seed: 7,
      ...hook('ai-photo'),
    });
    return { upload, train, generated };
  };

  describe('media: /upload and /upload-audio', () => {
    it('stores an image (multipart image) and an audio file (multipart audio) and answers their URLs', async () => {
      const uploads = {
        red: png(await picture(96, 64, 220, 30, 40)),
        blue: png(await picture(64, 96, 30, 60, 220)),
        cloth: png(await picture(48, 48, 20, 160, 60)),
        hopper: new Blob([readFileSync(new URL('grace-hopper.jpg', FACES))], { type: 'image/jpeg' }),
        collins: new Blob([readFileSync(new URL('eileen-collins.jpg', FACES))], { type: 'image/jpeg' }),
      };
      for (const [name, blob] of Object.entries(uploads)) {
        url[name] = await v1.upload(blob, `${name}.${blob.type.split('/')[1]}`);
        expect(url[name]).toMatch(/^http:\/\/localhost:8080\/media\/upload-[0-9a-f-]{36}\.(png|jpg)$/);
        await readMedia(url[name], 'image');
      }
      const tone = Float32Array.from({ length: 44_100 * 2 }, (_, i) => 0.3 * Math.sin((2 * Math.PI * 440 * i) / 44_100));
      url.audio = await v1.uploadAudio(
        new Blob([new Uint8Array(encodeWav({ sampleRate: 44_100, channels: [tone, tone] }))], { type: 'audio/wav' }),
        'demo.wav',
      );
      expect(url.audio).toMatch(/^http:\/\/localhost:8080\/media\/upload-[0-9a-f-]{36}\.wav$/);
      await readMedia(url.audio, 'audio');
    });

    it('names the missing multipart field (400)', async () => {
      await refused(() => v1.request('POST', '/upload', new FormData()), 400, 'image: Required');
      await refused(() => v1.request('POST', '/upload-audio', new FormData()), 400, 'audio: Required');
    });
  });

  describe('Midjourney (original)', () => {
    let grid: V1Task;
    let upscaled: V1Task;

    it('/imagine → /upscale-1x, the grid and the upscaled image with their actions, and the webhook', async () => {
      grid = await finished('/imagine', { prompt: 'a lighthouse on a cliff at sunset', aspect_ratio: '16:9', ...hook('midjourney') });
      await expectGrid(grid, 'imagine');
      expect(grid.prompt).toBe('a lighthouse on a cliff at sunset');
      byFamily.midjourney = grid;
      await expectWebhook(grid.task_id, 'midjourney-secret');

      upscaled = await finished('/upscale-1x', { parent_task_id: grid.task_id, index: '2' });
      expect(upscaled).toMatchObject({ task_type: 'upscale#2', parent_task_id: grid.task_id, actions: UPSCALED_ACTIONS });
      await readMedia(upscaled.image_url, 'image');
    });

    it('every follow-up from the real parents: /upscale-alt, /upscale-highres, /pan, /outpaint, /inpaint, /variations, /reroll, /seed', async () => {
      const mask = (
        await sharp({ create: { width: 16, height: 16, channels: 3, background: '#000' } })
          .composite([{ input: { create: { width: 8, height: 16, channels: 3, background: '#fff' } }, left: 0, top: 0 }])
          .png()
          .toBuffer()
      ).toString('base64');
      const up = upscaled.task_id;
      const [alt, highres, highresOfUrl, highresOfCell, pan, zoom, customZoom, inpaint, variation, vary, reroll, seed] = await allFinished([
        ['/upscale-alt', { parent_task_id: up, type: 'subtle' }],
        ['/upscale-highres', { parent_task_id: up, type: '2x' }],
        ['/upscale-highres', { image_url: url.red, type: '2x' }],
        ['/upscale-highres', { parent_task_id: grid.task_id, type: '2x', index: 3 }],
        ['/pan', { parent_task_id: up, direction: 'left' }],
        ['/outpaint', { parent_task_id: up, zoom_ratio: 1.5 }],
        ['/outpaint', { parent_task_id: up, zoom_ratio: 1, aspect_ratio: '1:1', prompt: 'more sea around the lighthouse' }],
        ['/inpaint', { parent_task_id: up, mask: `data:image/png;base64,${mask}`, prompt: 'a red hot-air balloon' }],
        ['/variations', { parent_task_id: grid.task_id, index: 1 }],
        ['/variations', { parent_task_id: up, index: 'strong' }],
        ['/reroll', { parent_task_id: grid.task_id, prompt: 'a lighthouse in fog' }],
        ['/seed', { task_id: grid.task_id }],
      ]);
      expect(alt).toMatchObject({ task_type: 'upscale-subtle', parent_task_id: up, actions: UPSCALED_ALT_ACTIONS });
      await readMedia(alt.image_url, 'image');
      for (const [enlarged, parent] of [
        [highres, up],
        [highresOfUrl, null],
        [highresOfCell, grid.task_id],
      ] as const) {
        expect(enlarged).toMatchObject({ task_type: 'upscale-2x', parent_task_id: parent });
        // an enlargement is an end result
        expect(enlarged).not.toHaveProperty('actions');
        await readMedia(enlarged.image_url, 'image');
      }
      await expectGrid(pan, 'pan-left', up);
      await expectGrid(zoom, 'outpaint-1.5x', up);
      await expectGrid(customZoom, 'outpaint-custom', up);
      await expectGrid(inpaint, 'inpaint', up);
      expect(inpaint.prompt).toBe('a red hot-air balloon');
      await expectGrid(variation, 'variation-1', grid.task_id);
      await expectGrid(vary, 'variation-strong', up);
      await expectGrid(reroll, 'reroll', grid.task_id);
      expect(reroll.prompt).toBe('a lighthouse in fog');
      expect(seed).toMatchObject({ task_type: 'seed', parent_task_id: grid.task_id, seed: expect.stringMatching(/^\d+$/) });
    }, 60_000);

    it('/describe, /blend, /shorten and /faceswap from uploaded pictures', async () => {
      const [described, blend, shorten, faceswap] = await allFinished([
        ['/describe', { image_url: url.red }],
        ['/blend', { image_urls: [url.red, url.blue], dimension: 'landscape' }],
        ['/shorten', { prompt: 'a very beautiful, stunning, highly detailed photograph of a lighthouse on a cliff, 8k, trending' }],
        ['/faceswap', { target_image_url: url.hopper, swap_image_url: url.collins }],
      ]);
      expect(described).toMatchObject({ task_type: 'describe', image_url: url.red });
      expect(described.content).toHaveLength(4);
      for (const [i, prompt] of (described.content as string[]).entries()) expect(prompt).toMatch(new RegExp(`^${i + 1}\uFE0F\u20E3 \\S`));
      // a blend has no prompt to reroll
      expect(blend).not.toHaveProperty('prompt');
      await expectGrid(blend, 'blend');
      expect(shorten.task_type).toBe('shorten');
      expect((shorten.content as string[]).length).toBeGreaterThan(0);
      for (const prompt of shorten.content as string[]) expect(prompt.length).toBeLessThan(100);
      expect(faceswap).toMatchObject({ task_type: 'faceswap' });
      await readMedia(faceswap.image_url, 'image');
    }, 60_000);

    it('400 naming the field out of range; 409 naming the parent rule it breaks', async () => {
      await outOfRange('/upscale-1x', { parent_task_id: grid.task_id, index: 5 }, 'index', 'Must be 1, 2, 3 or 4');
      await outOfRange('/outpaint', { parent_task_id: upscaled.task_id, zoom_ratio: 3 }, 'zoom_ratio', /Must be a number from 1 to 2/);
      await outOfRange('/blend', { image_urls: [url.red] }, 'image_urls', 'Must hold 2 to 5 image URLs');
      await refused(
        () => v1.submit('/pan', { parent_task_id: grid.task_id, direction: 'up' }),
        409,
        'Pan works on an upscaled image: upscale one image of this grid first (POST /upscale-1x), or name it with index',
      );
      await refused(
        () => v1.submit('/reroll', { parent_task_id: upscaled.task_id }),
        409,
        /^Reroll works on a Midjourney grid of four .*this task is upscale#2$/,
      );
    });
  });

  describe('Midjourney (pro)', () => {
    let grid: V1Task;
    let upscale: V1Task;

    it('/pro/imagine in turbo mode, then every pro action on one image of its grid', async () => {
      grid = await finished('/pro/imagine', { prompt: 'a koi pond in the rain', mode: 'turbo' });
      await expectGrid(grid, 'imagine');
      expect(grid.mode).toBe('turbo');
      const id = grid.task_id;
      const [upscaled, vary, variation, zoom, pan, reroll, seed] = await allFinished([
        ['/pro/upscale', { parent_task_id: id, index: 1, type: 'creative', ...hook('pro') }],
        ['/pro/vary', { parent_task_id: id, index: 2, type: 'strong' }],
        ['/pro/variations', { parent_task_id: id, index: 3 }],
        ['/pro/zoom', { parent_task_id: id, index: 4, type: '2' }],
        ['/pro/pan', { parent_task_id: id, index: 1, type: 'up' }],
        ['/pro/reroll', { parent_task_id: id }],
        ['/pro/seed', { task_id: id }],
      ]);
      upscale = upscaled;
      expect(upscaled).toMatchObject({ task_type: 'upscale-creative', parent_task_id: id, actions: UPSCALED_ALT_ACTIONS });
      await readMedia(upscaled.image_url, 'image');
      await expectGrid(vary, 'variation-strong', id);
      await expectGrid(variation, 'variation-3', id);
      await expectGrid(zoom, 'outpaint-2x', id);
      await expectGrid(pan, 'pan-up', id);
      await expectGrid(reroll, 'reroll', id);
      expect(reroll.prompt).toBe('a koi pond in the rain');
      expect(seed).toMatchObject({ task_type: 'seed', parent_task_id: id, seed: expect.stringMatching(/^\d+$/) });
      byFamily.pro = upscaled;
      await expectWebhook(upscaled.task_id, 'pro-secret');
    }, 60_000);

    it('400 naming the field out of range; 409 naming the parent rule it breaks', async () => {
      await outOfRange('/pro/zoom', { parent_task_id: grid.task_id, index: 1, type: '3' }, 'type', 'Must be "1.5", "2" or "1"');
      await outOfRange('/pro/upscale', { parent_task_id: grid.task_id, index: 0 }, 'index', 'Must be 1, 2, 3 or 4');
      await refused(
        () => v1.submit('/pro/variations', { parent_task_id: upscale.task_id, index: 1 }),
        409,
        /^Variations \(V1–V4\) works on a Midjourney grid of four .*this task is upscale-creative$/,
      );
    });
  });

  describe('Flux', () => {
    let flux: V1Task;

    it('/flux-imagine with every v1 parameter, and with the ultra model’s aspect ratio', async () => {
      const [sized, ultra] = await allFinished([
        [
          '/flux-imagine',
          {
            model: 'flux-pro-1.1',
            prompt: 'a red fox in the snow, watercolor',
            width: 320,
            height: 256,
            steps: 20,
            guidance: 3,
            seed: 42,
            safety_tolerance: 2,
            prompt_upsampling: false,
            ...hook('flux'),
          },
        ],
        [
          '/flux-imagine',
          {
            model: 'flux-pro-1.1-ultra',
            prompt: 'a red fox in the snow, photo',
            aspect_ratio: '16:9',
            raw: true,
            image_prompt: url.red,
            image_prompt_strength: 0.2,
          },
        ],
      ]);
      for (const view of [sized, ultra]) {
        expect(view).toMatchObject({ task_type: 'flux-imagine', status: 'finished' });
        expect(view).not.toHaveProperty('image_urls');
        await readMedia(view.image_url, 'image');
      }
      expect(sized.prompt).toBe('a red fox in the snow, watercolor');
      flux = sized;
      byFamily.flux = sized;
      await expectWebhook(sized.task_id, 'flux-secret');
    }, 60_000);

    it('400 naming the field out of range; 409 for a Midjourney action on a Flux picture', async () => {
      await outOfRange('/flux-imagine', { prompt: 'x', width: 100, height: 256 }, 'width', 'Must be a whole number from 256 to 1440');
      await outOfRange('/flux-imagine', { prompt: 'x', safety_tolerance: 7 }, 'safety_tolerance', 'Must be a whole number from 0 to 6');
      await outOfRange('/flux-imagine', { prompt: 'x', model: 'flux-9' }, 'model', /Must be one of flux-schnell/);
      await refused(
        () => v1.submit('/upscale-1x', { parent_task_id: flux.task_id, index: 1 }),
        409,
        /^Upscale \(U1–U4\) works on a Midjourney grid .*this task is flux-imagine$/,
      );
    });
  });

  describe('Ideogram', () => {
    let ideogram: V1Task;

    it('/ideogram-imagine → /ideogram-upscale, /ideogram-remix, and describe through /describe (and /ideogram-describe)', async () => {
      ideogram = await finished('/ideogram-imagine', {
        prompt: 'a poster that says OPEN LATE, neon',
        style_type: 'DESIGN',
        negative_prompt: 'blurry',
        seed: 7,
        magic_prompt_option: 'OFF',
        aspect_ratio: 'ASPECT_16_9',
        ...hook('ideogram'),
      });
      expect(ideogram).toMatchObject({ task_type: 'ideogram-imagine', prompt: 'a poster that says OPEN LATE, neon' });
      await readAll(ideogram.image_urls, 'image');
      expect((ideogram.image_urls as string[]).length).toBeGreaterThan(0);
      byFamily.ideogram = ideogram;
      await expectWebhook(ideogram.task_id, 'ideogram-secret');

      const picture = (ideogram.image_urls as string[])[0];
      const [sized, upscaled, remix, described, ideogramDescribed] = await allFinished([
        ['/ideogram-imagine', { prompt: 'a square poster', resolution: 'RESOLUTION_256_256', style_type: 'GENERAL' }],
        ['/ideogram-upscale', { image_url: picture, prompt: 'sharper neon', resemblance: 70, detail: 40, seed: 3 }],
        ['/ideogram-remix', { image_url: url.red, prompt: 'the same in winter', image_weight: 60, style_type: 'REALISTIC', aspect_ratio: '1:1' }],
        ['/describe', { image_url: picture }],
        ['/ideogram-describe', { image_url: picture }],
      ]);
      for (const [view, type] of [
        [sized, 'ideogram-imagine'],
        [upscaled, 'ideogram-upscale'],
        [remix, 'ideogram-remix'],
      ] as const) {
        expect(view.task_type).toBe(type);
        await readAll(view.image_urls, 'image');
        expect((view.image_urls as string[]).length).toBeGreaterThan(0);
      }
      expect(described).toMatchObject({ task_type: 'describe', image_url: picture });
      expect(described.content).toHaveLength(4);
      expect(ideogramDescribed).toMatchObject({ task_type: 'ideogram-describe', description: expect.stringMatching(/\S/) });
    }, 60_000);

    it('400 naming the field out of range; 409 for a Midjourney action on an Ideogram picture', async () => {
      await outOfRange('/ideogram-upscale', { image_url: url.red, resemblance: 101 }, 'resemblance', 'Must be a whole number from 1 to 100');
      await outOfRange('/ideogram-remix', { image_url: url.red, prompt: 'x', image_weight: 0 }, 'image_weight', 'Must be a whole number from 1 to 100');
      await outOfRange('/ideogram-imagine', { prompt: 'x', style_type: 'PASTEL' }, 'style_type', /Must be one of AUTO/);
      await refused(() => v1.submit('/variations', { parent_task_id: ideogram.task_id, index: 1 }), 409, /this task is ideogram-imagine$/);
    });
  });

  describe('video', () => {
    let luma: V1Task;
    let kling: V1Task;
    let mjVideo: V1Task;

    it('/luma-imagine → /luma-extend: video_url, video_urls and the extend action, and the webhook', async () => {
      luma = await finished('/luma-imagine', {
        prompt: 'a lighthouse at dusk, waves rolling in',
        image_url: url.red,
        end_image_url: url.blue,
        enhance_prompt: true,
        aspect_ratio: '16:9',
        loop: false,
        ...hook('video'),
      });
      expect(luma).toMatchObject({ task_type: 'luma', actions: ['extend'] });
      expect(luma.video_urls).toEqual([luma.video_url]);
      await readMedia(luma.video_url, 'video');
      byFamily.video = luma;
      await expectWebhook(luma.task_id, 'video-secret');

      const extended = await finished('/luma-extend', { parent_task_id: luma.task_id, prompt: 'night falls', enhance_prompt: false, loop: false });
      expect(extended).toMatchObject({ task_type: 'luma-ext', parent_task_id: luma.task_id, actions: ['extend'] });
      await readMedia(extended.video_url, 'video');
    }, 60_000);

    it('/kling-imagine, /kling-tryon, /runway-imagine (video to video), /imagine-video → /imagine-video-extend', async () => {
      const cell = (byFamily.midjourney.image_urls as string[])[0];
      const [klingView, tryon, runway, video] = await allFinished([
        [
          '/kling-imagine',
          {
            prompt: 'a red fox running through fresh snow',
            generation_type: 'image2video',
            negative_prompt: 'people',
            image_url: url.red,
            end_image_url: url.blue,
            mode: 'std',
            model: 'kling-v1-6',
            duration: 5,
            cfg_scale: 0.5,
          },
        ],
        ['/kling-tryon', { human_image_url: url.hopper, cloth_image_url: url.cloth, model: 'kolors-virtual-try-on-v1-5' }],
        [
          '/runway-imagine',
          { prompt: 'the same in watercolour', generation_type: 'video2video', video_url: luma.video_url, model: 'gen3a_turbo', duration: 5 },
        ],
        ['/imagine-video', { prompt: 'the waves start to roll', image_url: cell, motion: 'low' }],
      ]);
      kling = klingView;
      mjVideo = video;
      expect(klingView).toMatchObject({ task_type: 'kling-video' });
      await readMedia(klingView.video_url, 'video');
      expect(tryon).toMatchObject({ task_type: 'kling-tryon' });
      await readMedia(tryon.image_url, 'image');
      expect(runway).toMatchObject({ task_type: 'runway' });
      await readMedia(runway.video_url, 'video');
      expect(video).toMatchObject({ task_type: 'imagine-video', actions: EXTEND_ACTIONS });
      await readAll(video.video_urls, 'video', 4);

      const extended = await finished('/imagine-video-extend', {
        parent_task_id: video.task_id,
        index: 2,
        prompt: 'the camera rises',
        image_url: url.blue,
        motion: 'high',
      });
      expect(extended).toMatchObject({ task_type: 'imagine-video-extend', parent_task_id: video.task_id, actions: EXTEND_ACTIONS });
      await readAll(extended.video_urls, 'video', 4);
    }, 60_000);

    it('400 naming the field out of range; the parent rules of an extension', async () => {
      await outOfRange('/kling-imagine', { prompt: 'x', cfg_scale: 2 }, 'cfg_scale', 'Must be a number from 0 to 1');
      await outOfRange('/kling-imagine', { prompt: 'x', duration: 7 }, 'duration', 'Must be 5 or 10');
      await outOfRange('/imagine-video', { prompt: 'x', image_url: url.red, motion: 'medium' }, 'motion', 'Must be low or high');
      await refused(
        () => v1.submit('/luma-extend', { parent_task_id: kling.task_id, prompt: 'more' }),
        400,
        'parent_task_id: Must be a luma or luma-ext task (this one is kling-video)',
      );
      await refused(
        () => v1.submit('/imagine-video-extend', { parent_task_id: luma.task_id, index: 1, prompt: 'more' }),
        400,
        /^parent_task_id: Must be an imagine-video or imagine-video-extend task \(this one is luma\)$/,
      );
      expect(mjVideo.video_urls).toHaveLength(4);
    });
  });

  describe('audio', () => {
    let suno: V1Task;
    let udio: V1Task;

    const expectSongs = async (view: V1Task, count: number) => {
      const songs = view.songs as { audio_url: string; image_url?: string; lyrics?: string; song_id?: string }[];
      expect(songs).toHaveLength(count);
      expect(view.audio_url).toBe(songs[0].audio_url);
      for (const song of songs) {
        expect(typeof song.song_id).toBe('string');
        await readMedia(song.audio_url, 'audio');
        if (song.image_url !== undefined) await readMedia(song.image_url, 'image');
      }
      return songs;
    };

    it('/suno-imagine → /suno-extend by song_id: songs with audio, cover and lyrics, and the webhook', async () => {
      suno = await finished('/suno-imagine', {
        prompt: 'a bright folk song about the sea',
        model: 'chirp-v4',
        make_instrumental: false,
        title: 'Sea Song',
        tags: 'folk',
        ...hook('audio'),
      });
      expect(suno).toMatchObject({ task_type: 'suno', actions: ['extend'] });
      const songs = await expectSongs(suno, 2);
      for (const song of songs) {
        expect(song.image_url).toBeDefined();
        expect(song.lyrics).toMatch(/\S/);
      }
      expect(suno.lyrics).toBe(songs[0].lyrics);
      byFamily.audio = suno;
      await expectWebhook(suno.task_id, 'audio-secret');

      const extended = await finished('/suno-extend', {
        song_id: songs[1].song_id,
        continue_at: 1,
        prompt: 'louder now',
        lyrics: 'la la la, the sea',
        title: 'Sea Song (extended)',
        tags: 'folk rock',
      });
      expect(extended).toMatchObject({ task_type: 'suno-ext', parent_task_id: suno.task_id, actions: ['extend'] });
      await expectSongs(extended, 2);
    }, 60_000);

    it('/suno-upload of an /upload-audio URL → /suno-extend from_upload, /suno-lyrics, /udio-imagine', async () => {
      const [upload, lyrics, udioView] = await allFinished([
        ['/suno-upload', { audio_url: url.audio }],
        ['/suno-lyrics', { prompt: 'the first snow in the city' }],
        [
          '/udio-imagine',
          {
            prompt: 'sunny reggae with organ and horns',
            lyrics: 'sun on the water, sun on my face',
            model: 'udio32-v1.5',
            prompt_strength: 0.7,
            clarity_strength: 0.5,
            lyrics_strength: 0.6,
            generation_quality: 0.8,
            negative_prompt: 'distortion',
            lyrics_placement_start: 0.2,
            lyrics_placement_end: 1.5,
            tags: 'reggae',
          },
        ],
      ]);
      udio = udioView;
      expect(upload).toMatchObject({ task_type: 'suno-upload', actions: ['extend'] });
      await expectSongs(upload, 1);
      expect(lyrics).toMatchObject({ task_type: 'suno-lyrics', lyrics: expect.stringMatching(/\S/) });
      expect(lyrics).not.toHaveProperty('songs');
      expect(udioView).toMatchObject({ task_type: 'udio' });
      await expectSongs(udioView, 2);

      const extended = await finished('/suno-extend', { parent_task_id: upload.task_id, from_upload: true, continue_at: 1.5 });
      expect(extended).toMatchObject({ task_type: 'suno-ext', parent_task_id: upload.task_id });
      await expectSongs(extended, 2);
    }, 60_000);

    it('400 naming the field out of range; the parent rules of an extension', async () => {
      await outOfRange('/udio-imagine', { prompt: 'x', prompt_strength: 1.5 }, 'prompt_strength', 'Must be between 0 and 1');
      await outOfRange('/suno-imagine', { prompt: 'x', model: 'chirp-v9' }, 'model', /Must be one of chirp-v3-0/);
      await outOfRange('/suno-extend', { parent_task_id: suno.task_id, continue_at: 999 }, 'continue_at', /Must be at most \d/);
      await refused(
        () => v1.submit('/suno-extend', { parent_task_id: udio.task_id }),
        409,
        'Only songs of suno, suno-ext, suno-upload tasks can be extended (this is a udio task)',
      );
      await refused(() => v1.submit('/suno-extend', { parent_task_id: suno.task_id, from_upload: true }), 400, /^from_upload: The task is not an audio upload/);
    });
  });

  describe('AI photos', () => {
    let upload: V1Task;

    it('/ai-photo-upload → /ai-photo-train without trigger_word (TOKMSN) → /ai-photo-generate', async () => {
      const chain = await aiPhotoChain;
      upload = chain.upload;
      expect(upload).toMatchObject({ task_type: 'ai-photo-upload', message: 'Images ready for training' });
      expect(chain.train).toMatchObject({ task_type: 'ai-photo-train', parent_task_id: upload.task_id, trigger_word: 'TOKMSN' });
      expect(chain.generated).toMatchObject({ task_type: 'ai-photo-generate', parent_task_id: chain.train.task_id });
      await readAll(chain.generated.image_urls, 'image', 1);
      byFamily['ai-photo'] = chain.generated;
      await expectWebhook(chain.generated.task_id, 'ai-photo-secret');
    }, 60_000);

    it('400 naming the field out of range; 409 for a training id that is an upload', async () => {
      await outOfRange(
        '/ai-photo-generate',
        { training_id: upload.task_id, prompt: 'x', number_of_images: 5 },
        'number_of_images',
        'Must be a whole number from 1 to 4',
      );
      await outOfRange('/ai-photo-upload', { images: [], ethnicity: 'white', gender: 'female', age: 70 }, 'images', 'Upload 10 to 30 photos');
      await refused(() => v1.submit('/ai-photo-generate', { training_id: upload.task_id, prompt: 'x' }), 409, 'The task is not an AI photo training');
    });
  });

  it('reads one task of each family at once with /fetch-many, each as /fetch shows it', async () => {
    const ids = Object.values(byFamily).map((t) => t.task_id);
    expect(ids).toHaveLength(7);
    const { tasks } = await v1.fetchMany(ids);
    expect(tasks).toEqual(await Promise.all(ids.map((id) => v1.fetch(id))));
  });

  it('reads the account: the credits left are the grant less what every task kept, and the images made', async () => {
    let spent = 0;
    let images = 0;
    for (let i = 0; i < submitted.length; i += 20) {
      const chunk = submitted.slice(i, i + 20);
      // /fetch-many takes 2 to 20 ids
      const tasks = chunk.length > 1 ? (await v1.fetchMany(chunk)).tasks : [await v1.fetch(chunk[0])];
      for (const task of tasks) {
        spent += (task.cost as number) - (task.refund as number);
        // the pictures a task made; a describe's image_url is the picture it was given, an AI photo upload's photos the user's own
        if (task.task_type !== 'describe') images += Array.isArray(task.image_urls) ? task.image_urls.length : task.image_url ? 1 : 0;
      }
    }
    expect(await v1.account()).toEqual({ email: user.email, credits: CREDITS - spent, total_images: images, plan: 'zero' });
  });
});
