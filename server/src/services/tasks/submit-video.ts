/**
 * @module The video submits (issue 13's v1 paths): /luma-imagine, /luma-extend,
 * /kling-imagine, /kling-tryon, /runway-imagine, /imagine-video, /imagine-video-extend. The
 * route's schema has checked each field's range; what is checked here: the rules between
 * fields (an image-to-video clip needs its start image, an end frame needs a start frame, pro
 * mode needs a model that has it), every picture or video URL as faceswap checks its pictures
 * (well formed, https and a public host outside embedded mode, one of our media URLs must name
 * something stored; another site's file is read by the worker through the guarded fetcher),
 * and an extension's parent (the caller's own, finished, of the family, with that video).
 * Each answers a 400 naming the field, or 404/409 for the parent, before anything is held.
 */
import type { KLING_MODELS, KLING_TRYON_MODELS, RUNWAY_MODELS, VideoAspectRatio, VideoMotion } from '../../engines/jobs/video.ts';
import { ApiError } from '../../errors.ts';
import { taskRepository, type TaskRow } from '../../repositories/task-repository.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { checkImageUrl } from '../../storage/image-url.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { type WebhookInput, webhookOf } from './submit-inputs.ts';
import { createTask, type TaskDeps } from './create-task.ts';
import { TASK_NOT_FOUND_MESSAGE } from './submit-from-parent.ts';
import { isFinished } from './task-view.ts';

type VideoDeps = TaskDeps & { media: MediaStore };

/** The longest video an extension may make (the local engine's limit too). */
const MAX_EXTENDED_SECONDS = 120;

type Webhook = WebhookInput;

const refuse = (field: string, problem: string) => new ApiError('validation_failed', `${field}: ${problem}`);

/**
 * A picture or video URL as stored (trimmed), or a 400 `field: problem`: our own media must be
 * stored; any other URL must be one the guarded fetcher may read.
 */
async function checkedUrl(deps: VideoDeps, field: string, input: string, what: 'image' | 'video'): Promise<string> {
  const url = input.trim();
  if (!url) throw refuse(field, 'Must not be empty');
  const key = deps.media.keyOf(url);
  if (key) {
    if (!(await deps.media.has(key))) throw refuse(field, `No ${what} of this server has this URL (upload it first)`);
    return url;
  }
  const checked = checkImageUrl(url, deps.config);
  if ('problem' in checked) throw refuse(field, checked.problem);
  return url;
}

/** Each given URL checked, under its field name, into `input_data` (absent ones left out). */
async function urlsOf(deps: VideoDeps, urls: Record<string, string | null | undefined>, what: 'image' | 'video' = 'image'): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [field, value] of Object.entries(urls)) if (value != null && value.trim() !== '') out[field] = await checkedUrl(deps, field, value, what);
  return out;
}

/** Drops undefined values, so input_data holds only what was asked. */
const defined = (values: Record<string, unknown>) => Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));

export interface LumaInput extends Webhook {
  prompt: string;
  image_url?: string | null;
  end_image_url?: string | null;
  enhance_prompt?: boolean;
  aspect_ratio?: VideoAspectRatio;
  loop?: boolean;
}

/** POST /luma-imagine: a Luma clip (task type luma). */
export async function submitLuma(deps: VideoDeps, account: Account, input: LumaInput) {
  const images = await urlsOf(deps, { image_url: input.image_url, end_image_url: input.end_image_url });
  return createTask(deps, account, {
    type: 'luma',
    prompt: input.prompt,
    inputData: defined({ ...images, enhance_prompt: input.enhance_prompt, aspect_ratio: input.aspect_ratio ?? '1:1', loop: input.loop }),
    webhook: webhookOf(input),
  });
}

/** The caller's own finished task, or 404/409 as the other actions on a parent answer. */
async function ownFinished(deps: VideoDeps, account: Account, id: string): Promise<TaskRow> {
  const parent = await taskRepository(deps.db).findOwn(account.id, id);
  if (!parent) throw new ApiError('not_found', TASK_NOT_FOUND_MESSAGE);
  if (!isFinished(parent.status)) throw new ApiError('conflict', 'The task has not finished successfully');
  return parent;
}

