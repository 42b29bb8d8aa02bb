/**
 * @module The Engine port: what the task worker asks of any media engine (the local
 * procedural/sharp engine, a midjourney-proxy upstream, later others) and what it gets back.
 * Engines never touch the database or the media store; the caller persists results.
 */

import { AUDIO_JOB_KINDS, type AudioJob } from './jobs/audio.ts';
import { type IdeogramStyleType, type MagicPromptOption, PICTURE_ACTION_JOB_KINDS, type PictureActionJob, type PictureSize } from './jobs/picture-actions.ts';
import { VIDEO_JOB_KINDS, type VideoJob } from './jobs/video.ts';

/** Which grid cell an action applies to (Midjourney's U1–U4 / V1–V4 buttons). */
export type CellIndex = 1 | 2 | 3 | 4;

/** `1x` is Midjourney's plain U button (the cell as is); the others enlarge the cell. */
export type UpscaleType = '1x' | 'subtle' | 'creative' | '2x' | '4x';

export type AspectRatio = '1:1' | '16:9' | '9:16' | '4:3' | '3:4' | '3:2' | '2:3';

/** The Flux models a flux-imagine job can ask for (v1 `model`). */
export type FluxModel = 'flux-schnell' | 'flux-dev' | 'flux-pro' | 'flux-pro-1.1' | 'flux-pro-1.1-ultra';

/**
 * What an action needs to know about the task it derives from. Each engine reads the parts
 * it needs: the local engine the parent's image bytes, an upstream adapter the id the
 * upstream gave the parent.
 */
export interface ParentRef {
  /** The id the upstream engine gave the parent task. */
  upstreamId?: string;
  /** The parent's primary image (a 2×2 grid or a single image). */
  image?: Uint8Array;
  layout?: 'grid' | 'single';
  prompt?: string;
  seed?: number;
}

/**
 * An input picture a user named by URL (faceswap's source and target): the worker reads it
 * before the engine runs (our own media from the media store, any other URL through the
 * guarded image fetcher), so every engine gets checked bytes; an upstream adapter may send
 * `url` instead when the upstream can reach it.
 */
export interface ImageInput {
  /** The URL the user gave (our media URL, or theirs). */
  url: string;
  data: Buffer;
  /** image/jpeg, image/png, image/gif or image/webp, read from the bytes. */
  contentType: string;
}

/** The person an AI photo upload shows (spec §3 AI photo upload inputs, §5 values). */
export interface PhotoSubject {
  gender: 'male' | 'female';
  /** One of spec §5's ethnicities: asian, black, latino, middle eastern, native american, pacific islander, white, mixed, other. */
  ethnicity: string;
  age: number;
}

/**
 * A trained AI photo identity, as its train task recorded it: what the training engine
 * returned in `data` (a local identity profile, or an upstream model version), the pictures
 * it kept (its result images, read back from the media store) and the upstream training id.
 * Only the engine that trained it can generate from it (`engine`).
 */
export interface TrainedIdentity {
  engine: string;
  triggerWord: string;
  subject: PhotoSubject;
  data: Record<string, unknown>;
  images: ImageInput[];
  upstreamId?: string;
}

interface JobBase {
  /**
   * Set when a previous attempt already submitted the job upstream (reported through
   * progress), so a retry resumes watching it instead of submitting (and paying) twice.
   */
  resumeUpstreamId?: string;
}

