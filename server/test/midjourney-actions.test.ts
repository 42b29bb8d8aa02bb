/**
 * The Midjourney actions and the Flux/Ideogram calls through the API, on both databases, with
 * the real local engine: every v1 and pro path end to end (submit, the price held in the
 * task's transaction, the worker, /fetch in the v1 view), the real properties of the result
 * seen through the API (a pan keeps the parent's pixels, vary region keeps what is outside the
 * mask), validation 400s naming the field, the parent rules (404, 409 naming the rule), a
 * failure refunded once, and the OpenAPI document listing every path.
 */
import { readdir } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { createLocalEngine } from '../src/engines/local/index.ts';
import { createMidjourneyProxyEngine } from '../src/engines/midjourney-proxy/index.ts';
import type { TaskView } from '../src/services/tasks/task-view.ts';
import { createImageFetcher } from '../src/storage/image-fetcher.ts';
import { createUser, expectErrorBody, post, type TestUser } from './helpers.ts';
import { type FakeMidjourneyProxy, startFakeMidjourneyProxy } from './support/fake-midjourney-proxy.ts';
import { balanceOf, grantCredits, ledgerOf, openTestDb, type TaskHarness, TEST_CELL_SIZE, taskHarness, waitForTask } from './support/tasks.ts';

const CELL = TEST_CELL_SIZE;

