/**
 * Contract tests of the Flux family (engines/replicate/families/flux.ts) on the predictions
 * engine against support/fake-replicate.ts, whose Flux models check every input against the
 * schema Replicate documents for them: the model each v1 `model` runs on, the exact input
 * names and values sent, what is ignored (and said) or refused, the picture returned, a
 * failure's message and resuming.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineJob, EngineProgress, ImageInput } from '../src/engines/engine.ts';
import { DEFAULT_FLUX_MODELS, type FluxFamilyOptions, fluxFamily, nearestRatio } from '../src/engines/replicate/families/flux.ts';
import { createReplicatePredictionsEngine } from '../src/engines/replicate/predictions.ts';
import { FAKE_FLUX_MODELS, type FakeReplicate, type FakeReplicateOptions, startFakeReplicate } from './support/fake-replicate.ts';

const TOKEN = 'r8_flux_token';
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const picture: ImageInput = { url: 'https://images.example.com/start.png', data: PNG, contentType: 'image/png' };

type FluxJob = Extract<EngineJob, { kind: 'flux-imagine' }>;
const job = (over: Partial<FluxJob> = {}): FluxJob => ({ kind: 'flux-imagine', prompt: 'a red fox in snow', ...over });

let upstream: FakeReplicate | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

async function setup(options: FluxFamilyOptions = {}, fake: Partial<FakeReplicateOptions> = {}) {
  const fakeUpstream = await startFakeReplicate({ token: TOKEN, models: [...FAKE_FLUX_MODELS], ...fake });
  upstream = fakeUpstream;
  const engine = createReplicatePredictionsEngine({ apiToken: TOKEN, baseUrl: fakeUpstream.baseUrl, family: fluxFamily(options), pollIntervalMs: 5 });
  const progress: EngineProgress[] = [];
  const run = (j: FluxJob) => engine.run(j, (p) => progress.push(p), new AbortController().signal);
  /** The path and body of the last create. */
  const lastCreate = () => {
    const create = fakeUpstream.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/predictions')).at(-1)!;
    expect(create.status, JSON.stringify(create.body)).toBe(201);
    return { path: create.path, body: create.body };
  };
  return { run, progress, upstream: fakeUpstream, lastCreate };
}

const full: Partial<FluxJob> = {
  seed: 7,
  size: { width: 1200, height: 800 },
  steps: 30,
  guidance: 3.5,
  safetyTolerance: 0,
  raw: true,
  imagePrompt: picture,
  imagePromptStrength: 0.4,
  promptUpsampling: true,
};