/** The videos a finished task stored, in order. */
function videosOf(task: TaskRow): string[] {
  if (task.video_urls?.length) return task.video_urls;
  return task.video_url ? [task.video_url] : [];
}

/** How long video `index` (1-based) of a task is, when the worker recorded it. */
function durationOf(task: TaskRow, index: number): number | undefined {
  const videos = task.result?.videos;
  const entry = Array.isArray(videos) ? (videos[index - 1] as { duration?: unknown } | undefined) : undefined;
  return typeof entry?.duration === 'number' ? entry.duration : undefined;
}

/** An extension's parent: own, finished, one of `types`, with video `index`, not already at the length limit. */
async function videoParent(deps: VideoDeps, account: Account, id: string, types: readonly string[], index: number, adds: number): Promise<TaskRow> {
  const parent = await ownFinished(deps, account, id);
  if (!types.includes(parent.type))
    throw refuse('parent_task_id', `Must be ${/^[aeiou]/.test(types[0]!) ? 'an' : 'a'} ${types.join(' or ')} task (this one is ${parent.type})`);
  const count = videosOf(parent).length;
  if (count === 0) throw new ApiError('conflict', 'The task has no video');
  if (index > count) throw refuse('index', `Must be between 1 and ${count} for this task`);
  const seconds = durationOf(parent, index);
  if (seconds !== undefined && seconds + adds > MAX_EXTENDED_SECONDS) {
    throw new ApiError('conflict', `The video is already ${Math.round(seconds)} seconds long; videos stop at ${MAX_EXTENDED_SECONDS} seconds`);
  }
  return parent;
}

export interface LumaExtendInput extends Webhook {
  parent_task_id: string;
  prompt: string;
  end_image_url?: string | null;
  enhance_prompt?: boolean;
  loop?: boolean;
}

/** POST /luma-extend: a Luma video continued by 5 seconds (task type luma-ext). */
export async function submitLumaExtend(deps: VideoDeps, account: Account, input: LumaExtendInput) {
  const parent = await videoParent(deps, account, input.parent_task_id, ['luma', 'luma-ext'], 1, 5);
  const images = await urlsOf(deps, { end_image_url: input.end_image_url });
  return createTask(deps, account, {
    type: 'luma-ext',
    prompt: input.prompt,
    parentPrompt: parent.prompt,
    parentId: parent.id,
    inputData: defined({ parent_task_id: parent.id, ...images, enhance_prompt: input.enhance_prompt, loop: input.loop }),
    webhook: webhookOf(input),
  });
}

/** A start frame for image-to-video: required there, ignored (not stored) for the other generation types. */
function framesFor(generationType: string, input: { image_url?: string | null; end_image_url?: string | null }) {
  if (generationType !== 'image2video') return {};
  if (!input.image_url?.trim()) throw refuse('image_url', 'Required for generation_type image2video');
  return { image_url: input.image_url, end_image_url: input.end_image_url };
}

export interface KlingInput extends Webhook {
  prompt: string;
  generation_type?: 'text2video' | 'image2video';
  negative_prompt?: string;
  image_url?: string | null;
  end_image_url?: string | null;
  mode?: 'std' | 'pro';
  aspect_ratio?: VideoAspectRatio;
  model?: (typeof KLING_MODELS)[number];
  duration?: 5 | 10;
  cfg_scale?: number;
}

/** POST /kling-imagine: a Kling clip (task type kling-video), priced per second. */
export async function submitKlingVideo(deps: VideoDeps, account: Account, input: KlingInput) {
  // v1 clients may leave the type out: a start image means image-to-video
  const generationType = input.generation_type ?? (input.image_url?.trim() ? 'image2video' : 'text2video');
  const mode = input.mode ?? 'std';
  if (mode === 'pro' && input.model === 'kling-v1') throw refuse('mode', 'pro needs model kling-v1-5 or kling-v1-6');
  const images = await urlsOf(deps, framesFor(generationType, input));
  const duration = input.duration ?? 5;
  return createTask(deps, account, {
    type: 'kling-video',
    quantity: duration,
    prompt: input.prompt,
    inputData: defined({
      generation_type: generationType,
      ...images,
      negative_prompt: input.negative_prompt?.trim() || undefined,
      mode,
      // the clip takes its shape from the start image
      aspect_ratio: generationType === 'text2video' ? (input.aspect_ratio ?? '16:9') : undefined,
      model: input.model,
      duration,
      cfg_scale: input.cfg_scale ?? 0.5,
    }),
    webhook: webhookOf(input),
  });
}

