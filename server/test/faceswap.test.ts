/**
 * POST /faceswap end to end: the submit (price held with the task, input_data, the 400s that
 * can be known at submit time, 402), the worker reading both pictures (our own media from the
 * store, another site's over HTTP through the guarded fetcher) and handing them to the engine,
 * /fetch, realtime and a signed completion webhook; a picture the worker cannot read fails the
 * task with the reason and refunds it exactly once. Last, the whole path on the Replicate
 * adapter against its fake, the output copied into our media store.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { createApiApp } from '../src/app.ts';
import type { Engine, EngineJob } from '../src/engines/engine.ts';
import { createReplicateFaceswapEngine } from '../src/engines/replicate/index.ts';
import { NUL_MESSAGE } from '../src/openapi/nul-guard.ts';
import type { TaskView } from '../src/services/tasks/task-view.ts';
import { createImageFetcher } from '../src/storage/image-fetcher.ts';
import type { MediaStore } from '../src/storage/media-store.ts';
import { createWebhookService, verifyWebhookSignature, type WebhookService } from '../src/webhooks/index.ts';
import { sendTaskWebhooks } from '../src/webhooks/task-webhooks.ts';
import { captureLogger, createUser, expectErrorBody, post, type TestUser, testConfig } from './helpers.ts';
import { FAKE_FACESWAP_MODEL, FAKE_OUTPUT_PNG, type FakeReplicate, startFakeReplicate } from './support/fake-replicate.ts';
import { balanceOf, grantCredits, ledgerOf, openTestDb, readTask, scriptedEngine, type TaskHarness, taskHarness, waitForTask } from './support/tasks.ts';

const PRICE = 2;
const MAX_TEST_IMAGE_BYTES = 256 * 1024;

const picture = (format: 'png' | 'jpeg', width: number, height: number, r: number) =>
  sharp({ create: { width, height, channels: 3, background: { r, g: 120, b: 60 } } })
    .toFormat(format)
    .toBuffer();

/** A Blob of a png (a copy: Blob takes no view of a possibly shared buffer). */
const pngBlob = (data: Buffer) => new Blob([new Uint8Array(data)], { type: 'image/png' });

/** The scripted engine (faceswap succeeds at once with a 1×1 png), recording the jobs it runs. */
function recordingEngine(): { engine: Engine; jobs: EngineJob[] } {
  const scripted = scriptedEngine('faceswap-test', ['faceswap']);
  const jobs: EngineJob[] = [];
  const engine: Engine = {
    ...scripted,
    run(job, onProgress, signal) {
      jobs.push(job);
      return scripted.run(job, onProgress, signal);
    },
  };
  return { engine, jobs };
}