describe('Flux on Replicate', () => {
  it.each([
    ['flux-schnell', undefined, undefined],
    [
      'flux-dev',
      'black-forest-labs/flux-dev',
      { prompt: 'a red fox in snow', aspect_ratio: '3:2', seed: 7, num_outputs: 1, num_inference_steps: 30, guidance: 3.5, image: picture.url },
    ],
    [
      'flux-pro',
      'black-forest-labs/flux-pro',
      {
        prompt: 'a red fox in snow',
        aspect_ratio: 'custom',
        width: 1200,
        height: 800,
        seed: 7,
        steps: 30,
        guidance: 3.5,
        safety_tolerance: 1,
        prompt_upsampling: true,
        image_prompt: picture.url,
      },
    ],
    [
      'flux-pro-1.1',
      'black-forest-labs/flux-1.1-pro',
      {
        prompt: 'a red fox in snow',
        aspect_ratio: 'custom',
        width: 1200,
        height: 800,
        seed: 7,
        safety_tolerance: 1,
        prompt_upsampling: true,
        image_prompt: picture.url,
      },
    ],
    [
      'flux-pro-1.1-ultra',
      'black-forest-labs/flux-1.1-pro-ultra',
      { prompt: 'a red fox in snow', aspect_ratio: '3:2', seed: 7, safety_tolerance: 1, raw: true, image_prompt_strength: 0.4, image_prompt: picture.url },
    ],
  ] as const)('runs v1 model %s on %s with the inputs its schema documents', async (model, replicateModel, input) => {
    const { run, lastCreate } = await setup();
    if (!replicateModel) {
      // flux-schnell cannot start from a picture: refused, not dropped
      await expect(run(job({ ...full, model }))).rejects.toMatchObject({ code: 'unsupported' });
      return;
    }
    const result = await run(job({ ...full, model }));
    expect(lastCreate()).toEqual({ path: `/v1/models/${replicateModel}/predictions`, body: { input } });
    expect(result.note?.startsWith(`${replicateModel} on Replicate.`)).toBe(true);
  });

  it('says in the note what the model has no input for, and how a size became an aspect ratio', async () => {
    const { run } = await setup();
    const dev = await run(job({ ...full, model: 'flux-dev' }));
    expect(dev.note).toBe(
      'black-forest-labs/flux-dev on Replicate. The size 1200×800 was asked as the nearest aspect ratio the model offers, 3:2. Not offered by black-forest-labs/flux-dev, ignored: safetyTolerance, promptUpsampling, raw, imagePromptStrength.',
    );
    const pro = await run(job({ model: 'flux-pro-1.1', aspectRatio: '9:16' }));
    expect(pro.note).toBe('black-forest-labs/flux-1.1-pro on Replicate.');
  });

  it('runs tasks naming no model on the configured default, and the map can send a v1 name elsewhere', async () => {
    const { run, lastCreate } = await setup({ model: 'black-forest-labs/flux-dev', models: { 'flux-pro': 'black-forest-labs/flux-1.1-pro' } });
    await run(job({ aspectRatio: '4:3' }));
    expect(lastCreate()).toEqual({
      path: '/v1/models/black-forest-labs/flux-dev/predictions',
      body: { input: { prompt: 'a red fox in snow', aspect_ratio: '4:3', num_outputs: 1 } },
    });
    await run(job({ model: 'flux-pro' }));
    expect(lastCreate().path).toBe('/v1/models/black-forest-labs/flux-1.1-pro/predictions');
    expect(DEFAULT_FLUX_MODELS['flux-pro-1.1']).toBe('black-forest-labs/flux-1.1-pro');
  });

  it('returns the one picture as a single image, with progress to 100 and the prediction id', async () => {
    const { run, progress, upstream } = await setup();
    const result = await run(job({ model: 'flux-pro-1.1' }));
    expect(result).toMatchObject({ engine: 'replicate-flux', layout: 'single', simulated: false });
    expect(result.images).toEqual([{ source: 'url', url: `${upstream.baseUrl}/files/${result.upstreamId}.png` }]);
    expect(progress.at(-1)?.percentage).toBe(100);
    expect(progress.some((p) => p.upstreamId === result.upstreamId)).toBe(true);
  });

  it('fails with the model’s last error line, and a retry resumes the same prediction', async () => {
    const failing = await setup({}, { scenario: () => ({ outcome: 'failure', error: 'ValueError: prompt too long' }) });
    await expect(failing.run(job())).rejects.toMatchObject({
      code: 'upstream_failed',
      message: 'The Flux image generation failed: ValueError: prompt too long',
    });
    await failing.upstream.close();

    const { run, upstream } = await setup();
    const first = await run(job());
    const resumed = await run(job({ resumeUpstreamId: first.upstreamId }));
    expect(resumed.upstreamId).toBe(first.upstreamId);
    expect(upstream.predictions.size).toBe(1);
  });

  it.each([
    [1024, 1024, '1:1'],
    [1440, 810, '16:9'],
    [800, 1200, '2:3'],
    [1440, 600, '21:9'],
    [256, 1440, '9:21'],
  ])('takes %i×%i as the nearest aspect ratio %s', (width, height, ratio) => {
    expect(nearestRatio(width, height, ['1:1', '16:9', '21:9', '3:2', '2:3', '4:5', '5:4', '3:4', '4:3', '9:16', '9:21'])).toBe(ratio);
  });
});
