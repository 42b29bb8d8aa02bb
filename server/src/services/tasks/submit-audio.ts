/**
 * @module The audio tasks (spec §3 suno, suno-ext, suno-lyrics, suno-upload, udio; the v1
 * calls /suno-imagine, /suno-extend, /suno-lyrics, /suno-upload, /udio-imagine). The route
 * schemas check each field's type and range; this checks what needs more than one field or
 * our records (prompt or lyrics, the lyrics placement, the song to extend and where, the audio
 * URL), then creates the task with its price held. The worker builds the engine job from
 * `input_data` (workers/jobs/audio.ts).
 */
import { DEFAULT_SUNO_MODEL, DEFAULT_UDIO_MODEL, type SunoModel, type UdioModel } from '../../engines/jobs/audio.ts';
import { ApiError } from '../../errors.ts';
import { songRepository } from '../../repositories/song-repository.ts';
import { taskRepository, type TaskRow } from '../../repositories/task-repository.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { checkImageUrl } from '../../storage/image-url.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { type WebhookInput, webhookOf } from './submit-inputs.ts';
import { createTask, type TaskDeps } from './create-task.ts';
import { TASK_NOT_FOUND_MESSAGE } from './submit-from-parent.ts';
import { isFinished } from './task-view.ts';

type AudioDeps = TaskDeps & { media: MediaStore };

/** Clip lengths of Udio's models, seconds: the lyrics placement must fall inside. */
export const UDIO_SECONDS: Readonly<Record<UdioModel, number>> = { 'udio32-v1.5': 32, 'udio130-v1.5': 130 };

/** Task types whose songs /suno-extend continues. */
const EXTENDABLE_TYPES = ['suno', 'suno-ext', 'suno-upload'] as const;

const refuse = (field: string, problem: string) => new ApiError('validation_failed', `${field}: ${problem}`);

/** Only the fields given (and not blank), so input_data shows what the task was asked. */
function given(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== null && v !== ''));
}

const blankToUndefined = (text: string | null | undefined) => (text?.trim() ? text.trim() : undefined);

export interface SunoImagineInput extends WebhookInput {
  prompt?: string;
  lyrics?: string;
  model?: SunoModel;
  make_instrumental?: boolean;
  title?: string;
  tags?: string;
}

/** POST /suno-imagine: two songs from a description and/or lyrics (task type suno). */
export function submitSunoImagine(deps: AudioDeps, account: Account, input: SunoImagineInput): Promise<{ task_id: string }> {
  const prompt = blankToUndefined(input.prompt);
  const lyrics = blankToUndefined(input.lyrics);
  if (!prompt && !lyrics) throw refuse('prompt', 'Required (describe the song, or give its lyrics)');
  if (input.make_instrumental && !prompt) throw refuse('prompt', 'Required for an instrumental (lyrics are not sung in one)');
  return createTask(deps, account, {
    type: 'suno',
    prompt: prompt ?? null,
    inputData: given({
      lyrics,
      model: input.model ?? DEFAULT_SUNO_MODEL,
      make_instrumental: input.make_instrumental ?? false,
      title: blankToUndefined(input.title),
      tags: blankToUndefined(input.tags),
    }),
    webhook: webhookOf(input),
  });
}

export interface UdioImagineInput extends WebhookInput {
  prompt?: string;
  lyrics?: string;
  model?: UdioModel;
  bypass_prompt_optimization?: boolean;
  prompt_strength?: number;
  clarity_strength?: number;
  lyrics_strength?: number;
  generation_quality?: number;
  negative_prompt?: string;
  lyrics_placement_start?: number;
  lyrics_placement_end?: number;
  tags?: string;
}

/** POST /udio-imagine: two songs, each with its own lyrics unless given (task type udio). */
export function submitUdioImagine(deps: AudioDeps, account: Account, input: UdioImagineInput): Promise<{ task_id: string }> {
  const prompt = blankToUndefined(input.prompt);
  const lyrics = blankToUndefined(input.lyrics);
  if (!prompt && !lyrics) throw refuse('prompt', 'Required (describe the song, or give its lyrics)');
  const model = input.model ?? DEFAULT_UDIO_MODEL;
  const seconds = UDIO_SECONDS[model];
  const { lyrics_placement_start: start, lyrics_placement_end: end } = input;
  if (start !== undefined && start >= seconds)
    throw refuse('lyrics_placement_start', `Must be less than ${seconds} (the length in seconds of a ${model} song)`);
  if (end !== undefined && end > seconds) throw refuse('lyrics_placement_end', `Must be at most ${seconds} (the length in seconds of a ${model} song)`);
  if (start !== undefined && end !== undefined && end <= start) throw refuse('lyrics_placement_end', 'Must be after lyrics_placement_start');
  return createTask(deps, account, {
    type: 'udio',
    prompt: prompt ?? null,
    inputData: given({
      lyrics,
      model,
      bypass_prompt_optimization: input.bypass_prompt_optimization,
      prompt_strength: input.prompt_strength,
      clarity_strength: input.clarity_strength,
      lyrics_strength: input.lyrics_strength,
      generation_quality: input.generation_quality,
      negative_prompt: blankToUndefined(input.negative_prompt),
      lyrics_placement_start: start,
      lyrics_placement_end: end,
      tags: blankToUndefined(input.tags),
    }),
    webhook: webhookOf(input),
  });
}