export interface KlingTryonInput extends Webhook {
  human_image_url: string;
  cloth_image_url: string;
  model?: (typeof KLING_TRYON_MODELS)[number];
}

/** POST /kling-tryon: a garment put on a person (task type kling-tryon; a picture). */
export async function submitKlingTryon(deps: VideoDeps, account: Account, input: KlingTryonInput) {
  const images = await urlsOf(deps, { human_image_url: input.human_image_url, cloth_image_url: input.cloth_image_url });
  return createTask(deps, account, { type: 'kling-tryon', prompt: null, inputData: defined({ ...images, model: input.model }), webhook: webhookOf(input) });
}

export interface RunwayInput extends Webhook {
  prompt: string;
  generation_type?: 'text2video' | 'image2video' | 'video2video';
  image_url?: string | null;
  end_image_url?: string | null;
  video_url?: string | null;
  aspect_ratio?: VideoAspectRatio;
  model?: (typeof RUNWAY_MODELS)[number];
  duration?: 5 | 10;
  flip?: boolean;
}

/** POST /runway-imagine: a Runway clip (task type runway), priced per second. */
export async function submitRunway(deps: VideoDeps, account: Account, input: RunwayInput) {
  const generationType = input.generation_type ?? (input.video_url?.trim() ? 'video2video' : input.image_url?.trim() ? 'image2video' : 'text2video');
  if (generationType === 'video2video' && !input.video_url?.trim()) throw refuse('video_url', 'Required for generation_type video2video');
  const images = await urlsOf(deps, framesFor(generationType, input));
  const video = generationType === 'video2video' ? await urlsOf(deps, { video_url: input.video_url }, 'video') : {};
  const duration = input.duration ?? 5;
  return createTask(deps, account, {
    type: 'runway',
    quantity: duration,
    prompt: input.prompt,
    inputData: defined({
      generation_type: generationType,
      ...images,
      ...video,
      aspect_ratio: generationType === 'text2video' ? (input.aspect_ratio ?? '16:9') : undefined,
      model: input.model,
      duration,
      flip: input.flip,
    }),
    webhook: webhookOf(input),
  });
}

export interface ImagineVideoInput extends Webhook {
  prompt: string;
  image_url: string;
  motion?: VideoMotion;
}

/** POST /imagine-video: four Midjourney clips animating a picture (task type imagine-video). */
export async function submitImagineVideo(deps: VideoDeps, account: Account, input: ImagineVideoInput) {
  const images = await urlsOf(deps, { image_url: input.image_url });
  return createTask(deps, account, {
    type: 'imagine-video',
    prompt: input.prompt,
    inputData: { ...images, motion: input.motion ?? 'low' },
    webhook: webhookOf(input),
  });
}

export interface ImagineVideoExtendInput extends Webhook {
  parent_task_id: string;
  index: number;
  prompt: string;
  image_url?: string | null;
  motion?: VideoMotion;
}

/** POST /imagine-video-extend: one clip of a Midjourney video task continued, four new clips (task type imagine-video-extend). */
export async function submitImagineVideoExtend(deps: VideoDeps, account: Account, input: ImagineVideoExtendInput) {
  const parent = await videoParent(deps, account, input.parent_task_id, ['imagine-video', 'imagine-video-extend'], input.index, 4);
  const images = await urlsOf(deps, { image_url: input.image_url });
  return createTask(deps, account, {
    type: 'imagine-video-extend',
    prompt: input.prompt,
    parentPrompt: parent.prompt,
    parentId: parent.id,
    inputData: { parent_task_id: parent.id, index: input.index, ...images, motion: input.motion ?? 'low' },
    webhook: webhookOf(input),
  });
}
