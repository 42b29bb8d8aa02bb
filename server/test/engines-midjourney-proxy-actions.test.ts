/**
 * The midjourney-proxy adapter's actions beyond imagine/U/V/R, against the fake upstream
 * (trueai's superset of the protocol): blend, describe, shorten, the buttons of an upscaled
 * image (pan, zoom out, custom zoom, vary strong/subtle, vary region, upscale subtle/creative)
 * with the modal confirmations they need, the U-then-button path of a grid cell and its
 * resumption, and clear refusals where the upstream offers no such button.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineJob, EngineProgress, ImageInput, ParentRef } from '../src/engines/engine.ts';
import { createMidjourneyProxyEngine } from '../src/engines/midjourney-proxy/index.ts';
import { readPromptList } from '../src/engines/midjourney-proxy/protocol.ts';
import { FAKE_SHORTEN_TEXT, type FakeMidjourneyProxy, type FakeMidjourneyProxyOptions, startFakeMidjourneyProxy } from './support/fake-midjourney-proxy.ts';

const SECRET = 'test-secret';
let upstream: FakeMidjourneyProxy | undefined;

afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

// a 1×1 png
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f0005000201a7d4a3a30000000049454e44ae426082',
  'hex',
);
const picture = (url = 'https://images.example.com/a.png'): ImageInput => ({ url, data: PNG, contentType: 'image/png' });
const PNG_URI = `data:image/png;base64,${PNG.toString('base64')}`;

async function setup(fake: FakeMidjourneyProxyOptions = {}) {
  upstream = await startFakeMidjourneyProxy({ secret: SECRET, scenario: () => ({ outcome: 'success', progress: ['10%', '60%'] }), ...fake });
  const engine = createMidjourneyProxyEngine({ baseUrl: upstream.baseUrl, apiSecret: SECRET, pollIntervalMs: 2 });
  const progress: EngineProgress[] = [];
  const run = (job: EngineJob) => engine.run(job, (p) => progress.push(p), new AbortController().signal);
  const server = upstream;
  const posted = (path: string) => server.requests.filter((r) => r.method === 'POST' && r.path === path).map((r) => r.body);
  /** An imagine grid and its U2 upscale, as parents. */
  const parents = async () => {
    const grid = await run({ kind: 'imagine', prompt: 'a lighthouse on a cliff' });
    const single = await run({ kind: 'upscale', index: 2, type: '1x', parent: { upstreamId: grid.upstreamId, layout: 'grid' } });
    const gridRef: ParentRef = { upstreamId: grid.upstreamId, layout: 'grid', prompt: 'a lighthouse on a cliff' };
    const singleRef: ParentRef = { upstreamId: single.upstreamId, layout: 'single', prompt: 'a lighthouse on a cliff' };
    server.requests.length = 0;
    progress.length = 0;
    return { grid: gridRef, single: singleRef };
  };
  return { engine, run, progress, upstream: server, posted, parents };
}

describe('midjourney-proxy adapter: blend, describe, shorten', () => {
  it('blends 2–5 pictures as data URIs with the dimensions, into a grid', async () => {
    const { run, posted } = await setup();
    const result = await run({ kind: 'blend', images: [picture(), picture(), picture()], dimension: 'landscape' });
    expect(result).toMatchObject({ engine: 'midjourney-proxy', layout: 'grid', simulated: false, width: 2048 });
    expect(posted('/mj/submit/blend')).toEqual([{ base64Array: [PNG_URI, PNG_URI, PNG_URI], dimensions: 'LANDSCAPE' }]);
  });

  it('describes a picture sent as a data URI and reads the four prompts without their keycaps', async () => {
    const { run, posted } = await setup();
    const result = await run({ kind: 'describe', image: picture() });
    expect(posted('/mj/submit/describe')).toEqual([{ base64: PNG_URI }]);
    expect(result).toMatchObject({ layout: 'none', images: [], simulated: false });
    expect(result.texts).toEqual([
      'a red fox in fresh snow, golden hour --ar 3:2',
      'fox portrait, winter forest --ar 3:2',
      'a wild animal in the snow, soft light --ar 3:2',
      'red fur against white, minimalism --ar 3:2',
    ]);
  });

  it('shortens a prompt: the shortened prompts as texts, the analysis as full_content', async () => {
    const { run, posted } = await setup();
    const result = await run({ kind: 'shorten', prompt: 'a very beautiful lighthouse on a cliff at sunset' });
    expect(posted('/mj/submit/shorten')).toEqual([{ prompt: 'a very beautiful lighthouse on a cliff at sunset' }]);
    expect(result.texts).toEqual(['lighthouse on a cliff at sunset', 'lighthouse, cliff, sunset', 'lighthouse sunset']);
    expect(result.data).toEqual({ full_content: FAKE_SHORTEN_TEXT });
  });

  it('reads prompt lists leniently', () => {
    expect(readPromptList('1️⃣ one\n2️⃣ two')).toEqual(['one', 'two']);
    expect(readPromptList('first idea\n\nsecond idea')).toEqual(['first idea', 'second idea']);
    expect(readPromptList(null)).toEqual([]);
  });

  it('fails a shorten that finished without text, keeping the upstream id', async () => {
    const { run } = await setup();
    // an imagine's task has an image but no analysis: resume a shorten on it
    const imagine = await run({ kind: 'imagine', prompt: 'x' });
    await expect(run({ kind: 'shorten', prompt: 'x', resumeUpstreamId: imagine.upstreamId })).rejects.toMatchObject({
      code: 'upstream_failed',
      upstreamId: imagine.upstreamId,
    });
  });
});

