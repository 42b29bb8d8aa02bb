/**
 * Contract tests of the Replicate AI photo adapter (engines/replicate/lora.ts) against
 * support/fake-replicate.ts, which speaks the documented files, trainings and predictions
 * protocol: bearer auth, the zip of photos uploaded as multipart and named by its file URL,
 * the training on the trainer's version into the destination, statuses, problem details,
 * 429 with retry-after, 5xx, resuming by upstream id; then predictions on the trained version.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineJob, EngineProgress, ImageInput, TrainedIdentity } from '../src/engines/engine.ts';
import { versionIdOf, readOutputUrls } from '../src/engines/replicate/protocol.ts';
import {
  createReplicateLoraEngine,
  DEFAULT_LORA_TRAINER,
  loraPrompt,
  type ReplicateLoraOptions,
  replicateLoraOptionsFromEnv,
} from '../src/engines/replicate/lora.ts';
import { zipStored } from '../src/engines/replicate/zip.ts';
import { enginesFromEnv } from '../src/workers/runtime.ts';
import { FAKE_LORA_TRAINER, type FakeReplicate, type FakeReplicateOptions, readZip, startFakeReplicate } from './support/fake-replicate.ts';

const TOKEN = 'r8_lora_token';
const DESTINATION = 'acme/people';
const VERSION = 'a'.repeat(64);
const JPEG = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

const photo = (i: number, png = i % 2 === 1): ImageInput => ({
  url: `http://localhost:8080/media/ai-photo-x-${i}.${png ? 'png' : 'jpg'}`,
  // distinct bytes per photo, still starting like the type
  data: Buffer.concat([png ? PNG : JPEG, Buffer.from([i])]),
  contentType: png ? 'image/png' : 'image/jpeg',
});
const photos = Array.from({ length: 10 }, (_, i) => photo(i));
const subject = { gender: 'female' as const, ethnicity: 'latino', age: 32 };
const trainJob = (over: Partial<Extract<EngineJob, { kind: 'ai-photo-train' }>> = {}): EngineJob => ({
  kind: 'ai-photo-train',
  images: photos,
  subject,
  triggerWord: 'TOKMSN',
  ...over,
});
const identity = (over: Partial<TrainedIdentity> = {}): TrainedIdentity => ({
  engine: 'replicate-lora',
  triggerWord: 'TOKMSN',
  subject,
  data: { upstream_version: `${DESTINATION}:${VERSION}`, weights: 'https://example.com/w.tar' },
  images: [],
  upstreamId: 'train1',
  ...over,
});
const generateJob = (over: Partial<Extract<EngineJob, { kind: 'ai-photo-generate' }>> = {}): EngineJob => ({
  kind: 'ai-photo-generate',
  identity: identity(),
  prompt: 'in a bright office',
  count: 3,
  aspectRatio: '3:4',
  seed: 7,
  ...over,
});

let upstream: FakeReplicate | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

async function setup(fake: Partial<FakeReplicateOptions> = {}, adapter: Partial<ReplicateLoraOptions> = {}) {
  const fakeUpstream = await startFakeReplicate({
    token: TOKEN,
    destinations: [DESTINATION],
    models: [{ owner: 'acme', name: 'people', version: VERSION, inputs: [], trained: true }],
    ...fake,
  });
  upstream = fakeUpstream;
  const engine = createReplicateLoraEngine({
    apiToken: TOKEN,
    destination: DESTINATION,
    baseUrl: fakeUpstream.baseUrl,
    pollIntervalMs: 5,
    maxPollIntervalMs: 20,
    ...adapter,
  });
  const progress: EngineProgress[] = [];
  const run = (job: EngineJob, signal = new AbortController().signal) => engine.run(job, (p) => progress.push(p), signal);
  return { engine, run, progress, upstream: fakeUpstream };
}

const posts = (fake: FakeReplicate, path: string | RegExp) =>
  fake.requests.filter((r) => r.method === 'POST' && (typeof path === 'string' ? r.path === path : path.test(r.path)));

describe('Replicate LoRA protocol pieces', () => {
  it.each([
    [`${DESTINATION}:${VERSION}`, VERSION],
    [VERSION, VERSION],
    ['acme/people', undefined],
    ['acme/people:abc', undefined],
    [42, undefined],
  ])('reads the version id out of %j', (text, expected) => {
    expect(versionIdOf(text)).toBe(expected);
  });

  it('reads every output URL of a list, or the single one', () => {
    expect(readOutputUrls(['https://a/1.webp', 'https://a/2.webp', 7])).toEqual(['https://a/1.webp', 'https://a/2.webp']);
    expect(readOutputUrls('https://a/1.png')).toEqual(['https://a/1.png']);
    expect(readOutputUrls(null)).toEqual([]);
  });

  it.each([
    ['in a bright office', 'photo of TOKMSN, a woman, in a bright office'],
    ['TOKMSN in a bright office', 'TOKMSN in a bright office'],
    ['a portrait of tokmsn, smiling', 'a portrait of tokmsn, smiling'],
    ['TOKMSNX at sea', 'photo of TOKMSN, a woman, TOKMSNX at sea'],
  ])('puts the trigger word in front of %j', (prompt, expected) => {
    expect(loraPrompt({ identity: identity(), prompt })).toBe(expected);
  });

  it('says man for a male subject', () => {
    expect(loraPrompt({ identity: identity({ subject: { ...subject, gender: 'male' } }), prompt: 'x' })).toBe('photo of TOKMSN, a man, x');
  });

  it('writes a ZIP that a reader takes back byte for byte (stored entries, CRC checked)', () => {
    const entries = [
      { name: 'photo-01.jpg', data: JPEG },
      { name: 'photo-02.png', data: Buffer.alloc(70_000, 3) },
    ];
    const zip = zipStored(entries);
    expect(readZip(zip)).toEqual(entries);
    expect(zip.subarray(0, 4)).toEqual(Buffer.from('PK\x03\x04', 'latin1'));
    expect(() => readZip(Buffer.concat([zip.subarray(0, 40), Buffer.alloc(10)]))).toThrow(/BadZipFile/);
    const corrupt = Buffer.from(zip);
    corrupt[30 + 'photo-01.jpg'.length] ^= 0xff;
    expect(() => readZip(corrupt)).toThrow(/Bad CRC-32 for file 'photo-01.jpg'/);
  });

  it.each([
    [{}, undefined],
    [{ REPLICATE_API_TOKEN: 'r8_x' }, undefined],
  ])('is off without a destination (%j)', (env, expected) => {
    expect(replicateLoraOptionsFromEnv(env)).toEqual(expected);
  });

  it('reads its settings from the environment, naming what is wrong', () => {
    expect(
      replicateLoraOptionsFromEnv({
        REPLICATE_API_TOKEN: ' r8_x ',
        REPLICATE_LORA_DESTINATION: 'acme/people',
        REPLICATE_LORA_TRAINING_INPUT: '{"steps": 500}',
        REPLICATE_API_BASE: 'http://127.0.0.1:9',
      }),
    ).toEqual({
      apiToken: 'r8_x',
      destination: 'acme/people',
      trainer: undefined,
      trainingInput: { steps: 500 },
      generationInput: undefined,
      baseUrl: 'http://127.0.0.1:9',
    });
    expect(() => replicateLoraOptionsFromEnv({ REPLICATE_LORA_DESTINATION: 'acme/people' })).toThrow(
      'REPLICATE_LORA_DESTINATION is set but REPLICATE_API_TOKEN is not',
    );
    expect(() => replicateLoraOptionsFromEnv({ REPLICATE_API_TOKEN: 'x', REPLICATE_LORA_DESTINATION: 'people' })).toThrow(
      /REPLICATE_LORA_DESTINATION must be owner\/name/,
    );
    expect(() =>
      replicateLoraOptionsFromEnv({ REPLICATE_API_TOKEN: 'x', REPLICATE_LORA_DESTINATION: 'a/b', REPLICATE_LORA_TRAINER: 'ostris/flux-dev-lora-trainer' }),
    ).toThrow(/REPLICATE_LORA_TRAINER must be owner\/name:<64-hex version id>/);
    expect(() => replicateLoraOptionsFromEnv({ REPLICATE_API_TOKEN: 'x', REPLICATE_LORA_DESTINATION: 'a/b', REPLICATE_LORA_GENERATION_INPUT: '[1]' })).toThrow(
      /REPLICATE_LORA_GENERATION_INPUT must be a JSON object/,
    );
    expect(DEFAULT_LORA_TRAINER).toBe(`${FAKE_LORA_TRAINER.owner}/${FAKE_LORA_TRAINER.name}:${FAKE_LORA_TRAINER.version}`);
  });

  it('is chosen for training and generation when configured, leaving the upload check local', () => {
    const hosted = enginesFromEnv({ REPLICATE_API_TOKEN: 'r8_x', REPLICATE_LORA_DESTINATION: 'acme/people' });
    expect(hosted.route('ai-photo-train')).toBe('replicate-lora');
    expect(hosted.route('ai-photo-generate')).toBe('replicate-lora');
    expect(hosted.route('ai-photo-upload')).not.toBe('replicate-lora');
    expect(hosted.route('faceswap')).toBe('replicate-faceswap');
    expect(enginesFromEnv({ REPLICATE_API_TOKEN: 'r8_x' }).route('ai-photo-train')).not.toBe('replicate-lora');
  });
});

describe('Replicate LoRA training against the fake upstream', () => {
  it('uploads the photos as a zip, trains on the trainer into the destination, polls to the end and records the version', async () => {
    const { run, progress, upstream } = await setup({}, { trainingInput: { steps: 1000, trigger_word: 'ignored' } });
    const result = await run(trainJob());

    const [training] = upstream.trainings.values();
    expect(result).toMatchObject({ engine: 'replicate-lora', simulated: false, layout: 'none', images: [], upstreamId: training.id });
    expect(result.data).toEqual({
      upstream_version: expect.stringMatching(new RegExp(`^${DESTINATION}:[0-9a-f]{64}$`)),
      weights: `${upstream.baseUrl}/files/${training.id}-weights.tar`,
    });

    // the zip went through the files API as multipart, with the token
    const [uploadRequest] = posts(upstream, '/v1/files');
    expect(uploadRequest.status).toBe(201);
    expect(uploadRequest.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const [file] = upstream.files.values();
    expect(file).toMatchObject({ name: 'photos.zip', contentType: 'application/zip' });
    expect(training.photos.map((p) => p.name)).toEqual(
      photos.map((p, i) => `photo-${String(i + 1).padStart(2, '0')}.${p.contentType === 'image/png' ? 'png' : 'jpg'}`),
    );
    expect(training.photos.every((p, i) => p.data.equals(photos[i].data))).toBe(true);

    const [create] = posts(upstream, /\/trainings$/);
    expect(create.path).toBe(`/v1/models/ostris/flux-dev-lora-trainer/versions/${FAKE_LORA_TRAINER.version}/trainings`);
    expect(create.body).toEqual({
      destination: DESTINATION,
      input: { steps: 1000, trigger_word: 'TOKMSN', input_images: `${upstream.baseUrl}/v1/files/${file.id}` },
    });
    expect(upstream.requests.every((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
    // the uploaded photos do not stay at Replicate
    expect(file.deleted).toBe(true);

    const percentages = progress.map((p) => p.percentage);
    expect(percentages).toEqual([...percentages].sort((a, b) => a - b));
    expect(percentages.at(-1)).toBe(100);
    expect(percentages).toContain(10 + Math.floor(80 * 0.85)); // the logged 80 % bar
    expect(progress.find((p) => p.upstreamId)?.upstreamId).toBe(training.id);
    const statuses = progress.map((p) => p.status).filter((s, i, all) => s !== undefined && s !== all[i - 1]);
    expect(statuses).toEqual(['starting', 'submitted', 'starting', 'processing']);
  });

  it('fails a failed training with its last error line, not retryable, keeping the id', async () => {
    const { run, upstream } = await setup({ trainingScenario: () => ({ outcome: 'failure', error: 'Traceback …\nRuntimeError: CUDA out of memory' }) });
    const error = await run(trainJob()).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'upstream_failed', retryable: false, message: 'The training failed: RuntimeError: CUDA out of memory' });
    expect((error as { upstreamId?: string }).upstreamId).toMatch(/^train/);
    expect([...upstream.files.values()].every((f) => f.deleted)).toBe(true);
  });

  it('refuses a missing destination model as a rejection the operator reads in the detail', async () => {
    const { run } = await setup({ destinations: [] });
    const error = await run(trainJob()).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'upstream_rejected', retryable: false, message: 'The AI photo service refused the request.' });
    expect((error as { detail: string }).detail).toContain('404 Not found: The destination model acme/people does not exist');
  });

  it('reports a wrong token as an auth problem, without retry', async () => {
    const { run, upstream } = await setup({}, { apiToken: 'r8_wrong' });
    await expect(run(trainJob())).rejects.toMatchObject({ code: 'upstream_auth', retryable: false });
    expect(upstream.requests.map((r) => [r.path, r.status])).toEqual([['/v1/files', 401]]);
  });

  it('waits out a 429 on the upload and on the training per retry-after, creating each once', async () => {
    const { run, upstream } = await setup();
    upstream.throttle('upload', 1, '0.2');
    upstream.throttle('train', 1, '0.2');
    const started = Date.now();
    await run(trainJob());
    expect(Date.now() - started).toBeGreaterThanOrEqual(380);
    expect(posts(upstream, '/v1/files').map((r) => r.status)).toEqual([429, 201]);
    expect(posts(upstream, /\/trainings$/).map((r) => r.status)).toEqual([429, 201]);
    expect(upstream.files.size).toBe(1);
    expect(upstream.trainings.size).toBe(1);
  });

  it('fails retryably on a 5xx upload or create, and when throttling persists', async () => {
    const { run, upstream } = await setup({}, { maxRateLimitWaits: 1 });
    upstream.failNext('upload', 1, 503);
    await expect(run(trainJob())).rejects.toMatchObject({ code: 'upstream_unavailable', retryable: true });
    upstream.failNext('train', 1, 502);
    await expect(run(trainJob())).rejects.toMatchObject({ code: 'upstream_unavailable', retryable: true });
    upstream.throttle('train', 5, '0');
    await expect(run(trainJob())).rejects.toMatchObject({ code: 'upstream_busy', retryable: true });
    expect(upstream.trainings.size).toBe(0);
  });

  it('resumes by upstream id after polls kept failing, without uploading or training again', async () => {
    const { run, upstream } = await setup({}, { maxPollFailures: 2 });
    upstream.failNext('getTraining', 5, 500);
    const error = await run(trainJob()).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'upstream_unavailable', retryable: true });
    const id = (error as { upstreamId?: string }).upstreamId;
    expect(id).toMatch(/^train/);

    upstream.failNext('getTraining', 0, 500);
    const resumed = await run(trainJob({ resumeUpstreamId: id }));
    expect(resumed.upstreamId).toBe(id);
    expect(upstream.files.size).toBe(1);
    expect(upstream.trainings.size).toBe(1);
  });

  it('starts over when the training it would resume never started (aborted) or is unknown', async () => {
    const { run, upstream } = await setup({ trainingScenario: (input) => (input.trigger_word === 'ABORTD' ? { outcome: 'aborted' } : { outcome: 'success' }) });
    const aborted = await run(trainJob({ triggerWord: 'ABORTD' })).catch((e: unknown) => e);
    expect(aborted).toMatchObject({ code: 'upstream_busy', retryable: true });
    const resumed = await run(trainJob({ resumeUpstreamId: (aborted as { upstreamId: string }).upstreamId }));
    expect(resumed.upstreamId).not.toBe((aborted as { upstreamId: string }).upstreamId);
    const fresh = await run(trainJob({ resumeUpstreamId: 'unknown-id' }));
    expect(upstream.trainings.size).toBe(3);
    expect(fresh.upstreamId).toMatch(/^train/);
  });

  it('cancels a training that runs too long', async () => {
    const { run, upstream } = await setup({ trainingScenario: () => ({ outcome: 'hang' }) }, { trainingTimeoutMs: 60 });
    const error = await run(trainJob()).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'timeout', message: 'The training took too long.' });
    const [training] = upstream.trainings.values();
    expect(training.canceled).toBe(true);
    expect(posts(upstream, `/v1/trainings/${training.id}/cancel`)).toHaveLength(1);
  });
});

describe('Replicate LoRA upstream cancel (a cancelled task whose worker died)', () => {
  it('cancels a training by its id, and does not throw for an id that is not a training', async () => {
    const { engine, run, upstream } = await setup({ trainingScenario: () => ({ outcome: 'hang' }) });
    const controller = new AbortController();
    const running = run(trainJob(), controller.signal).catch((e: unknown) => e);
    await expect.poll(() => upstream.trainings.size).toBe(1);
    controller.abort(new Error('worker died'));
    await running;
    const [training] = upstream.trainings.values();
    expect(training.canceled).toBe(false);
    await engine.cancelUpstream?.(training.id);
    expect(training.canceled).toBe(true);
    expect(posts(upstream, `/v1/trainings/${training.id}/cancel`)).toHaveLength(1);
    await expect(engine.cancelUpstream?.('no-such-job')).resolves.toBeUndefined();
  });
});

describe('Replicate LoRA generation against the fake upstream', () => {
  it('runs a prediction on the trained version with the trigger word, the count, the shape and the seed', async () => {
    const { run, progress, upstream } = await setup({}, { generationInput: { output_format: 'png', num_inference_steps: 28 } });
    const result = await run(generateJob());
    const [prediction] = upstream.predictions.values();
    expect(posts(upstream, '/v1/predictions')[0].body).toEqual({
      version: VERSION,
      input: {
        output_format: 'png',
        num_inference_steps: 28,
        prompt: 'photo of TOKMSN, a woman, in a bright office',
        num_outputs: 3,
        aspect_ratio: '3:4',
        seed: 7,
      },
    });
    expect(result).toMatchObject({ engine: 'replicate-lora', simulated: false, layout: 'set', upstreamId: prediction.id });
    expect(result.images).toEqual([1, 2, 3].map((i) => ({ source: 'url', url: `${upstream.baseUrl}/files/${prediction.id}-${i}.png` })));
    expect(progress.find((p) => p.upstreamId)?.upstreamId).toBe(prediction.id);
    expect(progress.at(-1)?.percentage).toBe(100);
  });

  it('asks for a custom size as aspect_ratio custom with width and height', async () => {
    const { run, upstream } = await setup();
    await run(generateJob({ aspectRatio: undefined, width: 800, height: 1200, seed: undefined, count: 1 }));
    expect(posts(upstream, '/v1/predictions')[0].body).toMatchObject({ input: { aspect_ratio: 'custom', width: 800, height: 1200, num_outputs: 1 } });
    expect((posts(upstream, '/v1/predictions')[0].body?.input as Record<string, unknown> | undefined)?.seed).toBeUndefined();
    expect(posts(upstream, '/v1/predictions')[0].body?.input).toBeDefined();
  });

  it('tells the user plainly about photos flagged as unsafe', async () => {
    const { run } = await setup({
      scenario: () => ({ outcome: 'failure', error: 'Exception: NSFW content detected. Try running it again, or try a different prompt.' }),
    });
    await expect(run(generateJob())).rejects.toMatchObject({
      code: 'upstream_failed',
      retryable: false,
      message: 'The photos were flagged as not safe for work; try another prompt.',
    });
  });

  it('resumes a prediction by upstream id without creating another', async () => {
    const { run, upstream } = await setup();
    const first = await run(generateJob());
    const again = await run(generateJob({ resumeUpstreamId: first.upstreamId }));
    expect(again.upstreamId).toBe(first.upstreamId);
    expect(posts(upstream, '/v1/predictions')).toHaveLength(1);
    // outputs deleted by Replicate: a new prediction
    upstream.removeData(first.upstreamId as string);
    const fresh = await run(generateJob({ resumeUpstreamId: first.upstreamId }));
    expect(fresh.upstreamId).not.toBe(first.upstreamId);
  });

  it('refuses a model another engine trained, or one without a version, before calling anything', async () => {
    const { run, upstream } = await setup();
    await expect(run(generateJob({ identity: identity({ engine: 'local-face' }) }))).rejects.toMatchObject({ code: 'unsupported', retryable: false });
    await expect(run(generateJob({ identity: identity({ data: {} }) }))).rejects.toMatchObject({
      code: 'invalid_input',
      message: 'This model has no trained version to generate from; train it again.',
    });
    expect(upstream.requests).toHaveLength(0);
  });

  it('generates on the version a training against the same upstream produced', async () => {
    const { run, upstream } = await setup();
    const trained = await run(trainJob());
    const result = await run(generateJob({ identity: identity({ data: trained.data ?? {}, upstreamId: trained.upstreamId }), count: 2 }));
    expect(result.images).toHaveLength(2);
    expect(posts(upstream, '/v1/predictions')[0].body?.version).toBe(versionIdOf(trained.data?.upstream_version));
  });
});
