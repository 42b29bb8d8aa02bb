/**
 * Contract tests of the generic Replicate predictions engine (engines/replicate/predictions.ts)
 * against support/fake-replicate.ts, on the Flux family: the create endpoints (official model,
 * pinned version), bearer auth, statuses, progress, file inputs (public URL, data URI, Files
 * API upload deleted afterwards), problem details, 429 with retry-after, 5xx, resuming by
 * prediction id, cancel on timeout; and the configuration (env.ts, runtime.ts routing).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineJob, EngineProgress, ImageInput } from '../src/engines/engine.ts';
import { createReplicatePredictionEngines, jsonObjectFromEnv, replicatePredictionsConfigFromEnv } from '../src/engines/replicate/env.ts';
import { fluxFamily } from '../src/engines/replicate/families/flux.ts';
import { createReplicatePredictionsEngine, type ReplicatePredictionsOptions } from '../src/engines/replicate/predictions.ts';
import { seedFromLogs } from '../src/engines/replicate/protocol.ts';
import { enginesFromEnv } from '../src/workers/runtime.ts';
import { FAKE_FLUX_MODELS, type FakeReplicate, type FakeReplicateOptions, startFakeReplicate } from './support/fake-replicate.ts';

const TOKEN = 'r8_predictions_token';
const DEV = FAKE_FLUX_MODELS.find((m) => m.name === 'flux-dev')!;
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const dataUri = (data: Buffer) => `data:image/png;base64,${data.toString('base64')}`;

type FluxJob = Extract<EngineJob, { kind: 'flux-imagine' }>;
const job = (over: Partial<FluxJob> = {}): FluxJob => ({ kind: 'flux-imagine', prompt: 'a lighthouse at dusk', ...over });

let upstream: FakeReplicate | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

async function setup(fake: Partial<FakeReplicateOptions> = {}, adapter: Partial<ReplicatePredictionsOptions<FluxJob>> = {}) {
  const fakeUpstream = await startFakeReplicate({ token: TOKEN, models: [...FAKE_FLUX_MODELS], ...fake });
  upstream = fakeUpstream;
  const engine = createReplicatePredictionsEngine<FluxJob>({
    apiToken: TOKEN,
    baseUrl: fakeUpstream.baseUrl,
    family: fluxFamily(),
    pollIntervalMs: 5,
    maxPollIntervalMs: 20,
    ...adapter,
  });
  const progress: EngineProgress[] = [];
  const run = (j: EngineJob = job(), signal = new AbortController().signal) => engine.run(j, (p) => progress.push(p), signal);
  return { engine, run, progress, upstream: fakeUpstream };
}

const creates = (fake: FakeReplicate) => fake.requests.filter((r) => r.method === 'POST' && /predictions$/.test(r.path));

describe('Replicate predictions engine against the fake upstream', () => {
  it('creates on the official model endpoint with the bearer token, polls to the end and returns the output URL', async () => {
    const { run, progress, upstream } = await setup();
    const result = await run(job({ aspectRatio: '16:9', seed: 42 }));

    const id = result.upstreamId!;
    expect(result).toMatchObject({ engine: 'replicate-flux', method: 'flux', simulated: false, layout: 'single', seed: 42 });
    expect(result.image).toEqual({ source: 'url', url: `${upstream.baseUrl}/files/${id}-1.png` });
    expect(result.images).toEqual([result.image]);
    expect(result.note).toBe('black-forest-labs/flux-schnell on Replicate.');

    const [create] = creates(upstream);
    expect(create).toMatchObject({ method: 'POST', path: '/v1/models/black-forest-labs/flux-schnell/predictions', status: 201 });
    expect(create.body).toEqual({ input: { prompt: 'a lighthouse at dusk', aspect_ratio: '16:9', seed: 42, num_outputs: 1 } });
    expect(upstream.requests.every((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(upstream.requests.slice(1).every((r) => r.method === 'GET' && r.path === `/v1/predictions/${id}`)).toBe(true);

    // monotonic, to 100 through Replicate's statuses; the logged 60 % bar; the id reported before any waiting
    const percentages = progress.map((p) => p.percentage);
    expect(percentages).toEqual([...percentages].sort((a, b) => a - b));
    expect(percentages.at(-1)).toBe(100);
    expect(percentages).toContain(10 + Math.floor(60 * 0.85));
    const statuses = progress.map((p) => p.status).filter((s, i, all) => s !== undefined && s !== all[i - 1]);
    expect(statuses).toEqual(['starting', 'submitted', 'starting', 'processing']);
    expect(progress.find((p) => p.upstreamId)).toEqual({ percentage: 2, status: 'submitted', upstreamId: id });
  });

  it('creates with POST /v1/predictions {version} for a pinned model, and keeps the seed the model logged', async () => {
    const { upstream } = await setup({ scenario: () => ({ outcome: 'success', steps: [], logs: 'Using seed: 987654\nrunning' }) });
    const pinned = createReplicatePredictionsEngine<FluxJob>({
      apiToken: TOKEN,
      baseUrl: upstream.baseUrl,
      family: fluxFamily({ model: `black-forest-labs/flux-dev:${DEV.version}` }),
      pollIntervalMs: 5,
    });
    const result = await pinned.run(job(), () => {}, new AbortController().signal);
    expect(creates(upstream)[0]).toMatchObject({ path: '/v1/predictions', status: 201 });
    expect(creates(upstream)[0].body).toEqual({ version: DEV.version, input: { prompt: 'a lighthouse at dusk', num_outputs: 1 } });
    expect(result.seed).toBe(987654);
    expect(seedFromLogs('seed: 1\nUsing seed 22')).toBe(22);
    expect(seedFromLogs('no seeds here')).toBeUndefined();
  });

  describe('file inputs', () => {
    const publicImage: ImageInput = { url: 'https://images.example.com/start.png', data: PNG, contentType: 'image/png' };
    const localImage: ImageInput = { url: 'http://localhost:8080/media/upload-1.png', data: PNG, contentType: 'image/png' };
    const bigLocal: ImageInput = {
      url: 'http://localhost:8080/media/upload-2.png',
      data: Buffer.concat([PNG, Buffer.alloc(4000, 7)]),
      contentType: 'image/png',
    };
    const devJob = (imagePrompt: ImageInput) => job({ model: 'flux-dev', imagePrompt });

    it('sends a public https picture as its URL and a small local one as a data URI', async () => {
      const { run, upstream } = await setup();
      await run(devJob(publicImage));
      await run(devJob(localImage));
      const [first, second] = creates(upstream);
      expect((first.body as { input: Record<string, unknown> }).input.image).toBe(publicImage.url);
      expect((second.body as { input: Record<string, unknown> }).input.image).toBe(dataUri(PNG));
      expect(upstream.files.size).toBe(0);
    });

    it('uploads a larger picture through the Files API, names it by its URL, and deletes it once the prediction is over', async () => {
      const { run, upstream } = await setup({}, { maxDataUriBytes: 1000 });
      const result = await run(devJob(bigLocal));
      const [file] = upstream.files.values();
      expect(file).toMatchObject({ name: 'input.png', contentType: 'image/png' });
      expect(file.data.equals(bigLocal.data)).toBe(true);
      const upload = upstream.requests.find((r) => r.path === '/v1/files')!;
      expect(upload.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      expect(upstream.predictions.get(result.upstreamId!)?.input.image).toBe(`${upstream.baseUrl}/v1/files/${file.id}`);
      expect(file.deleted).toBe(true);
      expect(upstream.requests.at(-1)).toMatchObject({ method: 'DELETE', path: `/v1/files/${file.id}`, status: 204 });
    });

    it('deletes the upload too when the create is refused, and refuses a picture on a model that cannot take one before any call', async () => {
      const { run, upstream } = await setup({}, { maxDataUriBytes: 1000 });
      upstream.failNext('create', 1, 503);
      await expect(run(devJob(bigLocal))).rejects.toMatchObject({ code: 'upstream_unavailable', retryable: true });
      expect([...upstream.files.values()].map((f) => f.deleted)).toEqual([true]);

      const before = upstream.requests.length;
      const error = await run(job({ imagePrompt: publicImage })).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'unsupported',
        retryable: false,
        message: 'black-forest-labs/flux-schnell cannot start from a picture; leave out the image prompt or choose another Flux model.',
      });
      expect(upstream.requests.length).toBe(before);
    });
  });

  describe('failures', () => {
    it.each([
      [
        'NSFW content detected. Try running it again, or try a different prompt.',
        'The Flux image generation was refused: the content was flagged as not safe for work; try another prompt.',
      ],
      [
        'Traceback (most recent call last):\n  File "predict.py"\nRuntimeError: CUDA out of memory',
        'The Flux image generation failed: RuntimeError: CUDA out of memory',
      ],
      ['', 'The Flux image generation failed.'],
    ])('shows a failed prediction (%j) as %j, not retryable, keeping the id', async (modelError, message) => {
      const { run } = await setup({ scenario: () => ({ outcome: 'failure', error: modelError }) });
      const error = await run().catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'EngineError', code: 'upstream_failed', retryable: false, message });
      expect((error as { upstreamId?: string }).upstreamId).toMatch(/^fake/);
    });

    it('fails a success without an output, and a prediction cancelled upstream', async () => {
      const empty = await setup({ scenario: () => ({ outcome: 'success', output: 'none', steps: [] }) });
      await expect(empty.run()).rejects.toMatchObject({ code: 'upstream_failed', message: 'The Flux image generation finished without a result.' });
      await empty.upstream.close();

      const { run, upstream } = await setup({ scenario: () => ({ outcome: 'hang' }) });
      const running = run();
      await new Promise((resolve) => setTimeout(resolve, 30));
      const [id] = upstream.predictions.keys();
      upstream.predictions.get(id)!.canceled = true;
      await expect(running).rejects.toMatchObject({
        code: 'upstream_failed',
        retryable: false,
        upstreamId: id,
        message: 'The Flux image generation was cancelled by the Flux image service.',
      });
    });

    it('maps a refused create (the model schema says no) to a rejection with the problem details for the operator', async () => {
      const { upstream } = await setup();
      const engine = createReplicatePredictionsEngine<FluxJob>({
        apiToken: TOKEN,
        baseUrl: upstream.baseUrl,
        // flux-schnell has no steps: an input the model does not document is refused by the fake
        family: { ...fluxFamily(), request: async () => ({ model: 'black-forest-labs/flux-schnell', input: { prompt: 'x', steps: 4 } }) },
        pollIntervalMs: 5,
      });
      const error = await engine.run(job(), () => {}, new AbortController().signal).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'upstream_rejected', retryable: false, message: 'The Flux image service refused the request.' });
      expect((error as { detail: string }).detail).toContain('422 Input validation failed: - input: Additional property steps is not allowed');
    });

    it('reports a wrong token as an auth problem after one call, without retry', async () => {
      const { run, upstream } = await setup({}, { apiToken: 'r8_wrong' });
      await expect(run()).rejects.toMatchObject({ code: 'upstream_auth', retryable: false });
      expect(upstream.requests.map((r) => r.status)).toEqual([401]);
    });

    it('reports an unreachable upstream as retryable', async () => {
      const { run, upstream } = await setup();
      await upstream.close();
      await expect(run()).rejects.toMatchObject({ code: 'upstream_unavailable', retryable: true });
    });
  });

  describe('rate limits and server errors', () => {
    it('waits out a 429 for its retry-after, then creates once', async () => {
      const { run, upstream } = await setup();
      upstream.throttle('create', 1, '1');
      const started = Date.now();
      await run();
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect(creates(upstream).map((r) => r.status)).toEqual([429, 201]);
      expect(upstream.predictions.size).toBe(1);
    });

    it('fails retryably when throttling persists', async () => {
      const { run, upstream } = await setup({}, { maxRateLimitWaits: 1 });
      upstream.throttle('create', 5, '0');
      await expect(run()).rejects.toMatchObject({
        code: 'upstream_busy',
        retryable: true,
        message: 'The Flux image service is busy, please try again shortly.',
      });
      expect(upstream.predictions.size).toBe(0);
    });

    it('fails a create answered with a 5xx retryably, rides out a few failed polls, and hands the id on when polls keep failing', async () => {
      const { run, upstream } = await setup({}, { maxPollFailures: 3 });
      upstream.failNext('create', 1, 500);
      await expect(run()).rejects.toMatchObject({ code: 'upstream_unavailable', retryable: true });
      expect(upstream.predictions.size).toBe(0);

      upstream.failNext('get', 2, 502);
      await expect(run()).resolves.toMatchObject({ layout: 'single' });

      upstream.failNext('get', 5, 503);
      const error = await run().catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'upstream_unavailable', retryable: true });
      const id = (error as { upstreamId?: string }).upstreamId!;
      upstream.failNext('get', 0, 500);
      const resumed = await run(job({ resumeUpstreamId: id }));
      expect(resumed.upstreamId).toBe(id);
      expect(upstream.predictions.size).toBe(2);
    });
  });

  describe('resuming and deadlines', () => {
    it('resumes by prediction id without creating again; starts over when the old one is gone, aborted or its output deleted', async () => {
      let calls = 0;
      const { run, upstream } = await setup({ scenario: () => (calls++ === 1 ? { outcome: 'aborted' } : { outcome: 'success', steps: [] }) });
      const first = await run();
      const again = await run(job({ resumeUpstreamId: first.upstreamId }));
      expect(again.upstreamId).toBe(first.upstreamId);
      expect(creates(upstream)).toHaveLength(1);

      // the second prediction is aborted (its deadline passed before it started): retryable, and the retry creates anew
      const aborted = await run().catch((e: unknown) => e);
      expect(aborted).toMatchObject({ code: 'upstream_busy', retryable: true });
      const retried = await run(job({ resumeUpstreamId: (aborted as { upstreamId: string }).upstreamId }));
      expect(retried.upstreamId).not.toBe((aborted as { upstreamId: string }).upstreamId);

      upstream.removeData(first.upstreamId!);
      const fresh = await run(job({ resumeUpstreamId: first.upstreamId }));
      expect(fresh.upstreamId).not.toBe(first.upstreamId);
      const unknown = await run(job({ resumeUpstreamId: 'nonexistent' }));
      expect(unknown.upstreamId).not.toBe('nonexistent');
      expect(creates(upstream)).toHaveLength(5);
    });

    it('cancels the prediction and fails when it takes too long', async () => {
      const { run, upstream } = await setup({ scenario: () => ({ outcome: 'hang' }) }, { timeoutMs: 150 });
      const error = await run().catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'timeout', retryable: false, message: 'The Flux image generation took too long.' });
      const id = (error as { upstreamId: string }).upstreamId;
      expect(upstream.requests.at(-1)).toMatchObject({ method: 'POST', path: `/v1/predictions/${id}/cancel`, status: 200 });
      expect(upstream.predictions.get(id)?.canceled).toBe(true);
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

    it('cancels a prediction by its id when asked without a run (its worker died; POST /cancel)', async () => {
      const { engine, run, upstream } = await setup({ scenario: () => ({ outcome: 'hang' }) });
      const controller = new AbortController();
      const running = run(job(), controller.signal).catch((e: unknown) => e);
      await expect.poll(() => upstream.predictions.size).toBe(1);
      // the worker is gone: its run is aborted as a stopping worker's would be, the prediction left running
      controller.abort(new Error('worker died'));
      await running;
      const [prediction] = upstream.predictions.values();
      expect(prediction.canceled).toBe(false);
      await engine.cancelUpstream?.(prediction.id);
      expect(prediction.canceled).toBe(true);
      expect(upstream.requests.at(-1)).toMatchObject({ method: 'POST', path: `/v1/predictions/${prediction.id}/cancel`, status: 200 });
      // an id the upstream does not know: nothing thrown
      await expect(engine.cancelUpstream?.('no-such-prediction')).resolves.toBeUndefined();
    });

    it('refuses jobs of other kinds', async () => {
      const { run } = await setup();
      await expect(run({ kind: 'imagine', prompt: 'x' })).rejects.toMatchObject({ code: 'unsupported' });
    });
  });
});

describe('Replicate prediction engines configuration', () => {
  const token = { REPLICATE_API_TOKEN: 'r8_x' };

  it('is off until a family names a model, and then needs the token', () => {
    expect(replicatePredictionsConfigFromEnv({})).toBeUndefined();
    expect(replicatePredictionsConfigFromEnv(token)).toBeUndefined();
    expect(() => replicatePredictionsConfigFromEnv({ REPLICATE_FLUX_MODEL: 'black-forest-labs/flux-schnell' })).toThrow(/REPLICATE_API_TOKEN is not set/);
  });

  it('reads each family’s models, the single variables as shorthands', () => {
    expect(
      replicatePredictionsConfigFromEnv({
        ...token,
        REPLICATE_API_BASE: 'http://127.0.0.1:9',
        REPLICATE_FLUX_MODEL: 'black-forest-labs/flux-dev',
        REPLICATE_FLUX_MODELS: '{"flux-pro": "acme/flux-pro-tuned"}',
        REPLICATE_IDEOGRAM_MODEL: 'ideogram-ai/ideogram-v3-turbo',
        REPLICATE_VIDEO_MODELS: '{"luma": "luma/ray-flash-2-720p", "runway": "runwayml/gen4-turbo"}',
        REPLICATE_AUDIO_MODELS: '{"instrumental": "meta/musicgen:671ac645ce5e552cc63a54a2bbff63fcf798043055d2dac5fc9e36a837eedcfb"}',
      }),
    ).toEqual({
      apiToken: 'r8_x',
      baseUrl: 'http://127.0.0.1:9',
      flux: { model: 'black-forest-labs/flux-dev', models: { 'flux-pro': 'acme/flux-pro-tuned' } },
      ideogram: { imagine: 'ideogram-ai/ideogram-v3-turbo' },
      video: { luma: 'luma/ray-flash-2-720p', runway: 'runwayml/gen4-turbo' },
      audio: { instrumental: 'meta/musicgen:671ac645ce5e552cc63a54a2bbff63fcf798043055d2dac5fc9e36a837eedcfb' },
    });
  });

  it.each([
    [{ REPLICATE_FLUX_MODEL: 'flux schnell' }, 'REPLICATE_FLUX_MODEL must be owner/name or owner/name:<64-hex version id>, got "flux schnell"'],
    [
      { REPLICATE_FLUX_MODELS: '{"flux-max": "a/b"}' },
      'REPLICATE_FLUX_MODELS: unknown key "flux-max" (known: flux-schnell, flux-dev, flux-pro, flux-pro-1.1, flux-pro-1.1-ultra)',
    ],
    [{ REPLICATE_VIDEO_MODELS: '["luma/ray"]' }, 'REPLICATE_VIDEO_MODELS must be a JSON object, got "[\\"luma/ray\\"]"'],
    [{ REPLICATE_VIDEO_MODELS: '{"luma": 7}' }, 'REPLICATE_VIDEO_MODELS.luma must be owner/name or owner/name:<64-hex version id>, got 7'],
    [{ REPLICATE_AUDIO_MODELS: '{"suno": "a/b"}' }, 'REPLICATE_AUDIO_MODELS: unknown key "suno" (known: instrumental, vocals)'],
    [{ REPLICATE_IDEOGRAM_MODELS: 'not json' }, 'REPLICATE_IDEOGRAM_MODELS must be a JSON object, got "not json"'],
  ])('refuses %j naming the variable', (env, message) => {
    expect(() => replicatePredictionsConfigFromEnv({ ...token, ...env })).toThrow(message);
  });

  it('reads JSON objects only', () => {
    expect(jsonObjectFromEnv({ X: ' {"a": 1} ' }, 'X')).toEqual({ a: 1 });
    expect(jsonObjectFromEnv({ X: '  ' }, 'X')).toBeUndefined();
    expect(() => jsonObjectFromEnv({ X: 'null' }, 'X')).toThrow('X must be a JSON object');
  });

  it('routes each configured family’s kinds to its hosted engine, ahead of the local engines, and nothing else', () => {
    const hosted = enginesFromEnv({
      ...token,
      REPLICATE_FLUX_MODEL: 'black-forest-labs/flux-schnell',
      REPLICATE_IDEOGRAM_MODELS: '{"imagine": "ideogram-ai/ideogram-v2", "describe": "methexis-inc/img2prompt"}',
      REPLICATE_VIDEO_MODELS: '{"kling": "kwaivgi/kling-v1.6-standard", "runway": "runwayml/gen4-turbo"}',
      REPLICATE_AUDIO_MODELS: '{"vocals": "minimax/music-1.5"}',
    });
    expect(hosted.route('flux-imagine')).toBe('replicate-flux');
    expect(hosted.isSimulated('flux-imagine')).toBe(false);
    expect(hosted.route('ideogram-imagine')).toBe('replicate-ideogram');
    expect(hosted.route('ideogram-describe')).toBe('replicate-ideogram');
    expect(hosted.route('kling-video')).toBe('replicate-video');
    expect(hosted.route('runway')).toBe('replicate-video');
    expect(hosted.route('suno')).toBe('replicate-audio');
    expect(hosted.route('udio')).toBe('replicate-audio');
    // not configured, or not mappable onto these models: left to the other engines
    for (const kind of [
      'ideogram-upscale',
      'ideogram-remix',
      'luma',
      'luma-extend',
      'kling-tryon',
      'suno-extend',
      'suno-lyrics',
      'suno-upload',
      'imagine',
    ] as const) {
      expect(String(hosted.route(kind)), kind).not.toMatch(/^replicate-/);
    }
    // faceswap still rides on the token alone, as before
    expect(hosted.route('faceswap')).toBe('replicate-faceswap');

    const local = enginesFromEnv(token);
    expect(local.route('flux-imagine')).not.toBe('replicate-flux');
    expect(local.names.filter((n) => /^replicate-(flux|ideogram|video|audio)$/.test(n))).toEqual([]);
  });

  it('makes no engine for a family whose keys name no kind it runs', () => {
    expect(createReplicatePredictionEngines({ apiToken: 'r8_x', video: { 'kling-pro': 'kwaivgi/kling-v1.6-pro' } })).toEqual([]);
  });
});
