/**
 * @module Music on Replicate (engine and queue `replicate-audio`): the Suno and Udio song
 * tasks as predictions on the music models an operator names (REPLICATE_AUDIO_MODELS `{
 * instrumental, vocals }`). Suno and Udio themselves are not on Replicate, so this is what
 * maps, honestly:
 *
 * | task                         | key            | suggested model              | inputs sent                                                                       |
 * | ---------------------------- | -------------- | ---------------------------- | --------------------------------------------------------------------------------- |
 * | suno / udio, instrumental    | `instrumental` | meta/musicgen:671ac645…      | prompt (description and tags), duration, output_format mp3, seed                  |
 * | suno / udio with lyrics      | `vocals`       | minimax/music-1.5            | prompt (style: tags and description, ≤ 300 characters), lyrics (≤ 600), audio_format mp3 |
 * | suno-extend                  | `instrumental` | meta/musicgen (continuation) | input_audio (the song), continuation true, continuation_end, duration, prompt     |
 *
 * A Udio task is instrumental when it has no lyrics. Song length: 30 s for Suno (musicgen),
 * Udio's 32 or 130 s by its model; a continuation keeps the song up to `continueAt` and adds
 * 30 s (musicgen outputs the kept part and the new one, as suno-extend promises). One song per
 * task where Suno and Udio make two: each prediction makes one, and the note says so.
 *
 * Refused with a clear 'unsupported' failure (refunded): a sung song without lyrics (Suno
 * writes its own; these models do not), lyrics over 600 or a style over 300 characters, a
 * song of a kind no model is configured for, continuing with new lyrics, continuing from past
 * 270 s. Not run here at all (left to the local engine): suno-lyrics (no lyrics model) and
 * suno-upload (storing the user's own audio is no generation). Options a model has no input
 * for (Suno's and Udio's model names, Udio's strengths and negative prompt, a seed on
 * minimax) are ignored and the note says so.
 */
import { type EngineJob, EngineError } from '../../engine.ts';
import { type Prediction, readOutputUrls } from '../protocol.ts';
import type { FamilyResult, FileInputs, PredictionFamily, PredictionRequest } from '../predictions.ts';

type SunoJob = Extract<EngineJob, { kind: 'suno' }>;
type UdioJob = Extract<EngineJob, { kind: 'udio' }>;
type ExtendJob = Extract<EngineJob, { kind: 'suno-extend' }>;
export type HostedAudioJob = SunoJob | UdioJob | ExtendJob;

export const SUGGESTED_AUDIO_MODELS = {
  instrumental: 'meta/musicgen:671ac645ce5e552cc63a54a2bbff63fcf798043055d2dac5fc9e36a837eedcfb',
  vocals: 'minimax/music-1.5',
} as const;

export type AudioModelKey = keyof typeof SUGGESTED_AUDIO_MODELS;
export const AUDIO_MODEL_KEYS = Object.keys(SUGGESTED_AUDIO_MODELS) as AudioModelKey[];
export type AudioModels = Partial<Record<AudioModelKey, string>>;

/** Seconds of music a Suno task gets (musicgen makes what it is asked; Suno's own songs run minutes). */
const SUNO_SECONDS = 30;
/** Seconds a continuation adds after the kept part. */
const EXTEND_SECONDS = 30;
/** musicgen's longest output. */
const MAX_SECONDS = 300;
const MAX_LYRICS = 600;
const MAX_STYLE = 300;

const nameOf = (model: string) => model.split(':')[0];
const isMusicgen = (model: string) => nameOf(model) === 'meta/musicgen';

const unsupported = (message: string, model?: string) => new EngineError('unsupported', message, { detail: model ? `model ${model}` : undefined });

const describe = (...parts: (string | undefined)[]) =>
  parts
    .map((p) => p?.trim())
    .filter(Boolean)
    .join(', ');

/** Sung (lyrics given) or instrumental; a sung song without lyrics cannot be made here. */
function voiceOf(job: SunoJob | UdioJob): 'vocals' | 'instrumental' {
  if (job.kind === 'suno' && job.instrumental) return 'instrumental';
  if (job.lyrics?.trim()) return 'vocals';
  if (job.kind === 'udio') return 'instrumental';
  throw unsupported('Songs with vocals need lyrics here: give the lyrics, or ask for an instrumental.');
}

function secondsOf(job: SunoJob | UdioJob): number {
  if (job.kind === 'udio') return job.model === 'udio130-v1.5' ? 130 : 32;
  return SUNO_SECONDS;
}

/** The model a job runs on, or a refusal naming what is missing. */
function modelFor(job: HostedAudioJob, models: AudioModels): { model: string; voice: 'vocals' | 'instrumental' } {
  const voice = job.kind === 'suno-extend' ? 'instrumental' : voiceOf(job);
  const model = models[voice];
  if (!model) {
    throw unsupported(
      voice === 'vocals' ? 'Songs with vocals are not available here; ask for an instrumental.' : 'Instrumentals are not available here; give lyrics to sing.',
    );
  }
  return { model, voice };
}