export type EngineJob = JobBase &
  (
    | {
        kind: 'imagine';
        prompt: string;
        seed?: number;
        mode?: 'fast' | 'turbo';
        /** The shape of the four pictures (v1 /imagine; Midjourney `--ar`); square when omitted. */
        aspectRatio?: AspectRatio;
      }
    | {
        kind: 'reroll';
        parent: ParentRef;
        seed?: number;
        /** A new prompt for the new grid (v1 /reroll; Midjourney's remix); the parent's when omitted. */
        prompt?: string;
      }
    | { kind: 'variation'; parent: ParentRef; index: CellIndex }
    | { kind: 'upscale'; parent: ParentRef; index: CellIndex; type: UpscaleType }
    | { kind: 'seed'; parent: ParentRef }
    /**
     * One picture from a prompt on a Flux model (v1 /flux-imagine). `size` (256–1440 a side)
     * wins over `aspectRatio`; square when neither is given. The rest are the model's knobs as
     * the v1 API names them, passed on where the model has them: `steps` and `guidance`
     * (flux-pro, flux-dev), `safetyTolerance` 0 (strict) – 6, `raw` and `imagePromptStrength`
     * 0–1 (flux-pro-1.1-ultra), `imagePrompt` (a picture to start from, read by the worker),
     * `promptUpsampling` (let the model rewrite the prompt). Omitted: the model's default.
     */
    | {
        kind: 'flux-imagine';
        prompt: string;
        seed?: number;
        aspectRatio?: AspectRatio;
        model?: FluxModel;
        size?: PictureSize;
        steps?: number;
        guidance?: number;
        safetyTolerance?: number;
        raw?: boolean;
        imagePrompt?: ImageInput;
        imagePromptStrength?: number;
        promptUpsampling?: boolean;
      }
    /**
     * Pictures from a prompt on Ideogram (v1 /ideogram-imagine): `resolution` (an exact size)
     * or `aspectRatio`, never both; `styleType`, `negativePrompt` (what to leave out),
     * `magicPrompt` (let the model rewrite the prompt). Omitted: the model's default.
     */
    | {
        kind: 'ideogram-imagine';
        prompt: string;
        seed?: number;
        aspectRatio?: AspectRatio;
        resolution?: PictureSize;
        styleType?: IdeogramStyleType;
        negativePrompt?: string;
        magicPrompt?: MagicPromptOption;
      }
    /** The face of `source` (spec: swap_image_url) put onto the face in `target` (target_image_url). */
    | { kind: 'faceswap'; source: ImageInput; target: ImageInput }
    /** Checks and prepares the 10–30 photos of one person (spec: ai-photo-upload). */
    | { kind: 'ai-photo-upload'; images: ImageInput[]; subject: PhotoSubject }
    /** Learns the person of an upload's photos (spec: ai-photo-train). */
    | { kind: 'ai-photo-train'; images: ImageInput[]; subject: PhotoSubject; triggerWord: string }
    /** Photos of a trained person (spec: ai-photo-generate; the screen asks for 4). */
    | {
        kind: 'ai-photo-generate';
        identity: TrainedIdentity;
        prompt: string;
        count: number;
        aspectRatio?: AspectRatio;
        width?: number;
        height?: number;
        seed?: number;
      }
    // the other families, each in its own file
    | PictureActionJob
    | VideoJob
    | AudioJob
  );

export type EngineJobKind = EngineJob['kind'];

export const ENGINE_JOB_KINDS: readonly EngineJobKind[] = [
  'imagine',
  'reroll',
  'variation',
  'upscale',
  'seed',
  'flux-imagine',
  'ideogram-imagine',
  'faceswap',
  'ai-photo-upload',
  'ai-photo-train',
  'ai-photo-generate',
  ...PICTURE_ACTION_JOB_KINDS,
  ...VIDEO_JOB_KINDS,
  ...AUDIO_JOB_KINDS,
];

/** Image bytes rendered here, or a URL an upstream serves (to be copied into our store). */
export type EngineImage =
  | { source: 'buffer'; data: Buffer; contentType: string; width: number; height: number }
  | { source: 'url'; url: string; width?: number; height?: number };

/** A video or audio file made here, or a URL an upstream serves (copied into our store; type read from the bytes). */
export type EngineFile = { source: 'buffer'; data: Buffer; contentType: string } | { source: 'url'; url: string };

/** A video result (Task.video_url is the first one, video_urls all). */
interface EngineVideo {
  file: EngineFile;
  /** A still for the gallery card (stored next to the video; result.videos[i].poster_url). */
  poster?: EngineImage;
  width?: number;
  height?: number;
  durationSec?: number;
  /** The upstream's id of this video, for extending it later. */
  upstreamId?: string;
}

/** A song (Task.audio_urls; result.songs[i] with audio_url, image_url (cover), title, lyrics, tags, duration). */
interface EngineSong {
  file: EngineFile;
  cover?: EngineImage;
  title?: string;
  lyrics?: string;
  tags?: string;
  durationSec?: number;
  /** The upstream's id of this song, for extending it later. */
  upstreamId?: string;
}