/** Seeded noise: a picture no procedural render reproduces. */
function noise(width: number, height: number, seed: number): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 3);
  let state = seed;
  for (let i = 0; i < data.length; i += 1) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    data[i] = state >> 23;
  }
  return sharp(data, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

const solid = (r: number, g: number, b: number) =>
  sharp({ create: { width: 48, height: 32, channels: 3, background: { r, g, b } } })
    .png()
    .toBuffer();

/** A mask of `width`×`height` whose left `selected` columns are white. */
const leftMask = async (width: number, height: number, selected: number) =>
  (
    await sharp({ create: { width, height, channels: 3, background: '#000' } })
      .composite([
        {
          input: await sharp({ create: { width: selected, height, channels: 3, background: '#fff' } })
            .png()
            .toBuffer(),
          left: 0,
          top: 0,
        },
      ])
      .png()
      .toBuffer()
  ).toString('base64');

async function rgb(data: Buffer) {
  const out = await sharp(data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: out.data, width: out.info.width, height: out.info.height };
}

describe.each(testDatabaseKinds())('Midjourney actions, Flux and Ideogram through the API on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let user: TestUser;
  let other: TestUser;
  let images: http.Server;
  let origin: string;
  const uploaded: Record<string, string> = {};
  /** Finished tasks to act on. */
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    images = http.createServer((req, res) => {
      if (req.url === '/gone.png') return res.writeHead(404).end('gone');
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;

    db = await openTestDb(kind);
    h = await taskHarness(db);
    // embedded rules, as the tests' API config: a loopback http picture may be read
    await h.worker({ imageFetcher: createImageFetcher({ media: h.media, embedded: true }) }).start();
    user = await createUser(db);
    other = await createUser(db);
    await grantCredits(db, user.id, 10_000);
    await grantCredits(db, other.id, 100);
    for (const [name, bytes] of Object.entries({ red: await solid(220, 20, 30), blue: await solid(20, 40, 220), noise: await noise(64, 48, 9) })) {
      const form = new FormData();
      form.set('image', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), `${name}.png`);
      const res = await h.app.request('/upload', { method: 'POST', headers: { authorization: user.apiKey }, body: form });
      uploaded[name] = ((await res.json()) as { imageURL: string }).imageURL;
    }
    ids.grid = await finished('/imagine', { prompt: 'a lighthouse on a cliff', aspect_ratio: '16:9' });
    ids.upscaled = await finished('/upscale-1x', { parent_task_id: ids.grid, index: '2' });
    ids.enlarged = await finished('/upscale-highres', { parent_task_id: ids.upscaled, type: '2x' });
    ids.flux = await finished('/flux-imagine', { prompt: 'a red fox', width: 320, height: 256 });
    const pending = await db.query<{ id: string }>(
      `insert into public.tasks (user_id, email, type, status, prompt) values ($1, $2, 'imagine', 'pending', 'x') returning id`,
      [user.id, user.email],
    );
    ids.pending = pending.rows[0].id;
    ids.foreign = await (async () => {
      const res = await post(h.app, '/imagine', { key: other.apiKey, json: { prompt: 'theirs' } });
      const { task_id } = (await res.json()) as { task_id: string };
      await waitForTask(db, task_id);
      return task_id;
    })();
  }, 60_000);
  afterAll(async () => {
    expect(h?.appLog.lines.filter((l) => l.includes('unhandled error')) ?? []).toEqual([]);
    await h?.cleanup();
    await db?.close();
    images?.closeAllConnections();
    await new Promise((resolve) => images?.close(resolve));
  });

  async function submit(path: string, json: unknown, key = user.apiKey): Promise<string> {
    const res = await post(h.app, path, { key, json });
    const text = await res.clone().text();
    expect(res.status, `${path}: ${text}`).toBe(200);
    return ((await res.json()) as { task_id: string }).task_id;
  }
  async function fetched(taskId: string): Promise<TaskView> {
    const res = await post(h.app, '/fetch', { key: user.apiKey, json: { task_id: taskId } });
    expect(res.status).toBe(200);
    return (await res.json()) as TaskView;
  }
  async function finished(path: string, json: unknown): Promise<string> {
    const id = await submit(path, json);
    const task = await waitForTask(db, id);
    expect(task.status, `${path}: ${JSON.stringify(task.result)}`).toBe('finished');
    return id;
  }
  const mediaOf = async (url: string) => {
    const key = h.media.keyOf(url);
    const stored = key ? await h.media.get(key) : undefined;
    if (!stored) throw new Error(`not stored: ${url}`);
    return stored.data;
  };
  const row = async (id: string) =>
    (
      await db.query<{ type: string; cost: number; input_data: Record<string, unknown> | null; prompt: string | null; parent_id: string | null }>(
        'select type, cost, input_data, prompt, parent_id from public.tasks where id = $1',
        [id],
      )
    ).rows[0];

  describe('every path, end to end on the local engine', () => {
    it('/imagine renders the aspect ratio asked; /upscale-1x takes the index as v1 sends it', async () => {
      const grid = await fetched(ids.grid);
      expect(grid).toMatchObject({ task_type: 'imagine', status: 'finished', percentage: '100' });
      expect(grid.image_urls).toHaveLength(4);
      expect(await sharp(await mediaOf(grid.image_urls?.[0] ?? '')).metadata()).toMatchObject({ width: CELL, height: Math.round((CELL * 9) / 16 / 2) * 2 });
      expect(await row(ids.grid)).toMatchObject({ input_data: { aspect_ratio: '16:9' }, cost: 4 });
      const upscaled = await fetched(ids.upscaled);
      expect(upscaled).toMatchObject({ task_type: 'upscale#2', status: 'finished', parent_task_id: ids.grid, cost: 2 });
      expect(upscaled.actions).toContain('pan_left');
    });

    it('/pan keeps the upscaled parent pixel for pixel on a canvas half again as wide', async () => {
      const id = await finished('/pan', { parent_task_id: ids.upscaled, direction: 'left' });
      const view = await fetched(id);
      expect(view).toMatchObject({ task_type: 'pan-left', cost: 4, parent_task_id: ids.upscaled });
      expect(view.original_image_url).toBeTruthy();
      expect(view.image_urls).toHaveLength(4);
      expect(view.result).toMatchObject({ simulated: true, method: 'canvas-extend', layout: 'grid' });
      const parent = await rgb(await mediaOf((await fetched(ids.upscaled)).image_url ?? ''));
      const cell = await rgb(await mediaOf(view.image_urls?.[2] ?? ''));
      const offset = Math.round(parent.width / 2);
      expect({ width: cell.width, height: cell.height }).toEqual({ width: parent.width + offset, height: parent.height });
      for (let y = 0; y < parent.height; y += 1) {
        const from = (y * cell.width + offset) * 3;
        expect(cell.data.subarray(from, from + parent.width * 3).equals(parent.data.subarray(y * parent.width * 3, (y + 1) * parent.width * 3))).toBe(true);
      }
    });

    it('/outpaint: zoom 1.5 and 2 are the buttons, 1 with an aspect ratio a custom zoom', async () => {
      const parent = (await fetched(ids.upscaled)).image_url ?? '';
      const size = await sharp(await mediaOf(parent)).metadata();
      for (const [json, type, width, height] of [
        [{ zoom_ratio: '1.5' }, 'outpaint-1.5x', Math.round(size.width * 1.5), Math.round(size.height * 1.5)],
        [{ zoom_ratio: 2 }, 'outpaint-2x', size.width * 2, size.height * 2],
        [{ zoom_ratio: 1, aspect_ratio: '1:1' }, 'outpaint-custom', size.width, size.width],
      ] as const) {
        const view = await fetched(await finished('/outpaint', { parent_task_id: ids.upscaled, ...json }));
        expect(view.task_type).toBe(type);
        expect(await sharp(await mediaOf(view.image_urls?.[0] ?? '')).metadata()).toMatchObject({ width, height });
      }
    });

    it('/inpaint stores the mask, and every pixel outside it is the parent’s', async () => {
      const parentView = await fetched(ids.upscaled);
      const parent = await rgb(await mediaOf(parentView.image_url ?? ''));
      const id = await finished('/inpaint', {
        parent_task_id: ids.upscaled,
        mask: `data:image/png;base64,${await leftMask(parent.width, parent.height, 20)}`,
        prompt: 'a balloon',
      });
      const stored = await row(id);
      expect(stored).toMatchObject({ type: 'inpaint', cost: 4, prompt: 'a balloon' });
      expect(String(stored.input_data?.mask_url)).toMatch(new RegExp(`/media/inpaint-mask-${id}\\.png$`));
      const cell = await rgb(await mediaOf((await fetched(id)).image_urls?.[1] ?? ''));
      for (let y = 0; y < parent.height; y += 1) {
        const at = (y * parent.width + 20) * 3;
        expect(cell.data.subarray(at, (y + 1) * parent.width * 3).equals(parent.data.subarray(at, (y + 1) * parent.width * 3))).toBe(true);
      }
    });

    it('/variations: V1–V4 of a grid, strong or subtle of an upscaled image; /reroll with a new prompt', async () => {
      expect((await fetched(await finished('/variations', { parent_task_id: ids.grid, index: 3 }))).task_type).toBe('variation-3');
      const strong = await fetched(await finished('/variations', { parent_task_id: ids.upscaled, index: 'strong' }));
      expect(strong).toMatchObject({ task_type: 'variation-strong', cost: 4 });
      expect(strong.image_urls).toHaveLength(4);
      const reroll = await finished('/reroll', { parent_task_id: ids.grid, prompt: 'a lighthouse in fog' });
      expect(await row(reroll)).toMatchObject({ type: 'reroll', prompt: 'a lighthouse in fog', input_data: { prompt: 'a lighthouse in fog' } });
    });

    it('/upscale-alt and /upscale-highres (of a task, a grid cell, or any picture by URL)', async () => {
      expect(await fetched(await finished('/upscale-alt', { parent_task_id: ids.upscaled, type: 'creative' }))).toMatchObject({
        task_type: 'upscale-creative',
        cost: 4,
      });
      expect(await fetched(ids.enlarged)).toMatchObject({ task_type: 'upscale-2x', cost: 1 });
      expect(await fetched(await finished('/upscale-highres', { parent_task_id: ids.grid, index: 4, type: '4x' }))).toMatchObject({
        task_type: 'upscale-4x',
        cost: 2,
      });
      const byUrl = await fetched(await finished('/upscale-highres', { image_url: uploaded.noise, type: '2x' }));
      expect(byUrl).toMatchObject({ task_type: 'upscale-2x', parent_task_id: null, result: { method: 'lanczos3', simulated: false } });
      expect(await sharp(await mediaOf(byUrl.image_url ?? '')).metadata()).toMatchObject({ width: 128, height: 96 });
    });

    it('/describe answers four prompts that follow the picture, /shorten shorter prompts and its analysis', async () => {
      const red = await fetched(await finished('/describe', { image_url: uploaded.red }));
      const blue = await fetched(await finished('/describe', { image_url: uploaded.blue }));
      expect(red).toMatchObject({ task_type: 'describe', cost: 2, image_url: uploaded.red, result: { simulated: true } });
      expect(red.content).toHaveLength(4);
      expect(red.content?.[0]).toMatch(/^1\uFE0F\u20E3 /);
      expect(red.content?.join(' ')).toMatch(/\bred\b/);
      expect(blue.content?.join(' ')).toMatch(/\bblue\b/);
      const prompt = 'a beautiful stunning lighthouse on a cliff, a lighthouse on a cliff, golden hour, 8k';
      const short = await fetched(await finished('/shorten', { prompt }));
      expect(short).toMatchObject({ task_type: 'shorten', cost: 2, prompt });
      for (const entry of short.content ?? []) expect(entry.replace(/^\d\uFE0F\u20E3 /, '').length).toBeLessThan(prompt.length);
      expect(short.full_content).toMatch(/^## Important tokens/);
    });

    it('/blend answers a grid in the shape asked; /seed the seed', async () => {
      const view = await fetched(await finished('/blend', { image_urls: [uploaded.red, uploaded.blue], dimension: 'portrait' }));
      expect(view).toMatchObject({ task_type: 'blend', cost: 4 });
      const cell = await sharp(await mediaOf(view.image_urls?.[0] ?? '')).metadata();
      expect(cell.height).toBe(CELL);
      expect(cell.width / cell.height).toBeCloseTo(2 / 3, 1);
      const seed = await fetched(await finished('/seed', { task_id: ids.grid }));
      expect(seed).toMatchObject({ task_type: 'seed', cost: 2, seed: (await fetched(ids.grid)).seed });
    });

    it('/pro/vary, /pro/zoom and /pro/pan act on one image of a grid', async () => {
      expect((await fetched(await finished('/pro/vary', { parent_task_id: ids.grid, index: 1, type: 'subtle' }))).task_type).toBe('variation-subtle');
      const zoom = await fetched(await finished('/pro/zoom', { parent_task_id: ids.grid, index: 2, type: '2' }));
      expect(zoom.task_type).toBe('outpaint-2x');
      expect(await row(zoom.task_id)).toMatchObject({ input_data: { index: 2, zoom_ratio: 2 } });
      expect((await fetched(await finished('/pro/zoom', { parent_task_id: ids.grid, index: 2, type: '1' }))).task_type).toBe('outpaint-custom');
      expect((await fetched(await finished('/pro/pan', { parent_task_id: ids.grid, index: 4, type: 'down' }))).task_type).toBe('pan-down');
    });

    it('/flux-imagine renders the size asked on the default model; Ideogram imagine, remix, upscale and describe', async () => {
      const flux = await fetched(ids.flux);
      expect(flux).toMatchObject({ task_type: 'flux-imagine', cost: 1, input_data: { model: 'flux-dev', width: 320, height: 256 } });
      expect(await sharp(await mediaOf(flux.image_url ?? '')).metadata()).toMatchObject({ width: 320, height: 256 });
      const withImage = await fetched(
        await finished('/flux-imagine', { model: 'flux-pro-1.1-ultra', prompt: 'x', image_prompt: uploaded.red, image_prompt_strength: 0.5, raw: true }),
      );
      expect(withImage.input_data).toMatchObject({ model: 'flux-pro-1.1-ultra', image_prompt: uploaded.red, raw: true });

      const ideogram = await fetched(await finished('/ideogram-imagine', { prompt: 'a neon sign', resolution: 'RESOLUTION_320_256', style_type: 'DESIGN' }));
      expect(ideogram).toMatchObject({ task_type: 'ideogram-imagine', cost: 1, input_data: { resolution: { width: 320, height: 256 }, style_type: 'DESIGN' } });
      expect(ideogram.image_urls).toHaveLength(4);
      expect(await sharp(await mediaOf(ideogram.image_urls?.[0] ?? '')).metadata()).toMatchObject({ width: 320, height: 256 });
      expect((await fetched(await finished('/ideogram-imagine', { prompt: 'x', aspect_ratio: 'ASPECT_16_9' }))).input_data).toEqual({ aspect_ratio: '16:9' });

      const remix = await fetched(await finished('/ideogram-remix', { image_url: uploaded.noise, prompt: 'in winter', image_weight: 70 }));
      expect(remix).toMatchObject({ task_type: 'ideogram-remix', cost: 1, input_data: { image_weight: 70 } });
      expect(remix.image_urls).toHaveLength(1);
      const upscale = await fetched(await finished('/ideogram-upscale', { image_url: uploaded.noise, resemblance: 90 }));
      expect(upscale).toMatchObject({ task_type: 'ideogram-upscale', cost: 1, result: { simulated: false } });
      const described = await fetched(await finished('/ideogram-describe', { image_url: uploaded.red }));
      expect(described).toMatchObject({ task_type: 'ideogram-describe', cost: 1 });
      expect(described.description).toMatch(/red/);
    });
  });

  describe('prices', () => {
    it.each([
      ['/imagine', 4, () => ({ prompt: 'x' })],
      ['/upscale-1x', 2, () => ({ parent_task_id: ids.grid, index: 1 })],
      ['/upscale-alt', 4, () => ({ parent_task_id: ids.upscaled, type: 'subtle' })],
      ['/upscale-highres', 2, () => ({ parent_task_id: ids.upscaled, type: '4x' })],
      ['/variations', 4, () => ({ parent_task_id: ids.upscaled, index: 'subtle' })],
      ['/pan', 4, () => ({ parent_task_id: ids.upscaled, direction: 'up' })],
      ['/outpaint', 4, () => ({ parent_task_id: ids.upscaled, zoom_ratio: 1.5 })],
      ['/describe', 2, () => ({ image_url: uploaded.red })],
      ['/shorten', 2, () => ({ prompt: 'a long long prompt' })],
      ['/blend', 4, () => ({ image_urls: [uploaded.red, uploaded.blue] })],
      ['/seed', 2, () => ({ task_id: ids.grid })],
      ['/pro/vary', 4, () => ({ parent_task_id: ids.grid, index: 1, type: 'strong' })],
      ['/flux-imagine', 1, () => ({ prompt: 'x', model: 'flux-schnell' })],
      ['/ideogram-describe', 1, () => ({ image_url: uploaded.red })],
    ] as const)('%s holds %i credits in the task’s transaction (ledger hold:<task id>)', async (path, price, json) => {
      const before = (await balanceOf(db, user.id)).credits;
      const id = await submit(path, json());
      expect((await row(id)).cost).toBe(price);
      expect((await ledgerOf(db, id))[0]).toEqual({ delta: -price, source_key: `hold:${id}` });
      expect((await balanceOf(db, user.id)).credits).toBe(before - price);
      await waitForTask(db, id);
    });

    it('refunds once a task whose picture cannot be read, with the reason', async () => {
      const before = (await balanceOf(db, user.id)).credits;
      const id = await submit('/describe', { image_url: `${origin}/gone.png` });
      const task = await waitForTask(db, id);
      expect(task).toMatchObject({ status: 'failed', refund: 2 });
      expect((await fetched(id)).message).toMatch(/^The input image could not be read: .*404/);
      expect(await ledgerOf(db, id)).toEqual([
        { delta: -2, source_key: `hold:${id}` },
        { delta: 2, source_key: `refund:${id}` },
      ]);
      expect((await balanceOf(db, user.id)).credits).toBe(before);
    });

    it('answers 402 and stores nothing (not even a mask) when the balance is short', async () => {
      const poor = await createUser(db);
      await grantCredits(db, poor.id, 6);
      const grid = await submit('/imagine', { prompt: 'a small boat' }, poor.apiKey);
      await waitForTask(db, grid);
      const upscaled = await submit('/upscale-1x', { parent_task_id: grid, index: 1 }, poor.apiKey);
      await waitForTask(db, upscaled);
      expect((await balanceOf(db, poor.id)).credits).toBe(0);
      const files = async () => (await readdir(h.mediaDir)).filter((name) => name.startsWith('inpaint-mask-')).length;
      const masks = await files();
      const count = async () => (await db.query<{ n: number }>('select count(*)::int as n from public.tasks where user_id = $1', [poor.id])).rows[0].n;
      for (const [path, json] of [
        ['/inpaint', { parent_task_id: upscaled, mask: await leftMask(16, 16, 8) }],
        ['/pan', { parent_task_id: upscaled, direction: 'up' }],
        ['/blend', { image_urls: [uploaded.red, uploaded.blue] }],
        ['/describe', { image_url: uploaded.red }],
      ] as const) {
        const res = await post(h.app, path, { key: poor.apiKey, json });
        expect(res.status, path).toBe(402);
        expect(await expectErrorBody(res)).toEqual({ msg: 'Not enough credits', code: 'insufficient_credits' });
      }
      expect(await count()).toBe(2);
      expect(await files()).toBe(masks);
    });

    it('keeps the webhook a v1 call names with its task', async () => {
      const id = await submit('/pan', { parent_task_id: ids.upscaled, direction: 'right', webhook_url: 'https://example.com/hook', webhook_secret: 's3cret' });
      const { rows } = await db.query('select url, secret from public.task_webhooks where task_id = $1', [id]);
      expect(rows).toEqual([{ url: 'https://example.com/hook', secret: 's3cret' }]);
      await waitForTask(db, id);
    });
  });

  describe('validation and parent rules', () => {
    const unknown = '00000000-0000-0000-0000-000000000001';
    const cases: [string, string, () => unknown, number, string | RegExp][] = [
      ['imagine with an unknown aspect ratio', '/imagine', () => ({ prompt: 'x', aspect_ratio: '5:1' }), 400, /^aspect_ratio: Must be one of/],
      ['upscale-1x index 5', '/upscale-1x', () => ({ parent_task_id: ids.grid, index: 5 }), 400, 'index: Must be 1, 2, 3 or 4'],
      ['upscale-1x index "x"', '/upscale-1x', () => ({ parent_task_id: ids.grid, index: 'x' }), 400, 'index: Must be 1, 2, 3 or 4'],
      ['upscale-1x without index', '/upscale-1x', () => ({ parent_task_id: ids.grid }), 400, 'index: Required'],
      ['upscale-alt of type 2x', '/upscale-alt', () => ({ parent_task_id: ids.upscaled, type: '2x' }), 400, 'type: Must be one of subtle, creative'],
      [
        'upscale-highres with neither parent nor URL',
        '/upscale-highres',
        () => ({ type: '2x' }),
        400,
        'parent_task_id: Give either parent_task_id or image_url',
      ],
      [
        'upscale-highres with both',
        '/upscale-highres',
        () => ({ parent_task_id: ids.upscaled, image_url: uploaded.red, type: '2x' }),
        400,
        /^parent_task_id: Give either/,
      ],
      ['variations with index 0', '/variations', () => ({ parent_task_id: ids.grid, index: 0 }), 400, 'index: Must be 1, 2, 3, 4, strong or subtle'],
      [
        'variations with index medium',
        '/variations',
        () => ({ parent_task_id: ids.grid, index: 'medium' }),
        400,
        'index: Must be 1, 2, 3, 4, strong or subtle',
      ],
      ['reroll with a blank prompt', '/reroll', () => ({ parent_task_id: ids.grid, prompt: '  ' }), 400, 'prompt: Prompt must not be empty'],
      ['pan sideways', '/pan', () => ({ parent_task_id: ids.upscaled, direction: 'sideways' }), 400, 'direction: Must be one of up, down, left, right'],
      ['outpaint zoom 3', '/outpaint', () => ({ parent_task_id: ids.upscaled, zoom_ratio: 3 }), 400, /^zoom_ratio: Must be a number from 1 to 2/],
      ['outpaint zoom "big"', '/outpaint', () => ({ parent_task_id: ids.upscaled, zoom_ratio: 'big' }), 400, /^zoom_ratio: /],
      ['inpaint without mask', '/inpaint', () => ({ parent_task_id: ids.upscaled, prompt: 'x' }), 400, 'mask: Required'],
      ['inpaint with a mask that is not base64', '/inpaint', () => ({ parent_task_id: ids.upscaled, mask: 'not base64!' }), 400, /^mask: not base64/],
      [
        'inpaint with a mask that is not a picture',
        '/inpaint',
        () => ({ parent_task_id: ids.upscaled, mask: Buffer.from('hello world').toString('base64') }),
        400,
        'mask: not a PNG, JPEG or WebP image',
      ],
      ['inpaint with an all-black mask', '/inpaint', () => ({ parent_task_id: ids.upscaled, mask: blackMask() }), 400, /^mask: selects no region/],
      ['describe without image_url', '/describe', () => ({}), 400, 'image_url: Required'],
      ['describe of a non-URL', '/describe', () => ({ image_url: 'ftp://x/y.png' }), 400, 'image_url: Must be a valid http:// or https:// URL'],
      [
        'describe of an upload that does not exist',
        '/describe',
        () => ({ image_url: uploaded.red.replace(/upload-[^.]+/, 'upload-00000000') }),
        400,
        /^image_url: No image of this server/,
      ],
      ['blend of one image', '/blend', () => ({ image_urls: [uploaded.red] }), 400, 'image_urls: Must hold 2 to 5 image URLs'],
      ['blend of six images', '/blend', () => ({ image_urls: Array(6).fill(uploaded.red) }), 400, 'image_urls: Must hold 2 to 5 image URLs'],
      ['blend with a bad second URL', '/blend', () => ({ image_urls: [uploaded.red, 'nope'] }), 400, 'image_urls.1: Must be a valid http:// or https:// URL'],
      ['blend in a bad dimension', '/blend', () => ({ image_urls: [uploaded.red, uploaded.blue], dimension: 'round' }), 400, /^dimension: /],
      ['shorten without prompt', '/shorten', () => ({}), 400, 'prompt: Required'],
      ['pro vary without index', '/pro/vary', () => ({ parent_task_id: ids.grid, type: 'strong' }), 400, 'index: Required'],
      ['pro zoom of type 3', '/pro/zoom', () => ({ parent_task_id: ids.grid, index: 1, type: '3' }), 400, 'type: Must be "1.5", "2" or "1"'],
      ['pro pan of type sideways', '/pro/pan', () => ({ parent_task_id: ids.grid, index: 1, type: 'sideways' }), 400, 'type: Must be up, down, left or right'],
      ['flux width 100', '/flux-imagine', () => ({ prompt: 'x', width: 100, height: 512 }), 400, 'width: Must be a whole number from 256 to 1440'],
      ['flux width without height', '/flux-imagine', () => ({ prompt: 'x', width: 512 }), 400, 'height: Give width and height together'],
      ['flux safety tolerance 7', '/flux-imagine', () => ({ prompt: 'x', safety_tolerance: 7 }), 400, 'safety_tolerance: Must be a whole number from 0 to 6'],
      ['flux of an unknown model', '/flux-imagine', () => ({ prompt: 'x', model: 'flux-9' }), 400, /^model: Must be one of flux-schnell/],
      [
        'flux image prompt strength 2',
        '/flux-imagine',
        () => ({ prompt: 'x', image_prompt_strength: 2 }),
        400,
        'image_prompt_strength: Must be a number from 0 to 1',
      ],
      [
        'ideogram with aspect ratio and resolution',
        '/ideogram-imagine',
        () => ({ prompt: 'x', aspect_ratio: '1:1', resolution: 'RESOLUTION_1024_1024' }),
        400,
        'resolution: Give either aspect_ratio or resolution, not both',
      ],
      ['ideogram resolution 100', '/ideogram-imagine', () => ({ prompt: 'x', resolution: 'RESOLUTION_100_1024' }), 400, /^resolution: Must be RESOLUTION_/],
      ['ideogram of an unknown style', '/ideogram-imagine', () => ({ prompt: 'x', style_type: 'PASTEL' }), 400, /^style_type: Must be one of/],
      [
        'remix weight 0',
        '/ideogram-remix',
        () => ({ image_url: uploaded.red, prompt: 'x', image_weight: 0 }),
        400,
        'image_weight: Must be a whole number from 1 to 100',
      ],
      [
        'upscale resemblance 101',
        '/ideogram-upscale',
        () => ({ image_url: uploaded.red, resemblance: 101 }),
        400,
        'resemblance: Must be a whole number from 1 to 100',
      ],
      ['pan of an unknown task', '/pan', () => ({ parent_task_id: unknown, direction: 'up' }), 404, 'Task not found'],
      ["pan of someone else's task", '/pan', () => ({ parent_task_id: ids.foreign, direction: 'up', index: 1 }), 404, 'Task not found'],
      ['pan of a running task', '/pan', () => ({ parent_task_id: ids.pending, direction: 'up' }), 409, 'The task has not finished successfully'],
      [
        'pan of a grid without index',
        '/pan',
        () => ({ parent_task_id: ids.grid, direction: 'up' }),
        409,
        'Pan works on an upscaled image: upscale one image of this grid first (POST /upscale-1x), or name it with index',
      ],
      [
        'pan of an upscaled image with index 2',
        '/pan',
        () => ({ parent_task_id: ids.upscaled, direction: 'up', index: 2 }),
        400,
        'index must be between 1 and 1 for this task',
      ],
      [
        'zoom out of an enlargement',
        '/outpaint',
        () => ({ parent_task_id: ids.enlarged, zoom_ratio: 2 }),
        409,
        'Zoom out cannot follow an upscale-2x: an enlargement is an end result; use the upscaled image it was made from',
      ],
      [
        'vary region of a Flux picture',
        '/inpaint',
        async () => ({ parent_task_id: ids.flux, mask: await leftMask(8, 8, 4) }),
        409,
        'Vary (Region) works on a Midjourney image (upscale#1–4, upscale-subtle or upscale-creative, or one image of a grid); this task is flux-imagine',
      ],
      [
        'upscale-alt of a grid',
        '/upscale-alt',
        () => ({ parent_task_id: ids.grid, type: 'subtle' }),
        409,
        /^Upscale \(Subtle\) works on an upscaled image: upscale one image/,
      ],
      [
        'upscale-1x of an upscaled image',
        '/upscale-1x',
        () => ({ parent_task_id: ids.upscaled, index: 1 }),
        409,
        'Upscale (U1–U4) works on a Midjourney grid of four (imagine, reroll, variations, blend, pan, zoom out or vary); this task is upscale#2',
      ],
      [
        'variations 1–4 of an upscaled image',
        '/variations',
        () => ({ parent_task_id: ids.upscaled, index: 1 }),
        409,
        /^Variations \(V1–V4\) works on a Midjourney grid of four/,
      ],
      ['vary strong of a grid', '/variations', () => ({ parent_task_id: ids.grid, index: 'strong' }), 409, /^Vary \(Strong\) works on an upscaled image/],
      ['reroll of an upscaled image', '/reroll', () => ({ parent_task_id: ids.upscaled }), 409, /^Reroll works on a Midjourney grid of four/],
      [
        'pro pan of a Flux picture',
        '/pro/pan',
        () => ({ parent_task_id: ids.flux, index: 1, type: 'up' }),
        409,
        /^Pan works on a Midjourney image .*this task is flux-imagine$/,
      ],
    ];
    let blackMask: () => string;

    beforeAll(async () => {
      const black = (
        await sharp({ create: { width: 16, height: 16, channels: 3, background: '#000' } })
          .png()
          .toBuffer()
      ).toString('base64');
      blackMask = () => black;
    });

    it.each(cases)('%s', async (_name, path, json, status, message) => {
      const before = await db.query<{ n: number }>('select count(*)::int as n from public.tasks where user_id = $1', [user.id]);
      const res = await post(h.app, path, { key: user.apiKey, json: await json() });
      expect(res.status).toBe(status);
      const error = await expectErrorBody(res);
      if (typeof message === 'string') expect(error.msg).toBe(message);
      else expect(error.msg).toMatch(message);
      const after = await db.query<{ n: number }>('select count(*)::int as n from public.tasks where user_id = $1', [user.id]);
      expect(after.rows[0].n, 'no task was created').toBe(before.rows[0].n);
    });

    it('asks for the API key on every new path (401)', async () => {
      for (const path of ['/imagine', '/pan', '/inpaint', '/describe', '/pro/zoom', '/flux-imagine', '/ideogram-remix']) {
        const res = await post(h.app, path, { json: {} });
        expect(res.status, path).toBe(401);
      }
    });
  });

  it('lists every new path in the OpenAPI document, with its price in the description', async () => {
    const doc = (await (await h.app.request('/openapi.json')).json()) as { paths: Record<string, { post?: { description?: string; security?: unknown[] } }> };
    const prices: Record<string, RegExp> = {
      '/imagine': /Costs 4 credits/,
      '/upscale-1x': /Costs 2 credits/,
      '/upscale-alt': /Costs 4 credits/,
      '/upscale-highres': /Costs 1 credit \(2x\) or 2 credits \(4x\)/,
      '/variations': /Costs 4 credits/,
      '/reroll': /Costs 4 credits/,
      '/inpaint': /Costs 4 credits/,
      '/outpaint': /Costs 4 credits/,
      '/pan': /Costs 4 credits/,
      '/describe': /Costs 2 credits/,
      '/blend': /Costs 4 credits/,
      '/shorten': /Costs 2 credits/,
      '/seed': /Costs 2 credits/,
      '/pro/vary': /Costs 4 credits/,
      '/pro/zoom': /Costs 4 credits/,
      '/pro/pan': /Costs 4 credits/,
      '/flux-imagine': /Costs 1 credit\./,
      '/ideogram-imagine': /Costs 1 credit\./,
      '/ideogram-remix': /Costs 1 credit\./,
      '/ideogram-upscale': /Costs 1 credit\./,
      '/ideogram-describe': /Costs 1 credit\./,
    };
    for (const [path, price] of Object.entries(prices)) {
      const op = doc.paths[path]?.post;
      expect(op, path).toBeDefined();
      expect(op?.description, path).toMatch(price);
      expect(op?.security, path).toEqual([{ apiKey: [] }]);
    }
    // today's paths stay
    for (const path of ['/pro/imagine', '/pro/upscale', '/pro/variations', '/pro/reroll', '/pro/seed', '/flux/imagine', '/ideogram/imagine']) {
      expect(doc.paths[path]?.post, path).toBeDefined();
    }
  });
});