describe('midjourney-proxy adapter: the buttons of an upscaled image', () => {
  it.each([
    ['pan left', { kind: 'pan', direction: 'left' }, 'MJ::JOB::pan_left::1::'],
    ['pan up', { kind: 'pan', direction: 'up' }, 'MJ::JOB::pan_up::1::'],
    ['zoom out 2x', { kind: 'outpaint', zoom: 2 }, 'MJ::Outpaint::50::1::'],
    ['zoom out 1.5x', { kind: 'outpaint', zoom: 1.5 }, 'MJ::Outpaint::75::1::'],
    ['vary strong', { kind: 'vary', type: 'strong' }, 'MJ::JOB::high_variation::1::'],
    ['vary subtle', { kind: 'vary', type: 'subtle' }, 'MJ::JOB::low_variation::1::'],
  ] as const)('%s presses its button on the upscaled parent and answers a grid', async (_name, action, prefix) => {
    const { run, posted, parents } = await setup({ scenario: () => ({ outcome: 'success', progress: ['5%'], withCells: true }) });
    const { single } = await parents();
    const result = await run({ ...action, parent: single } as EngineJob);
    expect(result).toMatchObject({ layout: 'grid', simulated: false });
    expect(result.images).toHaveLength(4);
    const [press] = posted('/mj/submit/action');
    expect(press).toEqual({ taskId: single.upstreamId, customId: `${prefix}hash-${single.upstreamId}::SOLO` });
    expect(posted('/mj/submit/change')).toEqual([]);
    expect(posted('/mj/submit/modal')).toEqual([]);
  });

  it('confirms Custom Zoom in its modal with the prompt, --ar and --zoom', async () => {
    const { run, posted, parents } = await setup();
    const { single } = await parents();
    const result = await run({ kind: 'outpaint', parent: { ...single, prompt: 'a lighthouse --ar 1:1' }, zoom: 1, aspectRatio: '16:9' });
    expect(posted('/mj/submit/action')).toEqual([{ taskId: single.upstreamId, customId: `MJ::CustomZoom::1::hash-${single.upstreamId}` }]);
    expect(posted('/mj/submit/modal')).toEqual([{ taskId: result.upstreamId, prompt: 'a lighthouse --ar 16:9 --zoom 1' }]);
    // a zoom out 2x with a prompt for the new area is a Custom Zoom too
    await run({ kind: 'outpaint', parent: single, zoom: 2, prompt: 'a stormy sea' });
    expect(posted('/mj/submit/modal')[1]).toMatchObject({ prompt: 'a stormy sea --zoom 2' });
  });

  it('confirms Vary (Region) in its modal with the mask as a data URI and the prompt', async () => {
    const { run, posted, parents, progress } = await setup();
    const { single } = await parents();
    const result = await run({ kind: 'inpaint', parent: single, mask: picture('https://api.example.com/media/mask.png'), prompt: 'a red balloon' });
    expect(result.layout).toBe('grid');
    const [press] = posted('/mj/submit/action');
    expect(press).toEqual({ taskId: single.upstreamId, customId: `MJ::Inpaint::1::hash-${single.upstreamId}::SOLO` });
    expect(posted('/mj/submit/modal')).toEqual([{ taskId: result.upstreamId, prompt: 'a red balloon', maskBase64: PNG_URI }]);
    // the task reported once accepted, progress only rising
    expect(progress.find((p) => p.upstreamId)?.upstreamId).toBe(result.upstreamId);
    const percentages = progress.map((p) => p.percentage);
    expect(percentages).toEqual([...percentages].sort((a, b) => a - b));
  });

  it('on a grid parent, upscales the cell first (U index) and presses the button on that, reporting both steps', async () => {
    const { run, posted, parents, progress, upstream } = await setup();
    const { grid } = await parents();
    const result = await run({ kind: 'pan', parent: grid, index: 3, direction: 'right' });
    expect(posted('/mj/submit/change')).toEqual([{ taskId: grid.upstreamId, action: 'UPSCALE', index: 3 }]);
    const [press] = posted('/mj/submit/action');
    const upscaled = (press as { taskId: string }).taskId;
    expect(upscaled).not.toBe(grid.upstreamId);
    expect((press as { customId: string }).customId).toBe(`MJ::JOB::pan_right::1::hash-${upscaled}::SOLO`);
    const ids = progress.map((p) => p.upstreamId).filter(Boolean);
    expect(ids).toEqual([`u:${upscaled}`, result.upstreamId]);
    const percentages = progress.map((p) => p.percentage);
    expect(percentages).toEqual([...percentages].sort((a, b) => a - b));
    expect(Math.max(...percentages.filter((p) => p < 100))).toBeGreaterThanOrEqual(30);
    expect(upstream.requests.every((r) => r.headers['mj-api-secret'] === SECRET)).toBe(true);
  });

  it('resumes a two-step job from its U step without upscaling again', async () => {
    const { run, posted, parents } = await setup();
    const { grid } = await parents();
    const first = await run({ kind: 'upscale', index: 4, type: '1x', parent: grid });
    const result = await run({ kind: 'vary', type: 'subtle', parent: grid, index: 4, resumeUpstreamId: `u:${first.upstreamId}` });
    expect(result.layout).toBe('grid');
    // only the plain U of `first`: the resumed job upscaled nothing more
    expect(posted('/mj/submit/change')).toHaveLength(1);
    expect(posted('/mj/submit/action')).toEqual([{ taskId: first.upstreamId, customId: `MJ::JOB::low_variation::1::hash-${first.upstreamId}::SOLO` }]);
  });

  it('runs an Upscale (Creative) of a grid cell as U then the creative button', async () => {
    const { run, posted, parents } = await setup();
    const { grid } = await parents();
    const result = await run({ kind: 'upscale', index: 1, type: 'creative', parent: grid });
    expect(result.layout).toBe('single');
    const [press] = posted('/mj/submit/action');
    expect((press as { customId: string }).customId).toMatch(/^MJ::JOB::upsample_v6_2x_creative::1::/);
  });

  it('refuses clearly where the upstream has no such button (a grid taken for an upscaled image)', async () => {
    const { run, parents } = await setup();
    const { grid } = await parents();
    await expect(run({ kind: 'pan', parent: { ...grid, layout: 'single' }, direction: 'up' })).rejects.toMatchObject({
      code: 'unsupported',
      message: 'Pan up is not available for this image.',
    });
    await expect(run({ kind: 'vary', type: 'strong', parent: grid })).rejects.toMatchObject({ code: 'invalid_input' });
  });
});

