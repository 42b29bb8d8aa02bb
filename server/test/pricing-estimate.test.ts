import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { actionPrices, priceOf } from '../src/services/pricing/catalog.ts';
import { createUser, expectErrorBody, post, type TestUser } from './helpers.ts';
import { createLocalEngine } from '../src/engines/local/index.ts';
import { balanceOf, grantCredits, openTestDb, scriptedEngine, TEST_CELL_SIZE, taskHarness, waitForTask, type TaskHarness } from './support/tasks.ts';

type Schema = { $ref?: string; example?: unknown };
type Operation = {
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
};
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

const EXAMPLE_PARENT_ID = '8d2f1a64-5b3c-4e7d-9f10-2a3b4c5d6e7f';
/** The create calls whose example names a Midjourney grid as its parent. */
const GRID_CHILDREN = new Set([
  '/pro/variations',
  '/pro/upscale',
  '/pro/reroll',
  '/pro/seed',
  '/upscale-1x',
  '/reroll',
  '/seed',
  '/pro/vary',
  '/pro/zoom',
  '/pro/pan',
]);
/** The v1 calls whose example names an upscaled image (U1–U4) as its parent. */
const UPSCALE_CHILDREN = new Set(['/variations', '/upscale-alt', '/upscale-highres', '/outpaint', '/pan']);

describe('the price list', () => {
  it('lists every action through priceOf, the function the holds use', () => {
    const list = actionPrices();
    expect(list.length).toBeGreaterThan(40);
    for (const a of list) expect(a.credits, a.type).toBe(priceOf(a.type));
    expect(list).toContainEqual({ type: 'imagine', credits: 4, per: null });
    expect(list).toContainEqual({ type: 'upscale#2', credits: 2, per: null });
    expect(list).toContainEqual({ type: 'kling-video', credits: 3, per: 'second' });
  });
});

