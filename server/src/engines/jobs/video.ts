/**
 * @module The Engine port's video jobs (Luma generate/extend, Kling video and virtual try-on,
 * Runway, Midjourney's image-to-video and its extension): each job's shape, and its kind in
 * the list every engine registry and the worker know. Defined here, not in engine.ts, so each
 * family grows in its own file.
 *
 * For adapters: every picture or video a user named by URL arrives already read and checked
 * (`ImageInput`, `VideoInput`: our own media from the store, other URLs through the guarded
 * fetcher), with the URL the user gave; send `url` when the upstream can reach it, else the
 * bytes. Options the user left out are undefined: the upstream's default applies. Results are
 * `EngineResult.videos` (file, poster, width, height, durationSec, upstreamId); kling-tryon
 * answers a picture (`layout: 'single'`), as Kling's try-on does.
 *
 * Task types (spec §3) → kinds: luma → luma, luma-ext → luma-extend, kling-video,
 * kling-tryon, runway, imagine-video, imagine-video-extend (services/tasks/task-kinds.ts).
 */
import type { ImageInput } from '../engine.ts';

/** Frame shapes the video upstreams offer (Luma all seven; Kling and Runway all but 9:21). */
export type VideoAspectRatio = '1:1' | '16:9' | '9:16' | '4:3' | '3:4' | '21:9' | '9:21';

/** A video a user named by URL (runway's video2video input), read and checked like an ImageInput. */
export interface VideoInput {
  /** The URL the user gave (our media URL, or theirs). */
  url: string;
  data: Buffer;
  /** video/mp4 or video/webm, read from the bytes. */
  contentType: string;
}

/**
 * The video an extension continues: one video of a finished task of the same family, as the
 * worker stored it. An upstream adapter extends by `upstreamId` (the id the upstream gave that
 * video); one that takes a file sends `video`; the local engine appends to `video`'s frames.
 */
export interface VideoParentRef {
  /** The parent task's id and type (luma, luma-ext, imagine-video, imagine-video-extend). */
  taskId: string;
  taskType: string;
  /** Which of the parent's videos (1-based; always 1 for a family with one video per task). */
  index: number;
  /** The stored video (from the media store, never re-downloaded from an upstream). */
  video: VideoInput;
  /** Its stored still (the first frame), when it has one. */
  poster?: ImageInput;
  /** The id the upstream gave this video (result.videos[i].id), or the parent's upstream task id. */
  upstreamId?: string;
  /** The engine that made it (the parent's result.engine). */
  engine?: string;
  prompt?: string;
  width?: number;
  height?: number;
  durationSec?: number;
}

export type VideoMotion = 'low' | 'high';

export const KLING_MODELS = ['kling-v1', 'kling-v1-5', 'kling-v1-6'] as const;
export const KLING_TRYON_MODELS = ['kolors-virtual-try-on-v1', 'kolors-virtual-try-on-v1-5'] as const;
export const RUNWAY_MODELS = ['gen3', 'gen3a_turbo'] as const;

export type VideoJob =
  /** Luma Dream Machine: a clip from a prompt, optionally between a start and an end frame. */
  | {
      kind: 'luma';
      prompt: string;
      image?: ImageInput;
      endImage?: ImageInput;
      enhancePrompt?: boolean;
      aspectRatio?: VideoAspectRatio;
      loop?: boolean;
    }
  /** Luma extend: `parent` continued by a new clip from `prompt` (optionally ending on `endImage`). */
  | {
      kind: 'luma-extend';
      parent: VideoParentRef;
      prompt: string;
      endImage?: ImageInput;
      enhancePrompt?: boolean;
      loop?: boolean;
    }
  /** Kling: text-to-video, or image-to-video from `image` (optionally ending on `endImage`). */
  | {
      kind: 'kling-video';
      prompt: string;
      generationType: 'text2video' | 'image2video';
      negativePrompt?: string;
      image?: ImageInput;
      endImage?: ImageInput;
      mode: 'std' | 'pro';
      /** text2video only. */
      aspectRatio?: VideoAspectRatio;
      model?: (typeof KLING_MODELS)[number];
      durationSec: 5 | 10;
      /** 0–1: how closely to follow the prompt. */
      cfgScale: number;
    }
  /** Kling (Kolors) virtual try-on: the garment of `cloth` put on the person of `human`; answers a picture. */
  | { kind: 'kling-tryon'; human: ImageInput; cloth: ImageInput; model?: (typeof KLING_TRYON_MODELS)[number] }
  /** Runway: text-to-video, image-to-video (start and optional end frame) or video-to-video. */
  | {
      kind: 'runway';
      prompt: string;
      generationType: 'text2video' | 'image2video' | 'video2video';
      image?: ImageInput;
      endImage?: ImageInput;
      video?: VideoInput;
      /** text2video only. */
      aspectRatio?: VideoAspectRatio;
      model?: (typeof RUNWAY_MODELS)[number];
      durationSec: 5 | 10;
      /** Portrait: the upstream's fixed landscape frame turned to its portrait twin (1280×768 → 768×1280). */
      flip?: boolean;
    }
  /** Midjourney video: four short clips animating `image`. */
  | { kind: 'imagine-video'; prompt: string; image: ImageInput; motion: VideoMotion }
  /** Midjourney video extend: video `parent.index` of an imagine-video task continued, four new clips. */
  | { kind: 'imagine-video-extend'; parent: VideoParentRef; prompt: string; image?: ImageInput; motion: VideoMotion };

export const VIDEO_JOB_KINDS: readonly VideoJob['kind'][] = [
  'luma',
  'luma-extend',
  'kling-video',
  'kling-tryon',
  'runway',
  'imagine-video',
  'imagine-video-extend',
];