function songInput(job: SunoJob | UdioJob, model: string, voice: 'vocals' | 'instrumental'): Record<string, unknown> {
  if (voice === 'instrumental') {
    const prompt = describe(job.prompt, job.tags);
    if (!prompt) throw new EngineError('invalid_input', 'Describe the music: a prompt or tags.');
    if (!isMusicgen(model)) return { prompt, duration: secondsOf(job) };
    const input: Record<string, unknown> = { prompt, duration: secondsOf(job), output_format: 'mp3' };
    if (job.seed !== undefined) input.seed = job.seed;
    return input;
  }
  const lyrics = job.lyrics?.trim() ?? '';
  if (lyrics.length > MAX_LYRICS) throw unsupported(`Lyrics here can be at most ${MAX_LYRICS} characters (these are ${lyrics.length}).`, model);
  const style = describe(job.tags, job.prompt) || 'a song with vocals';
  if (style.length > MAX_STYLE)
    throw unsupported(`The style (tags and description) here can be at most ${MAX_STYLE} characters (this is ${style.length}).`, model);
  return { prompt: style, lyrics, audio_format: 'mp3' };
}

async function extendInput(job: ExtendJob, model: string, files: FileInputs): Promise<Record<string, unknown>> {
  if (!isMusicgen(model)) throw unsupported(`Continuing songs needs a model that continues audio (meta/musicgen); ${nameOf(model)} does not.`, model);
  if (job.lyrics?.trim()) throw unsupported('Continuing a song with new lyrics is not available here; the model continues the music only.', model);
  const keep = Math.max(1, Math.round(job.continueAt));
  if (keep + EXTEND_SECONDS > MAX_SECONDS) throw unsupported(`Songs can be continued from at most ${MAX_SECONDS - EXTEND_SECONDS} s here.`, model);
  const input: Record<string, unknown> = {
    input_audio: await files.value(job.song.audio),
    continuation: true,
    continuation_start: 0,
    continuation_end: keep,
    duration: keep + EXTEND_SECONDS,
    output_format: 'mp3',
  };
  const prompt = describe(job.prompt, job.tags ?? job.song.tags);
  if (prompt) input.prompt = prompt;
  if (job.seed !== undefined) input.seed = job.seed;
  return input;
}

function ignoredOptions(job: HostedAudioJob, model: string): string[] {
  const ignored: string[] = [];
  if (job.model) ignored.push(`model ${job.model}`);
  if (job.kind === 'udio') {
    const udio: [string, unknown][] = [
      ['prompt_strength', job.promptStrength],
      ['clarity_strength', job.clarityStrength],
      ['lyrics_strength', job.lyricsStrength],
      ['generation_quality', job.generationQuality],
      ['negative_prompt', job.negativePrompt],
      ['lyrics_placement', job.lyricsPlacementStart ?? job.lyricsPlacementEnd],
    ];
    for (const [name, value] of udio) if (value !== undefined) ignored.push(name);
  }
  if (!isMusicgen(model) && job.seed !== undefined) ignored.push('seed');
  const notes = ignored.length ? [`Not offered by ${nameOf(model)}, ignored: ${ignored.join(', ')}.`] : [];
  if (job.kind !== 'suno-extend') notes.push('One song per task (the model makes one per run).');
  return notes;
}

/** The family for the models configured (suno-extend only with a model that continues audio). */
export function audioFamily(models: AudioModels): PredictionFamily<HostedAudioJob> {
  const kinds: HostedAudioJob['kind'][] = models.instrumental || models.vocals ? ['suno', 'udio'] : [];
  if (models.instrumental && isMusicgen(models.instrumental)) kinds.push('suno-extend');
  return {
    name: 'replicate-audio',
    kinds,
    words: { service: 'The music service', work: 'The music generation' },
    typicalMs: 60_000,
    async request(job, files): Promise<PredictionRequest> {
      const { model, voice } = modelFor(job, models);
      if (job.kind === 'suno-extend') return { model, input: await extendInput(job, model, files) };
      return { model, input: songInput(job, model, voice) };
    },
    result(output: unknown, job: HostedAudioJob, prediction: Prediction, model: string): FamilyResult | undefined {
      const [url] = readOutputUrls(output);
      if (!url) return undefined;
      const duration = prediction.input?.duration;
      const extend = job.kind === 'suno-extend';
      const title = job.kind === 'udio' ? undefined : (job.title ?? (job.kind === 'suno-extend' ? job.song.title : undefined));
      const tags = job.kind === 'suno-extend' ? (job.tags ?? job.song.tags) : job.tags;
      const lyrics = !extend && prediction.input?.lyrics ? job.lyrics : undefined;
      return {
        method: extend ? 'continuation' : lyrics ? 'song' : 'instrumental',
        simulated: false,
        note: [`${model} on Replicate.`, ...ignoredOptions(job, model)].join(' '),
        layout: 'none',
        images: [],
        songs: [
          {
            file: { source: 'url', url },
            ...(title ? { title } : {}),
            ...(lyrics ? { lyrics } : {}),
            ...(tags ? { tags } : {}),
            ...(typeof duration === 'number' ? { durationSec: duration } : {}),
            upstreamId: prediction.id,
          },
        ],
      };
    },
  };
}
