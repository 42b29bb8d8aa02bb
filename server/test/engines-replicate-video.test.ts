/**
 * Contract tests of the video family (engines/replicate/families/video.ts) on the predictions
 * engine against support/fake-replicate.ts, whose Luma Ray 2, Kling 1.6 and Runway Gen-4
 * Turbo models check every input against the schema Replicate documents: the input names and
 * values per family, the MP4 returned as a video, what is refused or ignored (and said),
 * progress that creeps without a progress bar, failures, resuming.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineJob, EngineProgress, ImageInput } from '../src/engines/engine.ts';
import { type HostedVideoJob, SUGGESTED_VIDEO_MODELS, type VideoModels, videoFamily } from '../src/engines/replicate/families/video.ts';
import { createReplicatePredictionsEngine } from '../src/engines/replicate/predictions.ts';
import { FAKE_VIDEO_MODELS, type FakeModel, type FakeReplicate, type FakeReplicateOptions, startFakeReplicate } from './support/fake-replicate.ts';

const TOKEN = 'r8_video_token';
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const start: ImageInput = { url: 'https://images.example.com/first.png', data: PNG, contentType: 'image/png' };
const end: ImageInput = { url: 'http://localhost:8080/media/upload-end.png', data: PNG, contentType: 'image/png' };
const endUri = `data:image/png;base64,${PNG.toString('base64')}`;

/** kling-v1.6-pro: Kling 1.6 with an end frame; cuuupid/idm-vton: the suggested try-on model. */
const EXTRA_MODELS: FakeModel[] = [
  {
    ...FAKE_VIDEO_MODELS.find((m) => m.name === 'kling-v1.6-standard')!,
    name: 'kling-v1.6-pro',
    version: 'b'.repeat(64),
    schema: { ...FAKE_VIDEO_MODELS.find((m) => m.name === 'kling-v1.6-standard')!.schema, end_image: { type: 'uri' } },
  },
  {
    owner: 'cuuupid',
    name: 'idm-vton',
    version: '0513734a452173b8173e907e3a59d19a36266e55b48528559432bd21c7d7e985',
    inputs: ['human_img', 'garm_img'],
    schema: {
      human_img: { type: 'uri', required: true },
      garm_img: { type: 'uri', required: true },
      garment_des: { type: 'string' },
      category: { type: 'string', enum: ['upper_body', 'lower_body', 'dresses'] },
      crop: { type: 'boolean' },
      seed: { type: 'integer' },
      steps: { type: 'integer' },
    },
    output: { type: 'png' },
  },
];

type KlingJob = Extract<EngineJob, { kind: 'kling-video' }>;
type RunwayJob = Extract<EngineJob, { kind: 'runway' }>;
const kling = (over: Partial<KlingJob> = {}): KlingJob => ({
  kind: 'kling-video',
  prompt: 'waves at night',
  generationType: 'text2video',
  mode: 'std',
  durationSec: 5,
  cfgScale: 0.5,
  ...over,
});
const runway = (over: Partial<RunwayJob> = {}): RunwayJob => ({
  kind: 'runway',
  prompt: 'the camera pushes in',
  generationType: 'image2video',
  image: start,
  durationSec: 10,
  ...over,
});

let upstream: FakeReplicate | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

async function setup(models: VideoModels = SUGGESTED_VIDEO_MODELS, fake: Partial<FakeReplicateOptions> = {}) {
  const fakeUpstream = await startFakeReplicate({ token: TOKEN, models: [...FAKE_VIDEO_MODELS, ...EXTRA_MODELS], ...fake });
  upstream = fakeUpstream;
  const engine = createReplicatePredictionsEngine({ apiToken: TOKEN, baseUrl: fakeUpstream.baseUrl, family: videoFamily(models), pollIntervalMs: 5 });
  const progress: EngineProgress[] = [];
  const run = (j: HostedVideoJob) => engine.run(j, (p) => progress.push(p), new AbortController().signal);
  const lastCreate = () => {
    const create = fakeUpstream.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/predictions')).at(-1)!;
    expect(create.status, JSON.stringify(create.body)).toBe(201);
    return { path: create.path, body: create.body };
  };
  return { engine, run, progress, upstream: fakeUpstream, lastCreate };
}