describe.each(testDatabaseKinds())('Midjourney actions through the API on the midjourney-proxy adapter (%s)', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let user: TestUser;
  let upstream: FakeMidjourneyProxy;
  let picture: Buffer;
  let pictureUrl: string;

  beforeAll(async () => {
    upstream = await startFakeMidjourneyProxy({ secret: 's', scenario: () => ({ outcome: 'success', progress: ['40%'], withCells: true }) });
    db = await openTestDb(kind);
    h = await taskHarness(db, [
      createMidjourneyProxyEngine({ baseUrl: upstream.baseUrl, apiSecret: 's', pollIntervalMs: 5 }),
      createLocalEngine({ cellSize: CELL }),
    ]);
    await h.worker().start();
    user = await createUser(db);
    await grantCredits(db, user.id, 1000);
    picture = await solid(200, 100, 50);
    const form = new FormData();
    form.set('image', new Blob([new Uint8Array(picture)], { type: 'image/png' }), 'p.png');
    const res = await h.app.request('/upload', { method: 'POST', headers: { authorization: user.apiKey }, body: form });
    pictureUrl = ((await res.json()) as { imageURL: string }).imageURL;
  });
  afterAll(async () => {
    expect(h?.appLog.lines.filter((l) => l.includes('unhandled error')) ?? []).toEqual([]);
    await h?.cleanup();
    await db?.close();
    await upstream?.close();
  });

  async function finished(path: string, json: unknown): Promise<TaskView> {
    const res = await post(h.app, path, { key: user.apiKey, json });
    expect(res.status, await res.clone().text()).toBe(200);
    const { task_id } = (await res.json()) as { task_id: string };
    const task = await waitForTask(db, task_id);
    expect(task.status, JSON.stringify(task.result)).toBe('finished');
    return (await (await post(h.app, '/fetch', { key: user.apiKey, json: { task_id } })).json()) as TaskView;
  }
  const posted = (path: string) => upstream.requests.filter((r) => r.method === 'POST' && r.path === path).map((r) => r.body as Record<string, unknown>);
  const dataUri = (bytes: Buffer) => `data:image/png;base64,${bytes.toString('base64')}`;

  it('pans one cell of a grid (U first, then the pan button) and vary-regions an upscaled image with its stored mask', async () => {
    const grid = await finished('/imagine', { prompt: 'a harbour', aspect_ratio: '3:2' });
    expect(posted('/mj/submit/imagine')).toEqual([{ prompt: 'a harbour --ar 3:2' }]);
    const gridId = String(grid.result?.upstream_id);

    const pan = await finished('/pan', { parent_task_id: grid.task_id, direction: 'left', index: 2 });
    expect(pan).toMatchObject({ task_type: 'pan-left', result: { engine: 'midjourney-proxy', simulated: false, layout: 'grid' } });
    expect(pan.image_urls).toHaveLength(4);
    expect(posted('/mj/submit/change')).toEqual([{ taskId: gridId, action: 'UPSCALE', index: 2 }]);
    const [press] = posted('/mj/submit/action');
    expect(String(press.customId)).toMatch(/^MJ::JOB::pan_left::1::/);

    const upscaled = await finished('/upscale-1x', { parent_task_id: grid.task_id, index: 1 });
    const mask = Buffer.from(await leftMask(32, 32, 10), 'base64');
    const inpaint = await finished('/inpaint', { parent_task_id: upscaled.task_id, mask: mask.toString('base64'), prompt: 'a lighthouse' });
    expect(inpaint.task_type).toBe('inpaint');
    expect(posted('/mj/submit/modal')).toEqual([{ taskId: inpaint.result?.upstream_id, prompt: 'a lighthouse', maskBase64: dataUri(mask) }]);

    await finished('/outpaint', { parent_task_id: upscaled.task_id, zoom_ratio: 1, aspect_ratio: '16:9' });
    expect(posted('/mj/submit/modal')[1]).toEqual({ taskId: expect.any(String), prompt: 'a harbour --ar 16:9 --zoom 1' });
  });

  it('describes, blends and shortens through the upstream, the pictures sent as data URIs', async () => {
    const described = await finished('/describe', { image_url: pictureUrl });
    expect(posted('/mj/submit/describe')).toEqual([{ base64: dataUri(picture) }]);
    expect(described.content).toHaveLength(4);
    expect(described.content?.[0]).toBe('1\uFE0F\u20E3 a red fox in fresh snow, golden hour --ar 3:2');

    const blend = await finished('/blend', { image_urls: [pictureUrl, pictureUrl], dimension: 'portrait' });
    expect(blend.image_urls).toHaveLength(4);
    expect(posted('/mj/submit/blend')).toEqual([{ base64Array: [dataUri(picture), dataUri(picture)], dimensions: 'PORTRAIT' }]);

    const short = await finished('/shorten', { prompt: 'a lighthouse on a cliff at sunset, beautiful' });
    expect(short.content).toEqual([
      '1\uFE0F\u20E3 lighthouse on a cliff at sunset',
      '2\uFE0F\u20E3 lighthouse, cliff, sunset',
      '3\uFE0F\u20E3 lighthouse sunset',
    ]);
    expect(short.full_content).toMatch(/^## Important tokens/);
  });
});
