/**
 * Contract tests of the Replicate face-swap adapter against support/fake-replicate.ts, which
 * speaks the documented predictions protocol: bearer auth, 201 on create, statuses, problem
 * details errors, 429 with retry-after, 5xx.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineJob, EngineProgress, ImageInput } from '../src/engines/engine.ts';
import {
  createReplicateFaceswapEngine,
  DEFAULT_FACESWAP_MODEL,
  type ReplicateFaceswapOptions,
  replicateFaceswapOptionsFromEnv,
} from '../src/engines/replicate/index.ts';
import { failureMessage, mapStatus, parseModelRef, progressFromLogs, readOutputUrl, retryAfterMs } from '../src/engines/replicate/protocol.ts';
import { enginesFromEnv } from '../src/workers/runtime.ts';
import { FAKE_FACESWAP_MODEL, type FakeReplicate, type FakeReplicateOptions, startFakeReplicate } from './support/fake-replicate.ts';

const TOKEN = 'r8_test_token';
const VERSIONED = `${FAKE_FACESWAP_MODEL.owner}/${FAKE_FACESWAP_MODEL.name}:${FAKE_FACESWAP_MODEL.version}`;
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

// a public https picture (sent as its URL) and one of our embedded-mode media URLs (sent as bytes)
const publicImage: ImageInput = { url: 'https://images.example.com/face.png', data: PNG, contentType: 'image/png' };
const localImage: ImageInput = { url: 'http://localhost:8080/media/upload-1.png', data: PNG, contentType: 'image/png' };
const job = (over: Partial<Extract<EngineJob, { kind: 'faceswap' }>> = {}): EngineJob => ({
  kind: 'faceswap',
  source: publicImage,
  target: localImage,
  ...over,
});

let upstream: FakeReplicate | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

async function setup(fake: Partial<FakeReplicateOptions> = {}, adapter: Partial<ReplicateFaceswapOptions> = {}) {
  const fakeUpstream = await startFakeReplicate({ token: TOKEN, ...fake });
  upstream = fakeUpstream;
  const engine = createReplicateFaceswapEngine({
    apiToken: TOKEN,
    model: VERSIONED,
    baseUrl: fakeUpstream.baseUrl,
    pollIntervalMs: 5,
    maxPollIntervalMs: 20,
    ...adapter,
  });
  const progress: EngineProgress[] = [];
  const run = (j: EngineJob = job(), signal = new AbortController().signal) => engine.run(j, (p) => progress.push(p), signal);
  return { engine, run, progress, upstream: fakeUpstream };
}

describe('Replicate protocol mapping', () => {
  it.each([
    ['starting', { kind: 'active', stage: 'starting' }],
    ['processing', { kind: 'active', stage: 'processing' }],
    ['succeeded', { kind: 'succeeded' }],
    ['failed', { kind: 'failed' }],
    ['canceled', { kind: 'canceled' }],
    ['aborted', { kind: 'aborted' }],
    ['something-new', { kind: 'active', stage: 'processing' }],
  ] as const)('status %s maps to %j', (status, expected) => {
    expect(mapStatus(status)).toEqual(expected);
  });

  it.each([
    ['cdingram/face-swap', { owner: 'cdingram', name: 'face-swap' }],
    [VERSIONED, { owner: 'cdingram', name: 'face-swap', version: FAKE_FACESWAP_MODEL.version }],
    ['face-swap', undefined],
    ['a/b:notahexversion', undefined],
    ['a/b/c', undefined],
  ])('model reference %s reads as %j', (text, expected) => {
    expect(parseModelRef(text)).toEqual(expected);
  });

  it.each([
    ['3', 3000],
    ['0.5', 500],
    ['soon', undefined],
    [null, undefined],
  ])('retry-after %j is %s ms', (header, expected) => {
    expect(retryAfterMs(header)).toBe(expected);
  });

  it('reads an HTTP-date retry-after relative to now', () => {
    const now = Date.parse('2026-11-24T10:00:00Z');
    expect(retryAfterMs('Tue, 24 Nov 2026 10:00:05 GMT', now)).toBe(5000);
  });

  it('reads progress bars out of the logs and the output URL out of a file or a list', () => {
    expect(progressFromLogs('loading\n  5%|\n 42%|####')).toBe(42);
    expect(progressFromLogs('no bar here')).toBeUndefined();
    expect(readOutputUrl('https://replicate.delivery/x/out.png')).toBe('https://replicate.delivery/x/out.png');
    expect(readOutputUrl(['https://replicate.delivery/x/out.png'])).toBe('https://replicate.delivery/x/out.png');
    expect(readOutputUrl(null)).toBeUndefined();
    expect(readOutputUrl({ image: 'x' })).toBeUndefined();
  });

  it('tells the user about a missing face plainly and shows only the last line of other errors', () => {
    expect(failureMessage('ValueError: No face detected in swap_image')).toBe('No face was found in the source or the target image.');
    expect(failureMessage('Traceback (most recent call last):\n  File "predict.py"\nIndexError: list index out of range')).toBe(
      'The face swap failed: IndexError: list index out of range',
    );
    expect(failureMessage(null)).toBe('The face swap failed.');
  });
});

describe('Replicate face-swap adapter against the fake upstream', () => {
  it('creates a prediction with the bearer token and the version, polls it to the end and returns the output URL', async () => {
    const { run, progress, upstream } = await setup();
    const result = await run();

    const id = result.upstreamId!;
    expect(result).toMatchObject({ engine: 'replicate-faceswap', method: 'faceswap', simulated: false, layout: 'single' });
    expect(result.image).toEqual({ source: 'url', url: `${upstream.baseUrl}/files/${id}.png` });
    expect(result.images).toEqual([result.image]);

    const create = upstream.requests[0];
    expect(create).toMatchObject({ method: 'POST', path: '/v1/predictions', status: 201 });
    // the public https picture as its URL, our loopback media URL as the bytes
    expect(create.body).toEqual({
      version: FAKE_FACESWAP_MODEL.version,
      input: { swap_image: publicImage.url, input_image: `data:image/png;base64,${PNG.toString('base64')}` },
    });
    expect(upstream.requests.every((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(upstream.requests.slice(1).every((r) => r.method === 'GET' && r.path === `/v1/predictions/${id}`)).toBe(true);

    // monotonic, from submit to 100, through Replicate's statuses; the id reported once known
    const percentages = progress.map((p) => p.percentage);
    expect(percentages).toEqual([...percentages].sort((a, b) => a - b));
    expect(percentages.at(-1)).toBe(100);
    expect(percentages).toContain(10 + Math.floor(60 * 0.85)); // the logged 60 % progress bar
    const statuses = progress.map((p) => p.status).filter((s, i, all) => s !== undefined && s !== all[i - 1]);
    expect(statuses).toEqual(['starting', 'submitted', 'starting', 'processing']);
    expect(progress.find((p) => p.upstreamId)?.upstreamId).toBe(id);
  });

  it('creates through /v1/models/{owner}/{name}/predictions for an unversioned model, with configured input names', async () => {
    const model = { owner: 'acme', name: 'swapper', version: 'f'.repeat(64), inputs: ['source_image', 'target_image'] };
    const { run, upstream } = await setup({ models: [model] }, { model: 'acme/swapper', sourceInput: 'source_image', targetInput: 'target_image' });
    await run(job({ source: localImage, target: publicImage }));
    expect(upstream.requests[0]).toMatchObject({ method: 'POST', path: '/v1/models/acme/swapper/predictions', status: 201 });
    expect(upstream.requests[0].body).toEqual({
      input: { source_image: `data:image/png;base64,${PNG.toString('base64')}`, target_image: publicImage.url },
    });
  });

  it('takes a list output as well as a single file', async () => {
    const { run, upstream } = await setup({ scenario: () => ({ outcome: 'success', output: 'list', steps: [] }) });
    const result = await run();
    expect(result.image).toEqual({ source: 'url', url: `${upstream.baseUrl}/files/${result.upstreamId}.png` });
  });

  it('fails with the model error, not retryable, keeping the prediction id', async () => {
    const { run } = await setup({ scenario: () => ({ outcome: 'failure', error: 'ValueError: no face detected in input_image' }) });
    const error = await run().catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'EngineError',
      code: 'upstream_failed',
      retryable: false,
      message: 'No face was found in the source or the target image.',
    });
    expect((error as { upstreamId?: string }).upstreamId).toMatch(/^fake/);
  });

  it('fails a prediction that succeeded without an output', async () => {
    const { run } = await setup({ scenario: () => ({ outcome: 'success', output: 'none', steps: [] }) });
    await expect(run()).rejects.toMatchObject({ code: 'upstream_failed', retryable: false, message: 'The face swap finished without an image.' });
  });

  it('maps the problem details of a refused create (unknown version, missing input) to a non-retryable rejection', async () => {
    const { run } = await setup({}, { model: `cdingram/face-swap:${'0'.repeat(64)}` });
    const error = await run().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'upstream_rejected', retryable: false, message: 'The face swap service refused the request.' });
    expect((error as { detail: string }).detail).toContain('422 Invalid version or not permitted');

    const wrongNames = await setup({}, { sourceInput: 'face', targetInput: 'image' });
    const missing = await wrongNames.run().catch((e: unknown) => e);
    expect((missing as { detail: string }).detail).toContain('input: swap_image is required');
  });

  it('reports a wrong token as an auth problem, without retry', async () => {
    const { run, upstream } = await setup({}, { apiToken: 'r8_wrong' });
    await expect(run()).rejects.toMatchObject({ code: 'upstream_auth', retryable: false });
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0].status).toBe(401);
  });

  it('waits out a 429 for its retry-after, then creates once', async () => {
    const { run, upstream } = await setup();
    upstream.throttle('create', 1, '1');
    const started = Date.now();
    const result = await run();
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(result.upstreamId).toBeDefined();
    const creates = upstream.requests.filter((r) => r.method === 'POST');
    expect(creates.map((r) => r.status)).toEqual([429, 201]);
    expect(upstream.predictions.size).toBe(1);
  });

  it('fails retryably (for the queue to back off) when throttling persists or asks for too long a wait', async () => {
    const persistent = await setup({}, { maxRateLimitWaits: 2 });
    persistent.upstream.throttle('create', 10, '0');
    await expect(persistent.run()).rejects.toMatchObject({ code: 'upstream_busy', retryable: true });
    expect(persistent.upstream.requests.filter((r) => r.status === 429)).toHaveLength(3);
    await persistent.upstream.close();

    const long = await setup({}, { maxRetryAfterMs: 1000 });
    long.upstream.throttle('create', 1, '120');
    const started = Date.now();
    await expect(long.run()).rejects.toMatchObject({ code: 'upstream_busy', retryable: true });
    expect(Date.now() - started).toBeLessThan(900);
    expect(long.upstream.predictions.size).toBe(0);
  });

  it('fails a create answered with a 5xx retryably, and rides out a few failed polls', async () => {
    const { run, upstream } = await setup();
    upstream.failNext('create', 1, 503);
    await expect(run()).rejects.toMatchObject({ code: 'upstream_unavailable', retryable: true });
    expect(upstream.predictions.size).toBe(0);

    upstream.failNext('get', 2, 502);
    const result = await run();
    expect(result.upstreamId).toBeDefined();
    expect(upstream.requests.filter((r) => r.status === 502)).toHaveLength(2);
  });

  it('fails retryably with the prediction id when polls keep failing, so a retry resumes it', async () => {
    const { run, upstream } = await setup({}, { maxPollFailures: 2 });
    upstream.failNext('get', 5, 500);
    const error = await run().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'upstream_unavailable', retryable: true });
    const id = (error as { upstreamId?: string }).upstreamId;
    expect(id).toMatch(/^fake/);

    upstream.failNext('get', 0, 500);
    const before = upstream.predictions.size;
    const resumed = await run(job({ resumeUpstreamId: id }));
    expect(resumed.upstreamId).toBe(id);
    expect(upstream.predictions.size).toBe(before);
  });

  it('resumes by upstream id without creating again, and starts over when the old prediction is unusable', async () => {
    const { run, upstream } = await setup();
    const first = await run();
    const creates = () => upstream.requests.filter((r) => r.method === 'POST').length;
    expect(creates()).toBe(1);

    // a crash after the submit: the retry watches the same prediction
    const again = await run(job({ resumeUpstreamId: first.upstreamId }));
    expect(again.upstreamId).toBe(first.upstreamId);
    expect(creates()).toBe(1);

    // an hour later the output is gone; an unknown id is gone too: both start a new prediction
    upstream.removeData(first.upstreamId!);
    const fresh = await run(job({ resumeUpstreamId: first.upstreamId }));
    expect(fresh.upstreamId).not.toBe(first.upstreamId);
    const unknown = await run(job({ resumeUpstreamId: 'nonexistent' }));
    expect(unknown.upstreamId).not.toBe('nonexistent');
    expect(creates()).toBe(3);
  });

  it('fails an aborted prediction retryably and creates a new one on the retry', async () => {
    let calls = 0;
    const { run, upstream } = await setup({ scenario: () => (calls++ === 0 ? { outcome: 'aborted' } : { outcome: 'success', steps: [] }) });
    const error = await run().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'upstream_busy', retryable: true });
    const retried = await run(job({ resumeUpstreamId: (error as { upstreamId: string }).upstreamId }));
    expect(retried.upstreamId).not.toBe((error as { upstreamId: string }).upstreamId);
    expect(upstream.predictions.size).toBe(2);
  });

  it('cancels the prediction and fails when it takes too long', async () => {
    const { run, upstream } = await setup({ scenario: () => ({ outcome: 'hang' }) }, { timeoutMs: 150 });
    const error = await run().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'timeout', retryable: false, message: 'The face swap took too long.' });
    const id = (error as { upstreamId: string }).upstreamId;
    expect(upstream.requests.at(-1)).toMatchObject({ method: 'POST', path: `/v1/predictions/${id}/cancel`, status: 200 });
  });

  it('reports a prediction cancelled upstream as a failure', async () => {
    const { run, upstream } = await setup({ scenario: () => ({ outcome: 'hang' }) });
    const running = run();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const [id] = upstream.predictions.keys();
    upstream.predictions.get(id)!.canceled = true;
    await expect(running).rejects.toMatchObject({ code: 'upstream_failed', retryable: false, upstreamId: id });
  });

  it('settles at once when the run is aborted, without cancelling upstream (a retry resumes it)', async () => {
    const { run, upstream } = await setup({ scenario: () => ({ outcome: 'hang' }) });
    const controller = new AbortController();
    const running = run(job(), controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 30));
    controller.abort(new Error('worker stopping'));
    await expect(running).rejects.toMatchObject({ code: 'aborted' });
    expect(upstream.requests.some((r) => r.path.endsWith('/cancel'))).toBe(false);
  });

  it('reports an unreachable upstream as retryable', async () => {
    const { run, upstream } = await setup();
    await upstream.close();
    await expect(run()).rejects.toMatchObject({ code: 'upstream_unavailable', retryable: true });
  });

  it('refuses jobs of other kinds', async () => {
    const { run } = await setup();
    await expect(run({ kind: 'imagine', prompt: 'x' })).rejects.toMatchObject({ code: 'unsupported' });
  });
});

describe('Replicate configuration', () => {
  it('is off without REPLICATE_API_TOKEN and reads the model and input names from the environment', () => {
    expect(replicateFaceswapOptionsFromEnv({})).toBeUndefined();
    expect(replicateFaceswapOptionsFromEnv({ REPLICATE_API_TOKEN: '  ' })).toBeUndefined();
    expect(
      replicateFaceswapOptionsFromEnv({
        REPLICATE_API_TOKEN: 'r8_x',
        REPLICATE_FACESWAP_MODEL: 'acme/swapper',
        REPLICATE_FACESWAP_SOURCE_INPUT: 'source_image',
        REPLICATE_FACESWAP_TARGET_INPUT: 'target_image',
      }),
    ).toEqual({ apiToken: 'r8_x', model: 'acme/swapper', sourceInput: 'source_image', targetInput: 'target_image', baseUrl: undefined });
    expect(() => replicateFaceswapOptionsFromEnv({ REPLICATE_API_TOKEN: 'r8_x', REPLICATE_FACESWAP_MODEL: 'face swap' })).toThrow(/REPLICATE_FACESWAP_MODEL/);
    expect(parseModelRef(DEFAULT_FACESWAP_MODEL)).toMatchObject({ owner: 'cdingram', name: 'face-swap' });
  });

  it('routes faceswap to Replicate ahead of any local engine when the token is set, and leaves the other kinds alone', () => {
    const hosted = enginesFromEnv({ REPLICATE_API_TOKEN: 'r8_x' });
    expect(hosted.route('faceswap')).toBe('replicate-faceswap');
    expect(hosted.route('imagine')).toBe('local');
    expect(hosted.isSimulated('faceswap')).toBe(false);
    expect(enginesFromEnv({}).route('faceswap')).not.toBe('replicate-faceswap');
  });
});
