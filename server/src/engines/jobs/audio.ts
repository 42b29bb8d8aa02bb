/**
 * @module The Engine port's audio jobs (spec §3 task types suno, suno-ext, suno-lyrics,
 * suno-upload, udio; the v1 calls /suno-imagine, /suno-extend, /suno-lyrics, /suno-upload,
 * /udio-imagine): each job's shape, and its kind in the list every engine registry and the
 * worker know. Defined here, not in engine.ts, so each family grows in its own file.
 *
 * What an engine answers (EngineResult in engine.ts):
 * - `suno`, `udio`, `suno-extend`: `songs` (Suno and Udio make two per call), each a file
 *   (MP3, WAV, Ogg or M4A; the worker reads the type from the bytes), an optional `cover`
 *   picture, `title`, `lyrics` (none for an instrumental), `tags`, `durationSec` and
 *   `upstreamId` (the engine's id of the song: `/suno-extend` names a song by it, and an
 *   upstream adapter gets it back in `SongRef.upstreamId`); `layout: 'none'`, `images: []`.
 * - `suno-lyrics`: `lyrics` only (Task.lyrics), no song.
 * - `suno-upload`: one song, the uploaded audio itself (which `suno-extend` can then continue
 *   with `fromUpload`), with its real duration.
 *
 * Every field an adapter does not understand may be ignored, but say so in the result's note
 * rather than pretend (e.g. a model name the upstream does not offer).
 */

/**
 * An audio file a user named by URL (suno-upload's audio_url) or a song of ours (the song a
 * suno-extend continues): the worker reads the bytes before the engine runs, our own media
 * from the media store, any other URL through the guarded fetcher, so an engine always gets
 * checked bytes. An upstream adapter may send `url` instead when the upstream can reach it.
 */
export interface AudioInput {
  /** The URL the user gave, or the stored song's URL (our media URL). */
  url: string;
  data: Buffer;
  /** audio/mpeg, audio/wav, audio/ogg or audio/mp4, read from the bytes. */
  contentType: string;
}

/** The song a suno-extend continues: one song of a finished suno, suno-ext, udio or suno-upload task. */
export interface SongRef {
  audio: AudioInput;
  /** The id the engine that made the song gave it (result.songs[i].id); an upstream extends by it. */
  upstreamId?: string;
  /** The engine that made it (the parent task's result.engine); an upstream id only means something there. */
  engine?: string;
  title?: string;
  tags?: string;
  lyrics?: string;
  durationSec?: number;
}

/** Suno's models (v1 `model`); the chirp-* names are the legacy aliases Suno still accepts. */
export const SUNO_MODELS = [
  'chirp-v3-0',
  'chirp-v3-5',
  'chirp-v4',
  'chirp-auk',
  'chirp-bluejay',
  'chirp-crow',
  'V4',
  'V4_5',
  'V4_5PLUS',
  'V4_5ALL',
  'V5',
] as const;
export type SunoModel = (typeof SUNO_MODELS)[number];
export const DEFAULT_SUNO_MODEL: SunoModel = 'chirp-v4';

/** Udio's models: 32-second and 130-second clips. */
export const UDIO_MODELS = ['udio32-v1.5', 'udio130-v1.5'] as const;
export type UdioModel = (typeof UDIO_MODELS)[number];
export const DEFAULT_UDIO_MODEL: UdioModel = 'udio32-v1.5';

export type AudioJob =
  /** Two songs from a description (`prompt`) and/or `lyrics`; `instrumental` songs have no words. */
  | {
      kind: 'suno';
      /** What the song is like; may be empty when `lyrics` are given. */
      prompt: string;
      /** The words to sing; absent: the engine writes its own (unless instrumental). */
      lyrics?: string;
      model?: SunoModel;
      instrumental: boolean;
      title?: string;
      /** Style tags, e.g. 'rap pop'. */
      tags?: string;
      /** Makes a run repeatable where the engine can (the local one: same seed, same bytes). */
      seed?: number;
    }
  /**
   * Continues `song` from `continueAt` seconds: the result keeps the song's first `continueAt`
   * seconds and goes on from there. `fromUpload`: the song is an upload (suno-upload).
   */
  | {
      kind: 'suno-extend';
      song: SongRef;
      /** Seconds into the song, more than 0 and at most its duration. */
      continueAt: number;
      fromUpload: boolean;
      prompt?: string;
      lyrics?: string;
      model?: SunoModel;
      title?: string;
      tags?: string;
      seed?: number;
    }
  /** Lyrics only (EngineResult.lyrics), written from a description. */
  | { kind: 'suno-lyrics'; prompt: string; seed?: number }
  /** An audio file the user uploaded, made into a song that suno-extend can continue. */
  | { kind: 'suno-upload'; audio: AudioInput }
  /** Two songs (Udio). Strengths and quality are 0–1; the lyrics placement is in seconds into the song. */
  | {
      kind: 'udio';
      prompt: string;
      lyrics?: string;
      model?: UdioModel;
      /** How closely the song follows the prompt. */
      promptStrength?: number;
      /** How clean and separated the instruments sound. */
      clarityStrength?: number;
      /** How prominent the sung words are. */
      lyricsStrength?: number;
      generationQuality?: number;
      /** What the song should not have (instruments, styles). */
      negativePrompt?: string;
      lyricsPlacementStart?: number;
      lyricsPlacementEnd?: number;
      tags?: string;
      seed?: number;
    };

export const AUDIO_JOB_KINDS: readonly AudioJob['kind'][] = ['suno', 'suno-extend', 'suno-lyrics', 'suno-upload', 'udio'];