describe('midjourney-proxy adapter: imagine shapes and rerolls', () => {
  it('appends --ar for an aspect ratio, unless the prompt has one', async () => {
    const { run, posted } = await setup();
    await run({ kind: 'imagine', prompt: 'a valley', aspectRatio: '16:9' });
    await run({ kind: 'imagine', prompt: 'a valley --ar 2:3', aspectRatio: '16:9' });
    expect(posted('/mj/submit/imagine')).toEqual([{ prompt: 'a valley --ar 16:9' }, { prompt: 'a valley --ar 2:3' }]);
  });

  it('rerolls with a new prompt as a new imagine, and without one as R', async () => {
    const { run, posted, parents } = await setup();
    const { grid } = await parents();
    await run({ kind: 'reroll', parent: grid, prompt: 'a lighthouse in fog' });
    await run({ kind: 'reroll', parent: grid });
    expect(posted('/mj/submit/imagine')).toEqual([{ prompt: 'a lighthouse in fog' }]);
    expect(posted('/mj/submit/change')).toEqual([{ taskId: grid.upstreamId, action: 'REROLL' }]);
  });

  it('maps an upstream refusal of an action (code 4) to invalid_input', async () => {
    const { run } = await setup();
    const imagine = await run({ kind: 'imagine', prompt: 'x' });
    const upscaled = await run({ kind: 'upscale', type: '1x', index: 1, parent: { upstreamId: imagine.upstreamId } });
    // U of an upscale: novicezk refuses (its parent must be a grid)
    await expect(run({ kind: 'upscale', type: '1x', index: 1, parent: { upstreamId: upscaled.upstreamId } })).rejects.toMatchObject({ code: 'invalid_input' });
  });
});
