/**
 * Contract tests of the music family (engines/replicate/families/audio.ts) on the predictions
 * engine against support/fake-replicate.ts, whose meta/musicgen and minimax/music-1.5 check
 * every input against the schema Replicate documents: instrumentals on musicgen, sung songs
 * on minimax, continuations on musicgen, what is refused (with the reason) and ignored (in the
 * note), the song returned, the Files API for a song too large for a data URI, failures.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineJob } from '../src/engines/engine.ts';
import { type AudioModels, audioFamily, type HostedAudioJob, SUGGESTED_AUDIO_MODELS } from '../src/engines/replicate/families/audio.ts';
import { createReplicatePredictionsEngine, type ReplicatePredictionsOptions } from '../src/engines/replicate/predictions.ts';
import { FAKE_AUDIO_MODELS, FAKE_OUTPUT_WAV, type FakeReplicate, type FakeReplicateOptions, startFakeReplicate } from './support/fake-replicate.ts';

const TOKEN = 'r8_audio_token';
const MUSICGEN_VERSION = '671ac645ce5e552cc63a54a2bbff63fcf798043055d2dac5fc9e36a837eedcfb';

type SunoJob = Extract<EngineJob, { kind: 'suno' }>;
type ExtendJob = Extract<EngineJob, { kind: 'suno-extend' }>;
const suno = (over: Partial<SunoJob> = {}): SunoJob => ({ kind: 'suno', prompt: 'calm piano at dawn', instrumental: true, ...over });
const song = { url: 'http://localhost:8080/media/task-1-song-1.wav', data: FAKE_OUTPUT_WAV, contentType: 'audio/wav' };
const extend = (over: Partial<ExtendJob> = {}): ExtendJob => ({
  kind: 'suno-extend',
  song: { audio: song, title: 'Dawn', tags: 'piano, ambient', engine: 'local', durationSec: 60 },
  continueAt: 42.4,
  fromUpload: false,
  ...over,
});

let upstream: FakeReplicate | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

async function setup(
  models: AudioModels = SUGGESTED_AUDIO_MODELS,
  fake: Partial<FakeReplicateOptions> = {},
  adapter: Partial<ReplicatePredictionsOptions<HostedAudioJob>> = {},
) {
  const fakeUpstream = await startFakeReplicate({ token: TOKEN, models: [...FAKE_AUDIO_MODELS], ...fake });
  upstream = fakeUpstream;
  const engine = createReplicatePredictionsEngine({
    apiToken: TOKEN,
    baseUrl: fakeUpstream.baseUrl,
    family: audioFamily(models),
    pollIntervalMs: 5,
    ...adapter,
  });
  const run = (j: HostedAudioJob) => engine.run(j, () => {}, new AbortController().signal);
  const lastCreate = () => {
    const create = fakeUpstream.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/predictions')).at(-1)!;
    expect(create.status, JSON.stringify(create.body)).toBe(201);
    return { path: create.path, body: create.body };
  };
  return { engine, run, upstream: fakeUpstream, lastCreate };
}

describe('Music on Replicate', () => {
  it('makes a Suno instrumental on the pinned musicgen: one 30 s MP3 song, saying what it ignores', async () => {
    const { run, upstream, lastCreate } = await setup();
    const result = await run(suno({ tags: 'lofi', title: 'Morning', seed: 5, model: 'chirp-v4' }));
    expect(lastCreate()).toEqual({
      path: '/v1/predictions',
      body: { version: MUSICGEN_VERSION, input: { prompt: 'calm piano at dawn, lofi', duration: 30, output_format: 'mp3', seed: 5 } },
    });
    expect(result).toMatchObject({ engine: 'replicate-audio', method: 'instrumental', layout: 'none', images: [], simulated: false });
    expect(result.songs).toEqual([
      {
        file: { source: 'url', url: `${upstream.baseUrl}/files/${result.upstreamId}.mp3` },
        title: 'Morning',
        tags: 'lofi',
        durationSec: 30,
        upstreamId: result.upstreamId,
      },
    ]);
    expect(result.note).toBe(
      'meta/musicgen on Replicate. Not offered by meta/musicgen, ignored: model chirp-v4. One song per task (the model makes one per run).',
    );
  });

  it('sings lyrics on minimax/music-1.5 with the tags and description as the style', async () => {
    const { run, lastCreate } = await setup();
    const result = await run(suno({ instrumental: false, lyrics: '[Verse]\nSun on the water', tags: 'indie pop', seed: 3 }));
    expect(lastCreate()).toEqual({
      path: '/v1/models/minimax/music-1.5/predictions',
      body: { input: { prompt: 'indie pop, calm piano at dawn', lyrics: '[Verse]\nSun on the water', audio_format: 'mp3' } },
    });
    expect(result.method).toBe('song');
    expect(result.songs?.[0]).toMatchObject({ lyrics: '[Verse]\nSun on the water', tags: 'indie pop' });
    expect(result.note).toBe(
      'minimax/music-1.5 on Replicate. Not offered by minimax/music-1.5, ignored: seed. One song per task (the model makes one per run).',
    );
  });

  it('makes Udio songs by the same rule, its length from its model, its knobs named in the note', async () => {
    const { run, lastCreate } = await setup();
    const result = await run({ kind: 'udio', prompt: 'desert blues', model: 'udio130-v1.5', promptStrength: 0.6, negativePrompt: 'drums' });
    expect(lastCreate().body).toEqual({ version: MUSICGEN_VERSION, input: { prompt: 'desert blues', duration: 130, output_format: 'mp3' } });
    expect(result.note).toBe(
      'meta/musicgen on Replicate. Not offered by meta/musicgen, ignored: model udio130-v1.5, prompt_strength, negative_prompt. One song per task (the model makes one per run).',
    );
  });

  it.each([
    [suno({ instrumental: false }), 'Songs with vocals need lyrics here: give the lyrics, or ask for an instrumental.'],
    [suno({ instrumental: false, lyrics: 'la '.repeat(201) }), 'Lyrics here can be at most 600 characters (these are 602).'],
    [
      suno({ instrumental: false, lyrics: 'la la', prompt: 'x'.repeat(301) }),
      'The style (tags and description) here can be at most 300 characters (this is 301).',
    ],
    [extend({ lyrics: 'new words' }), 'Continuing a song with new lyrics is not available here; the model continues the music only.'],
    [extend({ continueAt: 280 }), 'Songs can be continued from at most 270 s here.'],
  ])('refuses what the models cannot do, before any call (%#)', async (job, message) => {
    const { run, upstream } = await setup();
    await expect(run(job)).rejects.toMatchObject({ code: 'unsupported', retryable: false, message });
    expect(upstream.requests).toEqual([]);
  });

  it('refuses the kind of song no model is configured for', async () => {
    const instrumentalOnly = await setup({ instrumental: SUGGESTED_AUDIO_MODELS.instrumental });
    await expect(instrumentalOnly.run(suno({ instrumental: false, lyrics: 'la la' }))).rejects.toMatchObject({
      code: 'unsupported',
      message: 'Songs with vocals are not available here; ask for an instrumental.',
    });
    await instrumentalOnly.upstream.close();
    const vocalsOnly = await setup({ vocals: SUGGESTED_AUDIO_MODELS.vocals });
    await expect(vocalsOnly.run(suno())).rejects.toMatchObject({ code: 'unsupported', message: 'Instrumentals are not available here; give lyrics to sing.' });
    expect(vocalsOnly.engine.kinds).toEqual(['suno', 'udio']);
  });

  it('continues a song on musicgen from continueAt, the song uploaded through the Files API and deleted afterwards', async () => {
    const { run, upstream, lastCreate } = await setup(SUGGESTED_AUDIO_MODELS, {}, { maxDataUriBytes: 1000 });
    const result = await run(extend({ prompt: 'more strings', seed: 9 }));
    const [file] = upstream.files.values();
    expect(file).toMatchObject({ name: 'input.wav', contentType: 'audio/wav', deleted: true });
    expect(file.data.equals(FAKE_OUTPUT_WAV)).toBe(true);
    expect(lastCreate().body).toEqual({
      version: MUSICGEN_VERSION,
      input: {
        input_audio: `${upstream.baseUrl}/v1/files/${file.id}`,
        continuation: true,
        continuation_start: 0,
        continuation_end: 42,
        duration: 72,
        output_format: 'mp3',
        prompt: 'more strings, piano, ambient',
        seed: 9,
      },
    });
    expect(result).toMatchObject({ method: 'continuation' });
    expect(result.songs?.[0]).toMatchObject({ title: 'Dawn', tags: 'piano, ambient', durationSec: 72 });
    expect(result.note).toBe('meta/musicgen on Replicate.');
  });

  it('runs suno-extend only on a model that continues audio; never suno-lyrics or suno-upload', () => {
    expect(audioFamily(SUGGESTED_AUDIO_MODELS).kinds).toEqual(['suno', 'udio', 'suno-extend']);
    expect(audioFamily({ instrumental: 'acme/other-music' }).kinds).toEqual(['suno', 'udio']);
    expect(audioFamily({}).kinds).toEqual([]);
  });

  it('fails with the model’s last error line, and a retry resumes the prediction', async () => {
    const failing = await setup(SUGGESTED_AUDIO_MODELS, { scenario: () => ({ outcome: 'failure', error: 'Traceback …\nValueError: duration too long' }) });
    await expect(failing.run(suno())).rejects.toMatchObject({ code: 'upstream_failed', message: 'The music generation failed: ValueError: duration too long' });
    await failing.upstream.close();

    const { run, upstream } = await setup();
    const first = await run(suno());
    await expect(run({ ...suno(), resumeUpstreamId: first.upstreamId })).resolves.toMatchObject({ upstreamId: first.upstreamId });
    expect(upstream.predictions.size).toBe(1);
  });
});
