/**
 * @module Engine jobs of the audio family (Suno, Udio) from their task rows: the words and
 * settings from input_data, an upload's file read through the guarded fetcher, and the song a
 * suno-ext continues read back from the media store with what its task recorded about it.
 */
import { EngineError } from '../../engines/engine.ts';
import type { SongRef, SunoModel, UdioModel } from '../../engines/jobs/audio.ts';
import type { JobBuilders } from './index.ts';

const text = (value: unknown) => (typeof value === 'string' && value ? value : undefined);
const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

export const audioJobs: JobBuilders = {
  suno: async ({ task, input, resume }) => ({
    kind: 'suno',
    prompt: task.prompt ?? '',
    lyrics: text(input.data.lyrics),
    model: text(input.data.model) as SunoModel | undefined,
    instrumental: input.data.make_instrumental === true,
    title: text(input.data.title),
    tags: text(input.data.tags),
    ...resume,
  }),

  udio: async ({ task, input, resume }) => ({
    kind: 'udio',
    prompt: task.prompt ?? '',
    lyrics: text(input.data.lyrics),
    model: text(input.data.model) as UdioModel | undefined,
    promptStrength: number(input.data.prompt_strength),
    clarityStrength: number(input.data.clarity_strength),
    lyricsStrength: number(input.data.lyrics_strength),
    generationQuality: number(input.data.generation_quality),
    negativePrompt: text(input.data.negative_prompt),
    lyricsPlacementStart: number(input.data.lyrics_placement_start),
    lyricsPlacementEnd: number(input.data.lyrics_placement_end),
    tags: text(input.data.tags),
    ...resume,
  }),

  'suno-lyrics': async ({ task, resume }) => ({ kind: 'suno-lyrics', prompt: task.prompt ?? '', ...resume }),

  'suno-upload': async ({ inputs, input, signal, resume }) => ({
    kind: 'suno-upload',
    audio: await inputs.inputAudio('uploaded audio', input.data.audio_url, signal),
    ...resume,
  }),

  'suno-extend': async ({ task, inputs, input, signal, resume }) => {
    const parent = await inputs.sourceTask(task.parent_id ?? input.data.parent_task_id, 'The song to extend no longer exists.');
    const songs = Array.isArray(parent.result?.songs) ? (parent.result.songs as Record<string, unknown>[]) : [];
    const songId = text(input.data.song_id);
    const song = (songId ? songs.find((s) => s.id === songId) : undefined) ?? songs[number(input.data.song_index) ?? 0];
    if (!song) throw new EngineError('invalid_input', 'The song to extend no longer exists.');
    const continueAt = number(input.data.continue_at);
    if (continueAt === undefined) throw new EngineError('invalid_input', 'The task does not say where to continue the song.');
    const ref: SongRef = {
      audio: await inputs.inputAudio('song to extend', song.audio_url, signal),
      upstreamId: text(song.id),
      engine: text(parent.result?.engine),
      title: text(song.title),
      tags: text(song.tags),
      lyrics: text(song.lyrics),
      durationSec: number(song.duration),
    };
    return {
      kind: 'suno-extend',
      song: ref,
      continueAt,
      fromUpload: input.data.from_upload === true,
      prompt: task.prompt ?? undefined,
      lyrics: text(input.data.lyrics),
      model: text(input.data.model) as SunoModel | undefined,
      title: text(input.data.title),
      tags: text(input.data.tags),
      ...resume,
    };
  },
};