/** POST /suno-lyrics: lyrics only, no song (task type suno-lyrics). */
export function submitSunoLyrics(deps: AudioDeps, account: Account, input: WebhookInput & { prompt: string }): Promise<{ task_id: string }> {
  return createTask(deps, account, { type: 'suno-lyrics', prompt: input.prompt, webhook: webhookOf(input) });
}

/**
 * POST /suno-upload: an audio file by URL made into a song that /suno-extend can continue
 * (task type suno-upload). Checked here as far as the URL shows (like faceswap's pictures):
 * well formed and allowed, or one of our own media URLs that names a stored file; the
 * worker reads it through the guarded fetcher and an unreadable file fails the task with a refund.
 */
export async function submitSunoUpload(deps: AudioDeps, account: Account, input: WebhookInput & { audio_url: string }): Promise<{ task_id: string }> {
  const url = input.audio_url.trim();
  if (!url) throw refuse('audio_url', 'Must not be empty');
  const key = deps.media.keyOf(url);
  if (key) {
    if (!(await deps.media.has(key))) throw refuse('audio_url', 'No audio of this server has this URL (upload it with POST /upload-audio)');
  } else {
    const checked = checkImageUrl(url, deps.config);
    if ('problem' in checked) throw refuse('audio_url', checked.problem);
  }
  return createTask(deps, account, { type: 'suno-upload', prompt: null, inputData: { audio_url: url }, webhook: webhookOf(input) });
}

export interface SunoExtendInput extends WebhookInput {
  parent_task_id?: string;
  song_id?: string;
  continue_at?: number;
  from_upload?: boolean;
  prompt?: string;
  lyrics?: string;
  model?: SunoModel;
  title?: string;
  tags?: string;
}

interface StoredSong {
  id?: unknown;
  audio_url?: unknown;
  duration?: unknown;
}

const songsOf = (task: TaskRow): StoredSong[] => (Array.isArray(task.result?.songs) ? (task.result.songs as StoredSong[]) : []);

/** The task to extend and which of its songs: by parent_task_id (and song_id), or by song_id alone. */
async function songToExtend(deps: AudioDeps, account: Account, input: SunoExtendInput): Promise<{ parent: TaskRow; index: number }> {
  let parentId = input.parent_task_id;
  if (!parentId) {
    if (!input.song_id) throw refuse('parent_task_id', 'Required (or give song_id)');
    parentId = await songRepository(deps.db).findOwnTaskIdBySongId(account.id, input.song_id);
    if (!parentId) throw new ApiError('not_found', 'Song not found');
  }
  const parent = await taskRepository(deps.db).findOwn(account.id, parentId);
  if (!parent) throw new ApiError('not_found', TASK_NOT_FOUND_MESSAGE);
  if (!(EXTENDABLE_TYPES as readonly string[]).includes(parent.type)) {
    throw new ApiError('conflict', `Only songs of ${EXTENDABLE_TYPES.join(', ')} tasks can be extended (this is a ${parent.type} task)`);
  }
  if (!isFinished(parent.status)) throw new ApiError('conflict', 'The task has not finished successfully');
  const songs = songsOf(parent);
  if (songs.length === 0 || typeof songs[0].audio_url !== 'string') throw new ApiError('conflict', 'The task has no songs to extend');
  if (!input.song_id) return { parent, index: 0 };
  const index = songs.findIndex((s) => s.id === input.song_id);
  if (index < 0) throw refuse('song_id', 'No song of this task has this id');
  return { parent, index };
}

/** POST /suno-extend: a song continued from continue_at seconds (task type suno-ext). */
export async function submitSunoExtend(deps: AudioDeps, account: Account, input: SunoExtendInput): Promise<{ task_id: string }> {
  const { parent, index } = await songToExtend(deps, account, input);
  const upload = parent.type === 'suno-upload';
  if (input.from_upload && !upload) throw refuse('from_upload', `The task is not an audio upload (it is ${parent.type}); leave from_upload out`);
  const song = songsOf(parent)[index];
  const duration = typeof song.duration === 'number' && song.duration > 0 ? song.duration : undefined;
  const continueAt = input.continue_at ?? duration;
  if (continueAt === undefined) throw refuse('continue_at', 'Required (the length of this song is not known)');
  if (duration !== undefined && continueAt > duration) throw refuse('continue_at', `Must be at most ${duration} (the length of the song in seconds)`);
  return createTask(deps, account, {
    type: 'suno-ext',
    prompt: blankToUndefined(input.prompt) ?? parent.prompt,
    parentPrompt: parent.prompt,
    parentId: parent.id,
    inputData: given({
      parent_task_id: parent.id,
      song_id: typeof song.id === 'string' ? song.id : undefined,
      song_index: index,
      continue_at: continueAt,
      from_upload: upload,
      lyrics: blankToUndefined(input.lyrics),
      model: input.model,
      title: blankToUndefined(input.title),
      tags: blankToUndefined(input.tags),
    }),
    webhook: webhookOf(input),
  });
}
