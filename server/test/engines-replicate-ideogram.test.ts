/**
 * Contract tests of the Ideogram family (engines/replicate/families/ideogram.ts) on the
 * predictions engine against support/fake-replicate.ts, whose models check every input against
 * the schema Replicate documents: imagine on ideogram-v2 and v3 (v1 values spelt as Replicate's
 * enums), upscale on Real-ESRGAN, describe on img2prompt (a text output), what is refused or
 * ignored, failures and resuming.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineJob, ImageInput } from '../src/engines/engine.ts';
import { type HostedIdeogramJob, type IdeogramModels, ideogramFamily, SUGGESTED_IDEOGRAM_MODELS } from '../src/engines/replicate/families/ideogram.ts';
import { createReplicatePredictionsEngine } from '../src/engines/replicate/predictions.ts';
import { FAKE_IDEOGRAM_MODELS, FAKE_OUTPUT_TEXT, type FakeReplicate, type FakeReplicateOptions, startFakeReplicate } from './support/fake-replicate.ts';

const TOKEN = 'r8_ideogram_token';
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const ours: ImageInput = { url: 'http://localhost:8080/media/upload-9.png', data: PNG, contentType: 'image/png' };

type ImagineJob = Extract<EngineJob, { kind: 'ideogram-imagine' }>;
const imagine = (over: Partial<ImagineJob> = {}): ImagineJob => ({ kind: 'ideogram-imagine', prompt: 'a poster that says HELLO', ...over });

let upstream: FakeReplicate | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

async function setup(models: IdeogramModels = SUGGESTED_IDEOGRAM_MODELS, fake: Partial<FakeReplicateOptions> = {}) {
  const fakeUpstream = await startFakeReplicate({ token: TOKEN, models: [...FAKE_IDEOGRAM_MODELS], ...fake });
  upstream = fakeUpstream;
  const engine = createReplicatePredictionsEngine({ apiToken: TOKEN, baseUrl: fakeUpstream.baseUrl, family: ideogramFamily(models), pollIntervalMs: 5 });
  const run = (j: HostedIdeogramJob) => engine.run(j, () => {}, new AbortController().signal);
  const lastCreate = () => {
    const create = fakeUpstream.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/predictions')).at(-1)!;
    expect(create.status, JSON.stringify(create.body)).toBe(201);
    return { path: create.path, body: create.body };
  };
  return { engine, run, upstream: fakeUpstream, lastCreate };
}

describe('Ideogram on Replicate', () => {
  it('runs imagine on ideogram-v2 with Replicate’s spelling of the v1 values, and returns the picture as a set', async () => {
    const { run, upstream, lastCreate } = await setup();
    const result = await run(imagine({ aspectRatio: '3:2', seed: 11, styleType: 'RENDER_3D', magicPrompt: 'OFF', negativePrompt: 'blur' }));
    expect(lastCreate()).toEqual({
      path: '/v1/models/ideogram-ai/ideogram-v2/predictions',
      body: {
        input: {
          prompt: 'a poster that says HELLO',
          aspect_ratio: '3:2',
          seed: 11,
          style_type: 'Render 3D',
          magic_prompt_option: 'Off',
          negative_prompt: 'blur',
        },
      },
    });
    expect(result).toMatchObject({ engine: 'replicate-ideogram', method: 'ideogram', layout: 'set', simulated: false, seed: 11 });
    expect(result.images).toEqual([{ source: 'url', url: `${upstream.baseUrl}/files/${result.upstreamId}.png` }]);
    expect(result.note).toBe('ideogram-ai/ideogram-v2 on Replicate.');
  });

  it('sends an exact size as resolution WxH', async () => {
    const { run, lastCreate } = await setup();
    await run(imagine({ resolution: { width: 1024, height: 640 } }));
    expect(lastCreate().body).toEqual({ input: { prompt: 'a poster that says HELLO', resolution: '1024x640' } });
  });

  it('on v3 refuses the styles it lacks and leaves out the negative prompt it has no input for, saying so', async () => {
    const { run, upstream, lastCreate } = await setup({ imagine: 'ideogram-ai/ideogram-v3-turbo' });
    for (const styleType of ['ANIME', 'RENDER_3D', 'FICTION'] as const) {
      await expect(run(imagine({ styleType }))).rejects.toMatchObject({
        code: 'unsupported',
        retryable: false,
        message: `The ${styleType} style is not available on ideogram-ai/ideogram-v3-turbo; choose another style.`,
      });
    }
    expect(upstream.predictions.size).toBe(0);
    const result = await run(imagine({ styleType: 'DESIGN', negativePrompt: 'blur' }));
    expect(lastCreate().body).toEqual({ input: { prompt: 'a poster that says HELLO', style_type: 'Design' } });
    expect(result.note).toBe('ideogram-ai/ideogram-v3-turbo on Replicate. Not offered by ideogram-ai/ideogram-v3-turbo, ignored: negative_prompt.');
  });

  it('upscales on the pinned Real-ESRGAN version (2×), saying what it ignores', async () => {
    const { run, lastCreate } = await setup();
    const result = await run({ kind: 'ideogram-upscale', image: ours, resemblance: 80, detail: 20 });
    expect(lastCreate()).toEqual({
      path: '/v1/predictions',
      body: {
        version: '42fed1c4974146d4d2414e2be2c5277c7fcf05fcc3a73abf41610695738c1d7b',
        input: { image: `data:image/png;base64,${PNG.toString('base64')}`, scale: 2 },
      },
    });
    expect(result).toMatchObject({ method: 'upscale', layout: 'single' });
    expect(result.note).toBe('nightmareai/real-esrgan on Replicate. Not offered by nightmareai/real-esrgan, ignored: resemblance, detail.');
  });

  it('describes a picture into one text', async () => {
    const { run, lastCreate } = await setup();
    const result = await run({ kind: 'ideogram-describe', image: ours });
    expect(lastCreate().body).toEqual({
      version: '50adaf2d3ad20a6f911a8a9e3ccf777b263b8596fbd2c8fc26e8888f8a0edbb5',
      input: { image: `data:image/png;base64,${PNG.toString('base64')}` },
    });
    expect(result).toMatchObject({ method: 'describe', layout: 'none', images: [], texts: [FAKE_OUTPUT_TEXT.join('')] });
  });

  it('runs only the kinds it has a model for; remix never', async () => {
    const { engine } = await setup({ imagine: 'ideogram-ai/ideogram-v2' });
    expect(engine.kinds).toEqual(['ideogram-imagine']);
    expect(ideogramFamily(SUGGESTED_IDEOGRAM_MODELS).kinds).toEqual(['ideogram-imagine', 'ideogram-upscale', 'ideogram-describe']);
    await expect(engine.run({ kind: 'ideogram-describe', image: ours }, () => {}, new AbortController().signal)).rejects.toMatchObject({ code: 'unsupported' });
  });

  it('fails with a plain message on a refused prompt, and a retry resumes the prediction', async () => {
    const refused = await setup(SUGGESTED_IDEOGRAM_MODELS, {
      scenario: () => ({ outcome: 'failure', error: 'Prediction failed: content flagged as sensitive' }),
    });
    await expect(refused.run(imagine())).rejects.toMatchObject({
      code: 'upstream_failed',
      message: 'The Ideogram generation was refused: the content was flagged as not safe for work; try another prompt.',
    });
    await refused.upstream.close();

    const { run, upstream } = await setup();
    const first = await run(imagine());
    await expect(run({ ...imagine(), resumeUpstreamId: first.upstreamId })).resolves.toMatchObject({ upstreamId: first.upstreamId });
    expect(upstream.predictions.size).toBe(1);
  });
});