describe('Video on Replicate', () => {
  it('runs Luma on Ray 2 with its start and end frames, and returns the MP4 as a video', async () => {
    const { run, upstream, lastCreate } = await setup();
    const result = await run({ kind: 'luma', prompt: 'a fox runs', image: start, endImage: end, aspectRatio: '9:21', loop: true, enhancePrompt: true });
    expect(lastCreate()).toEqual({
      path: '/v1/models/luma/ray-flash-2-720p/predictions',
      body: { input: { prompt: 'a fox runs', aspect_ratio: '9:21', loop: true, start_image: start.url, end_image: endUri } },
    });
    expect(result).toMatchObject({ engine: 'replicate-video', method: 'image-to-video', layout: 'none', images: [], simulated: false });
    expect(result.videos).toEqual([{ file: { source: 'url', url: `${upstream.baseUrl}/files/${result.upstreamId}.mp4` } }]);
    expect(result.note).toBe('luma/ray-flash-2-720p on Replicate. Not offered by luma/ray-flash-2-720p, ignored: enhance_prompt.');
  });

  it('names the frames *_url on the original luma/ray', async () => {
    const ray: FakeModel = { owner: 'luma', name: 'ray', version: 'c'.repeat(64), inputs: [], output: { type: 'mp4' } };
    const { run, lastCreate } = await setup({ luma: 'luma/ray' }, { models: [ray] });
    await run({ kind: 'luma', prompt: 'a fox runs', image: start });
    expect(lastCreate().body).toEqual({ input: { prompt: 'a fox runs', start_image_url: start.url } });
  });

  it('runs Kling text-to-video and image-to-video on kling-v1.6-standard, mode pro on the pro model with its end frame', async () => {
    const { run, lastCreate } = await setup();
    const text = await run(kling({ aspectRatio: '9:16', negativePrompt: 'rain', model: 'kling-v1-5' }));
    expect(lastCreate()).toEqual({
      path: '/v1/models/kwaivgi/kling-v1.6-standard/predictions',
      body: { input: { prompt: 'waves at night', duration: 5, cfg_scale: 0.5, negative_prompt: 'rain', aspect_ratio: '9:16' } },
    });
    expect(text.videos?.[0]).toMatchObject({ durationSec: 5 });
    expect(text.note).toBe('kwaivgi/kling-v1.6-standard on Replicate. Not offered by kwaivgi/kling-v1.6-standard, ignored: model kling-v1-5.');

    await run(kling({ generationType: 'image2video', image: start, durationSec: 10, cfgScale: 0.8 }));
    expect(lastCreate().body).toEqual({ input: { prompt: 'waves at night', duration: 10, cfg_scale: 0.8, start_image: start.url } });

    await run(kling({ generationType: 'image2video', image: start, endImage: end, mode: 'pro' }));
    expect(lastCreate()).toEqual({
      path: '/v1/models/kwaivgi/kling-v1.6-pro/predictions',
      body: { input: { prompt: 'waves at night', duration: 5, cfg_scale: 0.5, start_image: start.url, end_image: endUri } },
    });
  });

  it.each([
    [kling({ aspectRatio: '4:3' }), 'Kling videos here are 16:9, 9:16, 1:1; 4:3 is not available.'],
    [
      kling({ generationType: 'image2video', image: start, endImage: end }),
      'Kling here (kwaivgi/kling-v1.6-standard) cannot end on a given frame; leave out the end image.',
    ],
    [
      runway({ generationType: 'text2video', image: undefined }),
      'Runway here (runwayml/gen4-turbo) makes videos from a start image only; text2video is not available.',
    ],
    [
      runway({
        generationType: 'video2video',
        image: undefined,
        video: { url: 'https://v.example.com/a.mp4', data: Buffer.alloc(8), contentType: 'video/mp4' },
      }),
      'Runway here (runwayml/gen4-turbo) makes videos from a start image only; video2video is not available.',
    ],
    [runway({ endImage: end }), 'Runway here (runwayml/gen4-turbo) cannot end on a given frame; leave out the end image.'],
    [runway({ aspectRatio: '9:21' }), 'Runway videos here are 16:9, 9:16, 4:3, 3:4, 1:1, 21:9; 9:21 is not available.'],
  ])('refuses what the model cannot do, before any call (%#)', async (job, message) => {
    const { run, upstream } = await setup({ kling: SUGGESTED_VIDEO_MODELS.kling, runway: SUGGESTED_VIDEO_MODELS.runway });
    await expect(run(job)).rejects.toMatchObject({ code: 'unsupported', retryable: false, message });
    expect(upstream.requests).toEqual([]);
  });

  it('runs Runway image-to-video on gen4-turbo, a portrait flip as 9:16', async () => {
    const { run, lastCreate } = await setup();
    const result = await run(runway({ flip: true, model: 'gen3a_turbo' }));
    expect(lastCreate()).toEqual({
      path: '/v1/models/runwayml/gen4-turbo/predictions',
      body: { input: { prompt: 'the camera pushes in', image: start.url, duration: 10, aspect_ratio: '9:16' } },
    });
    expect(result.videos?.[0]).toMatchObject({ durationSec: 10 });
    expect(result.note).toBe('runwayml/gen4-turbo on Replicate. Not offered by runwayml/gen4-turbo, ignored: model gen3a_turbo.');
  });

  it('runs Kling try-on on IDM-VTON and answers a picture', async () => {
    const { run, upstream, lastCreate } = await setup();
    const result = await run({ kind: 'kling-tryon', human: start, cloth: end });
    expect(lastCreate()).toEqual({
      path: '/v1/predictions',
      body: {
        version: '0513734a452173b8173e907e3a59d19a36266e55b48528559432bd21c7d7e985',
        input: { human_img: start.url, garm_img: endUri, garment_des: 'the garment in the picture', category: 'upper_body' },
      },
    });
    expect(result).toMatchObject({
      method: 'virtual-try-on',
      layout: 'single',
      images: [{ source: 'url', url: `${upstream.baseUrl}/files/${result.upstreamId}.png` }],
    });
  });

  it('runs only the families configured; never luma-extend or Midjourney video', () => {
    expect(videoFamily({ luma: 'luma/ray-flash-2-720p' }).kinds).toEqual(['luma']);
    expect(videoFamily(SUGGESTED_VIDEO_MODELS).kinds).toEqual(['luma', 'kling-video', 'kling-tryon', 'runway']);
    expect(videoFamily({ 'kling-pro': 'kwaivgi/kling-v1.6-pro' }).kinds).toEqual([]);
  });

  it('creeps progress with time when the model logs no progress bar, then fails or resumes like any prediction', async () => {
    const quiet = [{ status: 'starting' as const }, { status: 'processing' as const }, { status: 'processing' as const }, { status: 'processing' as const }];
    const { run, progress, upstream } = await setup(SUGGESTED_VIDEO_MODELS, { scenario: () => ({ outcome: 'success', steps: quiet }) });
    const first = await run(runway());
    const processing = progress.filter((p) => p.status === 'processing' || (p.status === undefined && p.percentage < 100)).map((p) => p.percentage);
    expect(processing.length).toBeGreaterThan(0);
    expect(processing.every((p) => p >= 10 && p < 90)).toBe(true);
    await expect(run({ ...runway(), resumeUpstreamId: first.upstreamId })).resolves.toMatchObject({ upstreamId: first.upstreamId });
    expect(upstream.predictions.size).toBe(1);
    await upstream.close();

    const failing = await setup(SUGGESTED_VIDEO_MODELS, { scenario: () => ({ outcome: 'failure', error: 'Error: the start image could not be read' }) });
    await expect(failing.run(runway())).rejects.toMatchObject({
      code: 'upstream_failed',
      message: 'The video generation failed: Error: the start image could not be read',
    });
  });
});