describe.each(testDatabaseKinds())('POST /faceswap on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let user: TestUser;
  let images: http.Server;
  let imagesOrigin: string;
  let receiver: http.Server;
  let receiverUrl: string;
  let webhooks: WebhookService;
  let uploadedUrl: string;
  const imageHits: string[] = [];
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const recording = recordingEngine();
  const bytes: Record<string, Buffer> = {};
  // media keys the worker finds gone, as if deleted after the submit
  const goneForWorker = new Set<string>();

  beforeAll(async () => {
    bytes.source = await picture('png', 24, 20, 200);
    bytes.target = await picture('jpeg', 40, 30, 30);
    // big enough to pass the fetcher's test limit, small enough to stay a valid picture
    bytes.large = await sharp({
      create: { width: 600, height: 600, channels: 3, background: { r: 0, g: 0, b: 0 }, noise: { type: 'gaussian', mean: 128, sigma: 60 } },
    })
      .png()
      .toBuffer();
    expect(bytes.large.length).toBeGreaterThan(MAX_TEST_IMAGE_BYTES);

    images = http.createServer((req, res) => {
      imageHits.push(req.url ?? '');
      const routes: Record<string, () => void> = {
        '/target.jpg': () => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(bytes.target),
        '/page.html': () => res.writeHead(200, { 'content-type': 'image/png' }).end('<!doctype html><p>not a picture</p>'),
        '/large.png': () => res.writeHead(200, { 'content-type': 'image/png' }).end(bytes.large),
        '/gone.png': () => res.writeHead(404).end('not found'),
        '/busy.png': () => res.writeHead(503).end('try later'),
      };
      (routes[new URL(req.url ?? '/', 'http://x').pathname] ?? (() => res.writeHead(404).end()))();
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    imagesOrigin = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;

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
    h = await taskHarness(db, [recording.engine]);
    // embedded mode, as the tests' API config: loopback http pictures are allowed
    const workerMedia: MediaStore = { ...h.media, get: async (key) => (goneForWorker.has(key) ? undefined : h.media.get(key)) };
    const worker = h.worker({ imageFetcher: createImageFetcher({ media: workerMedia, embedded: true, maxBytes: MAX_TEST_IMAGE_BYTES }) });
    const log = captureLogger();
    webhooks = createWebhookService({ db, log, allowPrivateTargets: true, pollIntervalMs: 50 });
    sendTaskWebhooks({ db, events: worker, webhooks, log });
    webhooks.start();
    await worker.start();
    user = await createUser(db);
    await grantCredits(db, user.id, 100);

    const form = new FormData();
    form.set('image', pngBlob(bytes.source), 'me.png');
    const upload = await h.app.request('/upload', { method: 'POST', headers: { authorization: user.apiKey }, body: form });
    expect(upload.status).toBe(200);
    uploadedUrl = ((await upload.json()) as { imageURL: string }).imageURL;
  });
  afterAll(async () => {
    expect(h?.appLog.lines.filter((l) => l.includes('unhandled error')) ?? []).toEqual([]);
    await webhooks?.stop();
    await h?.cleanup();
    await db?.close();
    for (const server of [images, receiver]) {
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
    }
  });

  const submit = async (json: Record<string, unknown>, key = user.apiKey) => {
    const res = await post(h.app, '/faceswap', { key, json });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as { task_id: string };
    expect(Object.keys(body)).toEqual(['task_id']);
    return body.task_id;
  };
  const fetched = async (taskId: string) => {
    const res = await post(h.app, '/fetch', { key: user.apiKey, json: { task_id: taskId } });
    expect(res.status).toBe(200);
    return (await res.json()) as TaskView;
  };
  const countTasks = async () => (await db.query<{ n: number }>('select count(*)::int as n from public.tasks where user_id = $1', [user.id])).rows[0].n;

  describe('a swap of an uploaded picture onto another site’s picture', () => {
    let taskId: string;
    let before: number;

    beforeAll(async () => {
      before = (await balanceOf(db, user.id)).credits;
      recording.jobs.length = 0;
      imageHits.length = 0;
      taskId = await submit({
        swap_image_url: `  ${uploadedUrl}  `,
        target_image_url: `${imagesOrigin}/target.jpg`,
        webhook_url: receiverUrl,
        webhook_secret: 'faceswap-secret',
      });
    });

    it('should create a faceswap task holding the price in its transaction, with the URLs in input_data', async () => {
      const { rows } = await db.query<{ type: string; cost: number; input_data: unknown; prompt: string | null }>(
        'select type, cost, input_data, prompt from public.tasks where id = $1',
        [taskId],
      );
      expect(rows[0]).toEqual({
        type: 'faceswap',
        cost: PRICE,
        prompt: null,
        input_data: { swap_image_url: uploadedUrl, target_image_url: `${imagesOrigin}/target.jpg` },
      });
      expect((await ledgerOf(db, taskId))[0]).toEqual({ delta: -PRICE, source_key: `hold:${taskId}` });
      const { rows: hooks } = await db.query('select url, secret from public.task_webhooks where task_id = $1', [taskId]);
      expect(hooks).toEqual([{ url: receiverUrl, secret: 'faceswap-secret' }]);
    });

    it('should succeed, the engine given our upload from the store and the other picture over HTTP', async () => {
      const task = await waitForTask(db, taskId);
      expect(task.status).toBe('finished');
      const [job] = recording.jobs;
      expect(job?.kind).toBe('faceswap');
      if (job?.kind !== 'faceswap') return;
      expect(job.source).toMatchObject({ url: uploadedUrl, contentType: 'image/png' });
      expect(job.source.data.equals(bytes.source)).toBe(true);
      expect(job.target).toMatchObject({ url: `${imagesOrigin}/target.jpg`, contentType: 'image/jpeg' });
      expect(job.target.data.equals(bytes.target)).toBe(true);
      // our own media never went over HTTP
      expect(imageHits).toEqual(['/target.jpg']);
      // success keeps the hold as the charge
      expect((await balanceOf(db, user.id)).credits).toBe(before - PRICE);
      expect(await ledgerOf(db, taskId)).toEqual([{ delta: -PRICE, source_key: `hold:${taskId}` }]);
    });

    it('should show status, percentage and image_url on /fetch, the image served by /media', async () => {
      const view = await fetched(taskId);
      expect(view).toMatchObject({ task_id: taskId, task_type: 'faceswap', status: 'finished', percentage: '100', cost: PRICE, refund: 0 });
      expect(view.image_url).toMatch(new RegExp(`^http://localhost:8080/media/${taskId}-image\\.png$`));
      // one picture: image_url alone (v1), no prompt
      expect(view).not.toHaveProperty('image_urls');
      expect(view).not.toHaveProperty('prompt');
      const media = await h.app.request(new URL(view.image_url!).pathname);
      expect(media.status).toBe(200);
      expect(media.headers.get('content-type')).toBe('image/png');
    });

    it('should have fed rising progress to realtime and sent a signed completion webhook', async () => {
      const { rows } = await db.query<{ percentage: number; status: string }>(
        `select (new_row->>'percentage')::int as percentage, new_row->>'status' as status from _realtime_local.changes
          where table_name = 'tasks' and op = 'UPDATE' and new_row->>'id' = $1 order by id`,
        [taskId],
      );
      expect(rows.at(-1)).toEqual({ percentage: 100, status: 'finished' });
      const percentages = rows.map((r) => r.percentage);
      expect(percentages).toEqual([...percentages].sort((a, b) => a - b));

      const deadline = Date.now() + 15_000;
      let hit: (typeof received)[number] | undefined;
      while (!hit && Date.now() < deadline) {
        hit = received.find((r) => r.headers['x-webhook-event'] === 'task.completed' && (JSON.parse(r.body) as { task_id: string }).task_id === taskId);
        if (!hit) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(hit, 'completion webhook').toBeDefined();
      expect(verifyWebhookSignature('faceswap-secret', hit!.headers as Record<string, string>, hit!.body).ok).toBe(true);
      // the body is the task as /fetch shows it
      expect(JSON.parse(hit!.body)).toEqual({ ...(await fetched(taskId)), child_task_ids: undefined }); // /fetch's lineage is not in webhook bodies
      expect(JSON.parse(hit!.body)).toMatchObject({ task_id: taskId, task_type: 'faceswap', status: 'finished' });
    });
  });

  it.each([
    [{ swap_image_url: 'a\u0000b', target_image_url: 'https://example.com/t.png' }, `swap_image_url: ${NUL_MESSAGE}`],
    [{ target_image_url: 'https://example.com/t.png' }, 'swap_image_url: Required'],
    [{ swap_image_url: 42, target_image_url: 'https://example.com/t.png' }, 'swap_image_url: Must be a string'],
    [{ swap_image_url: '   ', target_image_url: 'https://example.com/t.png' }, 'swap_image_url: Must not be empty'],
    [{ swap_image_url: 'not a url', target_image_url: 'https://example.com/t.png' }, 'swap_image_url: Must be a valid http:// or https:// URL'],
    [{ swap_image_url: 'ftp://example.com/s.png', target_image_url: 'https://example.com/t.png' }, 'swap_image_url: Must be a valid http:// or https:// URL'],
    [{ swap_image_url: 'javascript:alert(1)', target_image_url: 'https://example.com/t.png' }, 'swap_image_url: Must be a valid http:// or https:// URL'],
    [
      { swap_image_url: 'http://localhost:8080/media/upload-00000000-0000-0000-0000-000000000000.png', target_image_url: 'https://example.com/t.png' },
      'swap_image_url: No image of this server has this URL (upload it with POST /upload)',
    ],
    [{ swap_image_url: 'https://example.com/s.png', target_image_url: 'file:///etc/passwd' }, 'target_image_url: Must be a valid http:// or https:// URL'],
    [{ swap_image_url: 'https://example.com/s.png', target_image_url: `https://example.com/${'x'.repeat(2100)}` }, 'target_image_url: At most 2048 characters'],
    [
      { swap_image_url: 'https://example.com/s.png', target_image_url: 'https://example.com/t.png', webhook_url: 'ftp://hooks' },
      'Webhook must start with http:// or https://',
    ],
  ])('should refuse %j with a 400 naming the field, holding nothing', async (json, msg) => {
    const before = await balanceOf(db, user.id);
    const tasks = await countTasks();
    const res = await post(h.app, '/faceswap', { key: user.apiKey, json });
    expect(res.status).toBe(400);
    expect((await expectErrorBody(res)).msg).toBe(msg);
    expect(await balanceOf(db, user.id)).toEqual(before);
    expect(await countTasks()).toBe(tasks);
  });

  it('should refuse http and private addresses outside embedded mode, but still take our own media URLs', async () => {
    const production = createApiApp({
      db,
      config: { ...testConfig, embedded: false },
      log: h.appLog,
      media: h.media,
      engines: h.engines,
      env: { BILLING_PROVIDER: 'sandbox' },
    });
    const target = 'https://images.example.com/t.png';
    const cases: [string, string][] = [
      ['http://images.example.com/s.png', 'swap_image_url: Must be an https:// URL'],
      ['https://127.0.0.1/s.png', 'swap_image_url: Must be a public address (127.0.0.1 is a loopback address)'],
      ['https://[fd00::1]/s.png', 'swap_image_url: Must be a public address (fd00::1 is a unique-local address)'],
      ['https://169.254.169.254/latest/meta-data/', 'swap_image_url: Must be a public address (169.254.169.254 is a link-local address)'],
      ['https://localhost:8443/s.png', 'swap_image_url: Must be a public address (localhost is this machine)'],
    ];
    for (const [swap, msg] of cases) {
      const res = await post(production, '/faceswap', { key: user.apiKey, json: { swap_image_url: swap, target_image_url: target } });
      expect(res.status, swap).toBe(400);
      expect(await expectErrorBody(res)).toEqual({ msg, code: 'validation_failed' });
    }
    // our own media (http on this test server) is read from the store, so the scheme does not matter
    const own = await post(production, '/faceswap', { key: user.apiKey, json: { swap_image_url: uploadedUrl, target_image_url: target } });
    expect(own.status, await own.clone().text()).toBe(200);
    await waitForTask(db, ((await own.json()) as { task_id: string }).task_id);
  });

  it('should answer 402 without the credits, creating nothing', async () => {
    const poor = await createUser(db);
    const res = await post(h.app, '/faceswap', { key: poor.apiKey, json: { swap_image_url: uploadedUrl, target_image_url: `${imagesOrigin}/target.jpg` } });
    expect(res.status).toBe(402);
    expect(await expectErrorBody(res)).toEqual({ msg: 'Not enough credits', code: 'insufficient_credits' });
    const { rows } = await db.query<{ n: number }>('select count(*)::int as n from public.tasks where user_id = $1', [poor.id]);
    expect(rows[0].n).toBe(0);
  });

  it('should answer 401 without a key', async () => {
    const res = await post(h.app, '/faceswap', { json: { swap_image_url: uploadedUrl, target_image_url: uploadedUrl } });
    expect(res.status).toBe(401);
  });

  describe('a picture the worker cannot read', () => {
    const failsWith = async (json: Record<string, unknown>, message: string, code = 'invalid_input') => {
      const before = (await balanceOf(db, user.id)).credits;
      const runs = recording.jobs.length;
      const taskId = await submit(json);
      const task = await waitForTask(db, taskId);
      expect(task).toMatchObject({ status: 'failed', refund: PRICE });
      expect(task.result).toEqual({ message, code });
      // the engine never ran; the hold came back exactly once
      expect(recording.jobs.length).toBe(runs);
      expect(await ledgerOf(db, taskId)).toEqual([
        { delta: -PRICE, source_key: `hold:${taskId}` },
        { delta: PRICE, source_key: `refund:${taskId}` },
      ]);
      const after = await balanceOf(db, user.id);
      expect(after.credits).toBe(before);
      expect(after.credits).toBe(after.ledgerSum);
      expect(await fetched(taskId)).toMatchObject({ status: 'failed', message, result: { message, code } });
      return taskId;
    };

    it('should fail a URL that answers 404, naming the target', async () => {
      await failsWith(
        { swap_image_url: uploadedUrl, target_image_url: `${imagesOrigin}/gone.png` },
        'The target image could not be read: the server answered HTTP 404',
      );
    });

    it('should fail a URL that serves no picture, whatever its content type says', async () => {
      await failsWith(
        { swap_image_url: `${imagesOrigin}/page.html`, target_image_url: `${imagesOrigin}/target.jpg` },
        'The source image could not be read: it is not a jpeg, png, gif or webp image',
      );
    });

    it('should fail a picture over the size limit', async () => {
      await failsWith(
        { swap_image_url: uploadedUrl, target_image_url: `${imagesOrigin}/large.png` },
        `The target image could not be read: it is larger than ${MAX_TEST_IMAGE_BYTES} bytes`,
      );
    });

    it('should fail an upload deleted between the submit and the run', async () => {
      const form = new FormData();
      form.set('image', pngBlob(bytes.source), 'me.png');
      const upload = await h.app.request('/upload', { method: 'POST', headers: { authorization: user.apiKey }, body: form });
      const url = ((await upload.json()) as { imageURL: string }).imageURL;
      goneForWorker.add(h.media.keyOf(url)!);
      await failsWith(
        { swap_image_url: url, target_image_url: `${imagesOrigin}/target.jpg` },
        'The source image could not be read: it no longer exists on this server',
      );
    });

    it('should retry a server error, then fail and refund once', async () => {
      imageHits.length = 0;
      await failsWith(
        { swap_image_url: uploadedUrl, target_image_url: `${imagesOrigin}/busy.png` },
        'The target image could not be read: the server answered HTTP 503',
        'upstream_unavailable',
      );
      // three attempts (the queue's maximum), one settlement
      expect(imageHits.filter((u) => u === '/busy.png')).toHaveLength(3);
    });
  });

  it('should document /faceswap with an example in the OpenAPI document and on /docs', async () => {
    const doc = (await (await h.app.request('/openapi.json')).json()) as {
      paths: Record<string, { post?: { security?: unknown; requestBody?: unknown; responses: Record<string, unknown> } }>;
      components: { schemas: Record<string, { example?: Record<string, unknown> }> };
    };
    const op = doc.paths['/faceswap']?.post;
    expect(op?.security).toEqual([{ apiKey: [] }]);
    expect(Object.keys(op?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '401', '402', '413', '415', '500']));
    expect(doc.components.schemas.FaceswapRequest.example).toMatchObject({ swap_image_url: expect.any(String), target_image_url: expect.any(String) });
    const html = await (await h.app.request('/docs')).text();
    expect(html).toContain('POST</span> <code>/faceswap</code>');
    expect(html).toContain('&#34;target_image_url&#34;: &#34;https://images.example.com/portraits/target.jpg&#34;');
  });
});

describe.each(testDatabaseKinds())('faceswap on the Replicate adapter on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let upstream: FakeReplicate;
  let user: TestUser;

  beforeAll(async () => {
    upstream = await startFakeReplicate({ token: 'r8_e2e' });
    db = await openTestDb(kind);
    const engine = createReplicateFaceswapEngine({
      apiToken: 'r8_e2e',
      baseUrl: upstream.baseUrl,
      model: `${FAKE_FACESWAP_MODEL.owner}/${FAKE_FACESWAP_MODEL.name}`,
      pollIntervalMs: 10,
    });
    h = await taskHarness(db, [engine]);
    await h.worker({ imageFetcher: createImageFetcher({ media: h.media, embedded: true }) }).start();
    user = await createUser(db);
    await grantCredits(db, user.id, 10);
  });
  afterAll(async () => {
    await h?.cleanup();
    await db?.close();
    await upstream?.close();
  });

  it('should send both pictures, follow the prediction and copy its output into our media store', async () => {
    const png = await picture('png', 10, 10, 90);
    const urls: string[] = [];
    for (const name of ['a', 'b']) {
      const form = new FormData();
      form.set('image', pngBlob(png), `${name}.png`);
      const res = await h.app.request('/upload', { method: 'POST', headers: { authorization: user.apiKey }, body: form });
      urls.push(((await res.json()) as { imageURL: string }).imageURL);
    }
    const res = await post(h.app, '/faceswap', { key: user.apiKey, json: { swap_image_url: urls[0], target_image_url: urls[1] } });
    expect(res.status).toBe(200);
    const { task_id } = (await res.json()) as { task_id: string };
    const task = await waitForTask(db, task_id);
    expect(task).toMatchObject({ status: 'finished', percentage: 100 });
    const [id] = upstream.predictions.keys();
    expect(task.result).toMatchObject({ engine: 'replicate-faceswap', method: 'faceswap', simulated: false, upstream_id: id });

    // our loopback media URLs went as data URIs of the stored bytes
    const dataUri = `data:image/png;base64,${png.toString('base64')}`;
    expect(upstream.predictions.get(id)?.input).toEqual({ swap_image: dataUri, input_image: dataUri });
    // the output is ours now: served by /media, byte for byte what Replicate delivered
    expect(task.image_url).toBe(`http://localhost:8080/media/${task_id}-image.png`);
    const stored = await h.media.get(h.media.keyOf(task.image_url!)!);
    expect(createHash('sha256').update(stored!.data).digest('hex')).toBe(createHash('sha256').update(FAKE_OUTPUT_PNG).digest('hex'));
    expect((await readTask(db, task_id)).refund).toBe(0);
  });
});
