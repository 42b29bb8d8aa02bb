/**
 * @module Engine jobs of the video families (Luma, Kling, Runway, Midjourney video) from their
 * task rows: the options in input_data (v1 names, as the submit stored them), every picture or
 * video the user named read through the guarded fetcher before any engine runs, and an
 * extension's parent video read back from the media store.
 */
import { EngineError, type ImageInput } from '../../engines/engine.ts';
import type { KLING_MODELS, KLING_TRYON_MODELS, RUNWAY_MODELS, VideoAspectRatio, VideoMotion, VideoParentRef } from '../../engines/jobs/video.ts';
import type { TaskRow } from '../../repositories/task-repository.ts';
import type { JobBuilders } from './index.ts';
import type { JobInputs } from './job-inputs.ts';

type Data = Record<string, unknown>;

const text = (value: unknown) => (typeof value === 'string' && value ? value : undefined);
const flag = (value: unknown) => (typeof value === 'boolean' ? value : undefined);
const seconds = (value: unknown): 5 | 10 => (Number(value) === 10 ? 10 : 5);
const motion = (value: unknown): VideoMotion => (value === 'high' ? 'high' : 'low');

/** The picture at `data[field]` when the task has one (read and checked), else undefined. */
async function optionalImage(inputs: JobInputs, which: string, data: Data, field: string, signal: AbortSignal): Promise<ImageInput | undefined> {
  return data[field] ? inputs.inputImage(which, data[field], signal) : undefined;
}

/** Several pictures read at once; when more than one fails, the first's reason is the one told. */
async function images(reads: Promise<ImageInput | undefined>[]): Promise<(ImageInput | undefined)[]> {
  const settled = await Promise.allSettled(reads);
  for (const result of settled) if (result.status === 'rejected') throw result.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<ImageInput | undefined>).value);
}

/** Video `index` (1-based) of the task an extension continues, with its poster and upstream id. */
async function videoParent(inputs: JobInputs, task: TaskRow, index: number): Promise<VideoParentRef> {
  const parent = await inputs.sourceTask(task.parent_id ?? task.input_data?.parent_task_id, 'The video this task extends no longer exists.');
  const urls = parent.video_urls?.length ? parent.video_urls : parent.video_url ? [parent.video_url] : [];
  const url = urls[index - 1];
  if (!url) throw new EngineError('invalid_input', `The task this one extends has no video ${index}.`);
  const result = parent.result ?? {};
  const entries = Array.isArray(result.videos) ? (result.videos as Data[]) : [];
  const entry = entries[index - 1] ?? {};
  // the media store holds any of our files, videos included
  const video = await inputs.storedImage(url, 'The video this task extends is no longer stored.');
  const posterUrl = text(entry.poster_url);
  const poster = posterUrl
    ? await inputs.storedImage(posterUrl, 'gone').catch((error: unknown) => {
        // a lost poster only costs the extension its still
        if (error instanceof EngineError) return undefined;
        throw error;
      })
    : undefined;
  const number = (value: unknown) => (typeof value === 'number' && value > 0 ? value : undefined);
  return {
    taskId: parent.id,
    taskType: parent.type,
    index,
    video,
    poster,
    upstreamId: text(entry.id) ?? text(result.upstream_id),
    engine: text(result.engine),
    prompt: parent.prompt ?? undefined,
    width: number(entry.width),
    height: number(entry.height),
    durationSec: number(entry.duration),
  };
}

export const videoJobs: JobBuilders = {
  luma: async ({ task, inputs, input, signal, resume }) => {
    const { data } = input;
    const [image, endImage] = await images([
      optionalImage(inputs, 'start', data, 'image_url', signal),
      optionalImage(inputs, 'end', data, 'end_image_url', signal),
    ]);
    return {
      kind: 'luma',
      prompt: task.prompt ?? '',
      image,
      endImage,
      enhancePrompt: flag(data.enhance_prompt),
      aspectRatio: text(data.aspect_ratio) as VideoAspectRatio | undefined,
      loop: flag(data.loop),
      ...resume,
    };
  },

  'luma-extend': async ({ task, inputs, input, signal, resume }) => {
    const { data } = input;
    const [parent, [endImage]] = await Promise.all([videoParent(inputs, task, 1), images([optionalImage(inputs, 'end', data, 'end_image_url', signal)])]);
    return { kind: 'luma-extend', parent, prompt: task.prompt ?? '', endImage, enhancePrompt: flag(data.enhance_prompt), loop: flag(data.loop), ...resume };
  },

  'kling-video': async ({ task, inputs, input, signal, resume }) => {
    const { data } = input;
    const [image, endImage] = await images([
      optionalImage(inputs, 'start', data, 'image_url', signal),
      optionalImage(inputs, 'end', data, 'end_image_url', signal),
    ]);
    return {
      kind: 'kling-video',
      prompt: task.prompt ?? '',
      generationType: data.generation_type === 'image2video' ? 'image2video' : 'text2video',
      negativePrompt: text(data.negative_prompt),
      image,
      endImage,
      mode: data.mode === 'pro' ? 'pro' : 'std',
      aspectRatio: text(data.aspect_ratio) as VideoAspectRatio | undefined,
      model: text(data.model) as (typeof KLING_MODELS)[number] | undefined,
      durationSec: seconds(data.duration),
      cfgScale: typeof data.cfg_scale === 'number' ? data.cfg_scale : 0.5,
      ...resume,
    };
  },

  'kling-tryon': async ({ inputs, input, signal, resume }) => {
    const [human, cloth] = await images([
      inputs.inputImage('human', input.data.human_image_url, signal),
      inputs.inputImage('cloth', input.data.cloth_image_url, signal),
    ]);
    return {
      kind: 'kling-tryon',
      human: human as ImageInput,
      cloth: cloth as ImageInput,
      model: text(input.data.model) as (typeof KLING_TRYON_MODELS)[number] | undefined,
      ...resume,
    };
  },

  runway: async ({ task, inputs, input, signal, resume }) => {
    const { data } = input;
    const generationType = data.generation_type === 'image2video' || data.generation_type === 'video2video' ? data.generation_type : 'text2video';
    const [[image, endImage], video] = await Promise.all([
      images([optionalImage(inputs, 'start', data, 'image_url', signal), optionalImage(inputs, 'end', data, 'end_image_url', signal)]),
      generationType === 'video2video' ? inputs.inputVideo('input', data.video_url, signal) : undefined,
    ]);
    return {
      kind: 'runway',
      prompt: task.prompt ?? '',
      generationType,
      image,
      endImage,
      video,
      aspectRatio: text(data.aspect_ratio) as VideoAspectRatio | undefined,
      model: text(data.model) as (typeof RUNWAY_MODELS)[number] | undefined,
      durationSec: seconds(data.duration),
      flip: flag(data.flip),
      ...resume,
    };
  },

  'imagine-video': async ({ task, inputs, input, signal, resume }) => ({
    kind: 'imagine-video',
    prompt: task.prompt ?? '',
    image: await inputs.inputImage('start', input.data.image_url, signal),
    motion: motion(input.data.motion),
    ...resume,
  }),

  'imagine-video-extend': async ({ task, inputs, input, signal, resume }) => {
    const { data } = input;
    const [parent, [image]] = await Promise.all([
      videoParent(inputs, task, Number(data.index) || 1),
      images([optionalImage(inputs, 'start', data, 'image_url', signal)]),
    ]);
    return { kind: 'imagine-video-extend', parent, prompt: task.prompt ?? '', image, motion: motion(data.motion), ...resume };
  },
};