// Issue 23, part 5: GET /pricing and POST /estimate/<create path>, on both databases.
describe.each(testDatabaseKinds())('pricing and estimates on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let user: TestUser;
  let doc: Doc;
  let gridId: string;
  let upscaleId: string;
  let imageUrl: string;

  beforeAll(async () => {
    db = await openTestDb(kind);
    // the local engine makes the grid the Midjourney actions start from; the scripted one takes every other kind (never run here)
    h = await taskHarness(db, [createLocalEngine({ cellSize: TEST_CELL_SIZE }), scriptedEngine('scripted')]);
    const worker = h.worker();
    await worker.start();
    user = await createUser(db);
    await grantCredits(db, user.id, 100_000);
    doc = (await (await h.app.request('/openapi.json')).json()) as Doc;
    const grid = await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt: 'a lighthouse' } });
    gridId = ((await grid.json()) as { task_id: string }).task_id;
    const form = new FormData();
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer();
    form.set('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'me.png');
    const upload = await h.app.request('/upload', { method: 'POST', headers: { authorization: user.apiKey }, body: form });
    expect(upload.status).toBe(200);
    imageUrl = ((await upload.json()) as { imageURL: string }).imageURL;
    await waitForTask(db, gridId);
    const upscale = await post(h.app, '/upscale-1x', { key: user.apiKey, json: { parent_task_id: gridId, index: 2 } });
    upscaleId = ((await upscale.json()) as { task_id: string }).task_id;
    await waitForTask(db, upscaleId);
    // nothing runs the tasks made below: the balance moves only with their holds
    await worker.stop();
  });
  afterAll(async () => {
    await h?.cleanup();
    await db?.close();
  });

  const taskCount = async () => (await db.query<{ n: number }>('select count(*)::int as n from public.tasks where user_id = $1', [user.id])).rows[0].n;

  it('answers GET /pricing without a key, from the same catalog as /billing/config', async () => {
    const res = await h.app.request('/pricing');
    expect(res.status).toBe(200);
    const list = (await res.json()) as Record<string, unknown>;
    expect(list.actions).toEqual(actionPrices());
    const config = (await (await h.app.request('/billing/config', { headers: { authorization: user.apiKey } })).json()) as Record<string, unknown>;
    for (const field of ['actions', 'plans', 'topup', 'trial', 'auto_topup']) expect(list[field], field).toEqual(config[field]);
    expect(list.plans).toContainEqual({ id: 'basic', label: 'Basic', amount: 39, credits: 1000 });
  });

  it('estimates every create call of the OpenAPI document as the hold its real submit takes, creating nothing', async () => {
    const creates = Object.entries(doc.paths)
      .filter(([, ops]) => ops.post?.responses?.['200']?.content?.['application/json']?.schema?.$ref === '#/components/schemas/TaskIdResponse')
      .map(([path, ops]) => {
        const schema = ops.post.requestBody?.content?.['application/json']?.schema ?? {};
        const example = schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop() as string].example : schema.example;
        let body = JSON.stringify(example ?? {}).replaceAll(/https:\/\/(api\.example\.com\/media\/upload-|images\.example\.com\/)[^"]*\.(png|jpg)/g, imageUrl);
        if (GRID_CHILDREN.has(path)) body = body.replaceAll(EXAMPLE_PARENT_ID, gridId);
        if (UPSCALE_CHILDREN.has(path)) body = body.replaceAll(EXAMPLE_PARENT_ID, upscaleId);
        return [path, JSON.parse(body) as Record<string, unknown>] as const;
      });
    expect(creates.length).toBeGreaterThanOrEqual(40);
    const priced: string[] = [];
    const refused: string[] = [];
    for (const [path, json] of creates) {
      const before = { tasks: await taskCount(), balance: await balanceOf(db, user.id) };
      const estimate = await post(h.app, `/estimate${path}`, { key: user.apiKey, json });
      const estimated = (await estimate.json()) as { credits: number; task_type: string; sufficient: boolean; balance: number; operation: string };
      expect({ tasks: await taskCount(), balance: await balanceOf(db, user.id) }, path).toEqual(before);
      const submit = await post(h.app, path, { key: user.apiKey, json });
      const submitted = (await submit.json()) as { task_id?: string };
      expect(submit.status, `${path}: ${JSON.stringify(estimated)} vs ${JSON.stringify(submitted)}`).toBe(estimate.status);
      if (estimate.status !== 200) {
        refused.push(`${path} ${estimate.status}`);
        // a body the call refuses: the estimate answers the very same refusal
        expect(estimated, path).toEqual(submitted);
        continue;
      }
      priced.push(path);
      const { rows } = await db.query<{ cost: number; type: string; delta: number }>(
        `select t.cost, t.type, l.delta from public.tasks t join public.credit_ledger l on l.task_id = t.id and l.source_key = 'hold:' || t.id where t.id = $1`,
        [submitted.task_id],
      );
      expect(estimated, path).toEqual({
        operation: `POST ${path}`,
        task_type: rows[0].type,
        credits: rows[0].cost,
        balance: before.balance.credits,
        sufficient: true,
      });
      expect(rows[0].delta, path).toBe(-rows[0].cost);
    }
    // with these fixtures 37 of 44 calls are priced; the others are refused alike (an example parent that does not exist, an example mask or photos that are not pictures)
    expect(priced.length, JSON.stringify({ priced, refused })).toBeGreaterThanOrEqual(37);
    for (const path of [
      '/pro/imagine',
      '/imagine',
      '/pro/upscale',
      '/pro/variations',
      '/pro/vary',
      '/upscale-1x',
      '/seed',
      '/faceswap',
      '/kling-imagine',
      '/suno-imagine',
    ])
      expect(priced, path).toContain(path);
  });

  it('says when the balance does not cover the call, and the call then answers 402', async () => {
    const poor = await createUser(db);
    await grantCredits(db, poor.id, 1);
    const res = await post(h.app, '/estimate/pro/imagine', { key: poor.apiKey, json: { prompt: 'a boat' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ operation: 'POST /pro/imagine', task_type: 'imagine', credits: 4, balance: 1, sufficient: false });
    expect((await post(h.app, '/pro/imagine', { key: poor.apiKey, json: { prompt: 'a boat' } })).status).toBe(402);
  });

  it('refuses what is not a create call, a missing key, and a body the call refuses', async () => {
    const upload = await post(h.app, '/estimate/upload', { key: user.apiKey, json: {} });
    expect(upload.status).toBe(404);
    expect((await expectErrorBody(upload)).msg).toMatch(/^No create call POST \/upload to estimate/);
    expect((await post(h.app, '/estimate/pro/imagine', { json: { prompt: 'x' } })).status).toBe(401);
    const bad = await post(h.app, '/estimate/pro/imagine', { key: user.apiKey, json: { prompt: '' } });
    expect(bad.status).toBe(400);
    expect((await expectErrorBody(bad)).msg).toMatch(/^prompt: /);
  });

  it('documents GET /pricing (public) and POST /estimate/{operation} (API key)', () => {
    expect(doc.paths['/pricing'].get).toBeDefined();
    expect((doc.paths['/pricing'].get as { security?: unknown }).security).toBeUndefined();
    expect(doc.paths['/estimate/{operation}'].post).toMatchObject({ security: [{ apiKey: [] }] });
  });
});