export interface EngineResult {
  /** Adapter name, e.g. `local` or `midjourney-proxy`. */
  engine: string;
  /** How the pixels were made, e.g. `procedural-svg`, `lanczos3`, `midjourney`. */
  method: string;
  /** True when the picture content is not a real generation (procedural stand-in). */
  simulated: boolean;
  /** A human-readable line about how the result was made. */
  note?: string;
  /**
   * `grid`: `image` is the 2×2 composition of `images`; `single`: one picture; `set`: several
   * pictures of equal rank (AI photos: `image_urls`, the first also `image_url`); `none`: no
   * picture (seed, an upload check).
   */
  layout: 'grid' | 'single' | 'set' | 'none';
  /** The primary picture (Task.image_url). */
  image?: EngineImage;
  /** The individual pictures (Task.image_urls): the four cells of a grid, or the single one. */
  images: EngineImage[];
  seed?: number;
  width?: number;
  height?: number;
  upstreamId?: string;
  /** Videos made (layout `none` unless there is also a picture). */
  videos?: EngineVideo[];
  /** Songs made. */
  songs?: EngineSong[];
  /** Text answers: the prompts of describe or shorten (result.prompts). */
  texts?: string[];
  /** Lyrics on their own (suno-lyrics; Task.lyrics). */
  lyrics?: string;
  /**
   * What else the run found, kept in the task's `result` under these keys (JSON): an upload's
   * per-photo verdicts, a training's identity profile or upstream model version, a
   * generation's identity scores. Keys must not clash with the worker's own (engine, method,
   * simulated, note, layout, width, height, upstream_id, message, code, videos, songs, prompts).
   */
  data?: Record<string, unknown>;
}

/** Non-terminal task statuses of spec §4 that an engine can report while it works. */
export type EngineStage = 'queued' | 'submitted' | 'starting' | 'running' | 'processing';

export interface EngineProgress {
  /** 0–100; never goes backwards within one run (enforced by defineEngine). */
  percentage: number;
  status?: EngineStage;
  /** Reported once an upstream accepted the job; persist it to resume after a crash. */
  upstreamId?: string;
}

export type ProgressListener = (progress: EngineProgress) => void;

export interface Engine {
  readonly name: string;
  readonly kinds: readonly EngineJobKind[];
  /** Kinds whose results are stand-ins, not real generations (`simulated: true`); none when omitted. */
  readonly simulatedKinds?: readonly EngineJobKind[];
  supports(kind: EngineJobKind): boolean;
  run(job: EngineJob, onProgress: ProgressListener, signal: AbortSignal): Promise<EngineResult>;
  /**
   * Stops the upstream job `upstreamId` (the id this engine reported in progress) when its task
   * was cancelled and no worker may be left to do it (it died holding the job). Best effort:
   * never throws, and cancelling an upstream job that already ended changes nothing. Only
   * hosted engines whose upstream can cancel have it.
   */
  cancelUpstream?(upstreamId: string): Promise<void>;
}

export type EngineErrorCode =
  | 'aborted'
  | 'unsupported'
  | 'invalid_input'
  | 'too_large'
  | 'banned_prompt'
  | 'upstream_failed'
  | 'upstream_rejected'
  | 'upstream_busy'
  | 'upstream_unavailable'
  | 'upstream_auth'
  | 'timeout'
  | 'internal';

/**
 * A failure of one engine run. `message` is safe to show the user (it becomes the task's
 * result message); `retryable` tells the job queue whether another attempt may succeed.
 */
export class EngineError extends Error {
  readonly code: EngineErrorCode;
  readonly retryable: boolean;
  /** Operator-facing detail (upstream body, banned word, ...), never shown to users. */
  readonly detail?: string;
  readonly upstreamId?: string;

  constructor(code: EngineErrorCode, message: string, options: { retryable?: boolean; detail?: string; upstreamId?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'EngineError';
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.detail = options.detail;
    this.upstreamId = options.upstreamId;
  }
}

export const GENERIC_ENGINE_FAILURE = 'The generation failed, please try again.';

export function isEngineError(error: unknown): error is EngineError {
  return error instanceof EngineError;
}

/**
 * The reason a job's AbortSignal carries when its owner cancelled the task (POST /cancel).
 * Unlike a lost lease or a worker stopping (another attempt resumes the upstream job), a
 * cancel is final: a hosted engine also cancels its upstream job where the upstream can.
 */
export class TaskCancelled extends Error {
  constructor() {
    super('cancelled by its owner');
    this.name = 'TaskCancelled';
  }
}

/** True when `signal` was aborted because the task was cancelled (see TaskCancelled). */
export function isCancelled(signal: AbortSignal): boolean {
  return signal.aborted && signal.reason instanceof TaskCancelled;
}
