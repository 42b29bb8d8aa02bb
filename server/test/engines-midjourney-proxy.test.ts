import { afterEach, describe, expect, it } from 'vitest';
import type { EngineJob, EngineProgress } from '../src/engines/engine.ts';
import { createMidjourneyProxyEngine, type MidjourneyProxyOptions } from '../src/engines/midjourney-proxy/index.ts';
import { mapStatus, parseProgress } from '../src/engines/midjourney-proxy/protocol.ts';
import { type FakeMidjourneyProxy, type FakeMidjourneyProxyOptions, startFakeMidjourneyProxy } from './support/fake-midjourney-proxy.ts';

const SECRET = 'test-secret';
let upstream: FakeMidjourneyProxy | undefined;

afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

async function setup(fake: FakeMidjourneyProxyOptions = {}, adapter: Partial<MidjourneyProxyOptions> = {}) {
  upstream = await startFakeMidjourneyProxy({ secret: SECRET, ...fake });
  const engine = createMidjourneyProxyEngine({ baseUrl: upstream.baseUrl, apiSecret: SECRET, pollIntervalMs: 5, ...adapter });
  const progress: EngineProgress[] = [];
  const run = (job: EngineJob, signal = new AbortController().signal) => engine.run(job, (p) => progress.push(p), signal);
  return { engine, run, progress, upstream };
}

describe('midjourney-proxy protocol mapping', () => {
  it.each([
    ['0%', 0],
    ['45%', 45],
    [' 7 % ', 7],
    ['100%', 100],
    ['12.7%', 12],
    ['88', 88],
    [63, 63],
    ['130%', 100],
    ['', undefined],
    [null, undefined],
    ['in queue', undefined],
    ['-5%', undefined],
  ] as const)('progress %j reads as %s', (input, expected) => {
    expect(parseProgress(input)).toBe(expected);
  });

  it.each([
    ['NOT_START', { kind: 'active', stage: 'queued' }],
    ['SUBMITTED', { kind: 'active', stage: 'submitted' }],
    ['IN_PROGRESS', { kind: 'active', stage: 'processing' }],
    ['MODAL', { kind: 'active', stage: 'processing' }],
    ['SUCCESS', { kind: 'success' }],
    ['FAILURE', { kind: 'failure' }],
    ['CANCEL', { kind: 'cancelled' }],
  ] as const)('status %s maps to %j', (status, expected) => {
    expect(mapStatus(status)).toEqual(expected);
  });
});

describe('midjourney-proxy adapter against the fake upstream', () => {
  it('submits an imagine, follows the progress strings monotonically and returns the image URL', async () => {
    const { run, progress, upstream } = await setup({
      scenario: () => ({ outcome: 'success', progress: ['0%', '15%', '46%', '31%', '92%'], seed: '4242', withCells: true }),
    });
    const result = await run({ kind: 'imagine', prompt: 'a red fox in snow' });

    expect(result).toMatchObject({ engine: 'midjourney-proxy', simulated: false, layout: 'grid', seed: 4242, width: 2048, height: 2048 });
    expect(result.image).toEqual({ source: 'url', url: `${upstream.baseUrl}/images/${result.upstreamId}.png`, width: 2048, height: 2048 });
    expect(result.images.map((i) => (i.source === 'url' ? i.url : ''))).toEqual(
      [1, 2, 3, 4].map((i) => `${upstream.baseUrl}/images/${result.upstreamId}-${i}.png`),
    );
    expect(progress.map((p) => p.percentage)).toEqual([0, 0, 15, 46, 92, 100]);
    expect(progress.find((p) => p.upstreamId)?.upstreamId).toBe(result.upstreamId);
    const statuses = progress.map((p) => p.status).filter((s, i, all) => s !== undefined && s !== all[i - 1]);
    expect(statuses).toEqual(['starting', 'submitted', 'processing']);

    const submit = upstream.requests.find((r) => r.path === '/mj/submit/imagine');
    expect(submit?.body).toEqual({ prompt: 'a red fox in snow' });
    expect(upstream.requests.every((r) => r.headers['mj-api-secret'] === SECRET)).toBe(true);
  });

  it('fails with the upstream failReason, not retryable, keeping the upstream id', async () => {
    const { run } = await setup({ scenario: () => ({ outcome: 'failure', progress: ['0%', '20%'], failReason: 'Invalid parameter --ar 99:1' }) });
    const error = await run({ kind: 'imagine', prompt: 'cat --ar 99:1' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'EngineError', code: 'upstream_failed', retryable: false, message: 'Invalid parameter --ar 99:1' });
    expect((error as { upstreamId?: string }).upstreamId).toMatch(/^\d+$/);
  });

  it('maps the banned prompt code (24) to banned_prompt with the banned word', async () => {
    const { run, upstream } = await setup({
      scenario: ({ prompt }) => (prompt?.includes('gore') ? { outcome: 'banned', bannedWord: 'gore' } : { outcome: 'success', progress: [] }),
    });
    await expect(run({ kind: 'imagine', prompt: 'lots of gore' })).rejects.toMatchObject({
      code: 'banned_prompt',
      retryable: false,
      message: 'Your prompt contains a banned word: gore',
    });
    expect(upstream.requests.some((r) => r.path.endsWith('/fetch'))).toBe(false);
  });

  it.each([
    [23, 'upstream_busy', true],
    [9, 'upstream_unavailable', true],
    [4, 'invalid_input', false],
  ] as const)('maps submit code %i to %s (retryable %s)', async (code, expected, retryable) => {
    const { run } = await setup({ scenario: () => ({ outcome: 'submit-code', code, description: 'scripted' }) });
    await expect(run({ kind: 'imagine', prompt: 'x' })).rejects.toMatchObject({ code: expected, retryable });
  });

  it('reports a wrong API secret as an auth problem, without retry', async () => {
    const { run } = await setup({}, { apiSecret: 'wrong' });
    await expect(run({ kind: 'imagine', prompt: 'x' })).rejects.toMatchObject({ code: 'upstream_auth', retryable: false });
  });

  it('reports an unreachable upstream as retryable', async () => {
    const { run, upstream } = await setup();
    await upstream.close();
    await expect(run({ kind: 'imagine', prompt: 'x' })).rejects.toMatchObject({ code: 'upstream_unavailable', retryable: true });
  });

  it('submits variation, reroll and U actions against the parent upstream id', async () => {
    const { run, upstream } = await setup({ scenario: () => ({ outcome: 'success', progress: ['10%'] }) });
    const parent = await run({ kind: 'imagine', prompt: 'a castle' });
    const ref = { upstreamId: parent.upstreamId };
    const variation = await run({ kind: 'variation', index: 3, parent: ref });
    const reroll = await run({ kind: 'reroll', parent: ref });
    const upscale = await run({ kind: 'upscale', index: 2, type: '1x', parent: ref });
    expect(variation.layout).toBe('grid');
    expect(reroll.layout).toBe('grid');
    expect(upscale).toMatchObject({ layout: 'single', width: 1024 });
    expect(upscale.images).toEqual([upscale.image]);
    expect(upstream.requests.filter((r) => r.path === '/mj/submit/change').map((r) => r.body)).toEqual([
      { taskId: parent.upstreamId, action: 'VARIATION', index: 3 },
      { taskId: parent.upstreamId, action: 'REROLL' },
      { taskId: parent.upstreamId, action: 'UPSCALE', index: 2 },
    ]);
  });

  it('runs subtle and creative upscales through the matching button of the upscaled parent', async () => {
    const { run, upstream } = await setup({ scenario: () => ({ outcome: 'success', progress: [] }) });
    const grid = await run({ kind: 'imagine', prompt: 'a castle' });
    const single = await run({ kind: 'upscale', index: 1, type: '1x', parent: { upstreamId: grid.upstreamId } });
    await run({ kind: 'upscale', index: 1, type: 'creative', parent: { upstreamId: single.upstreamId } });
    const action = upstream.requests.find((r) => r.path === '/mj/submit/action');
    expect(action?.body).toEqual({ taskId: single.upstreamId, customId: `MJ::JOB::upsample_v6_2x_creative::1::hash-${single.upstreamId}::SOLO` });
    // the fake offers no 4x button on this image: a clear refusal, not a guess
    await expect(run({ kind: 'upscale', index: 1, type: '4x', parent: { upstreamId: single.upstreamId } })).rejects.toMatchObject({
      code: 'unsupported',
    });
  });

  it('refuses derived actions without a parent upstream id', async () => {
    const { run } = await setup();
    await expect(run({ kind: 'variation', index: 1, parent: {} })).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('reads the seed from /image-seed, or returns a known one without asking', async () => {
    const { run, upstream } = await setup({ scenario: () => ({ outcome: 'success', progress: [], seed: '987654321' }) });
    const parent = await run({ kind: 'imagine', prompt: 'x' });
    expect(await run({ kind: 'seed', parent: { upstreamId: parent.upstreamId } })).toMatchObject({ layout: 'none', seed: 987654321 });
    const asked = upstream.requests.length;
    expect(await run({ kind: 'seed', parent: { upstreamId: parent.upstreamId, seed: 5 } })).toMatchObject({ seed: 5 });
    expect(upstream.requests).toHaveLength(asked);
  });

  it('resumes watching a previously submitted task instead of submitting again', async () => {
    const { run, upstream } = await setup({ scenario: () => ({ outcome: 'success', progress: ['50%', '60%', '70%'] }) });
    const first = await run({ kind: 'imagine', prompt: 'x' });
    const submits = upstream.requests.filter((r) => r.path.startsWith('/mj/submit')).length;
    const resumed = await run({ kind: 'imagine', prompt: 'x', resumeUpstreamId: first.upstreamId });
    expect(resumed.upstreamId).toBe(first.upstreamId);
    expect(upstream.requests.filter((r) => r.path.startsWith('/mj/submit')).length).toBe(submits);
  });

  it('fails a task the upstream no longer knows', async () => {
    const { run } = await setup();
    await expect(run({ kind: 'imagine', prompt: 'x', resumeUpstreamId: '123' })).rejects.toMatchObject({ code: 'upstream_failed', retryable: false });
  });

  it('gives up after the timeout, retryably, with the upstream id to resume', async () => {
    const { run } = await setup({ scenario: () => ({ outcome: 'success', progress: Array.from({ length: 1000 }, () => '10%') }) }, { timeoutMs: 60 });
    await expect(run({ kind: 'imagine', prompt: 'x' })).rejects.toMatchObject({ code: 'timeout', retryable: true, upstreamId: expect.any(String) });
  });

  it('stops polling when aborted', async () => {
    const { run, upstream } = await setup(
      { scenario: () => ({ outcome: 'success', progress: Array.from({ length: 1000 }, () => '10%') }) },
      { pollIntervalMs: 20 },
    );
    const controller = new AbortController();
    const running = run({ kind: 'imagine', prompt: 'x' }, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 80));
    controller.abort();
    await expect(running).rejects.toMatchObject({ code: 'aborted' });
    // a poll already on the wire when the abort came may still reach the upstream: let it land
    await new Promise((resolve) => setTimeout(resolve, 50));
    const count = upstream.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(upstream.requests.length).toBe(count);
  });

  it('submits an imagine that asks for turbo through the turbo base, and polls on the default one', async () => {
    const { run, upstream } = await setup();
    const origin = upstream.baseUrl.replace(/\/mj$/, '');
    const engine = createMidjourneyProxyEngine({
      baseUrl: upstream.baseUrl,
      apiSecret: SECRET,
      pollIntervalMs: 5,
      modeBaseUrls: { turbo: `${origin}/mj-turbo/mj` },
    });
    await engine.run({ kind: 'imagine', prompt: 'x', mode: 'turbo' }, () => {}, new AbortController().signal);
    await run({ kind: 'imagine', prompt: 'y', mode: 'fast' });
    const submits = upstream.requests.filter((r) => r.path === '/mj/submit/imagine').map((r) => r.url);
    expect(submits).toEqual(['/mj-turbo/mj/submit/imagine', '/mj/submit/imagine']);
    expect(upstream.requests.filter((r) => r.path.endsWith('/fetch')).every((r) => r.url.startsWith('/mj/task/'))).toBe(true);
  });

  it('does not run flux or ideogram jobs', async () => {
    const { engine } = await setup();
    expect(engine.supports('flux-imagine')).toBe(false);
    expect(engine.supports('ideogram-imagine')).toBe(false);
  });
});
