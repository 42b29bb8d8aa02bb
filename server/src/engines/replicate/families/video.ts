/**
 * @module Video on Replicate (engine and queue `replicate-video`): the Luma, Kling and Runway
 * tasks as predictions on the video models an operator names per family
 * (REPLICATE_VIDEO_MODELS `{ luma, kling, kling-pro, kling-tryon, runway }`; only the families
 * named run here, the others stay on the local engine). Each model gets the input names its
 * Replicate schema documents:
 *
 * | key           | suggested model                  | inputs sent                                                                                     |
 * | ------------- | -------------------------------- | ----------------------------------------------------------------------------------------------- |
 * | `luma`        | luma/ray-flash-2-720p (Ray 2)    | prompt, aspect_ratio, loop, start_image, end_image (luma/ray: start_image_url, end_image_url)    |
 * | `kling`       | kwaivgi/kling-v1.6-standard      | prompt, negative_prompt, aspect_ratio (text to video), start_image, cfg_scale, duration          |
 * | `kling-pro`   | kwaivgi/kling-v1.6-pro           | as kling, plus end_image; runs the tasks asking for mode `pro` (else they run on `kling`)        |
 * | `kling-tryon` | cuuupid/idm-vton:0513734a…       | human_img, garm_img, garment_des, category upper_body (a picture, not a video)                   |
 * | `runway`      | runwayml/gen4-turbo              | prompt, image (required: image to video only), duration, aspect_ratio, seed                      |
 *
 * Refused with a clear 'unsupported' failure (refunded) rather than run as something else: a
 * Kling or Runway aspect ratio the model does not offer, an end frame on a model without one
 * (kling-v1.6-standard, gen4-turbo), Runway text-to-video and video-to-video (gen4-turbo
 * animates a start image). Options a model has no input for are ignored and the result's note
 * says so (Luma's enhance_prompt, Kling's and Runway's v1 model names). Not run here at all
 * (left to the other engines): luma-extend (Replicate's Luma models cannot continue a
 * generation by id) and Midjourney's imagine-video and its extension. Each model outputs one
 * MP4 URL, copied into the media store by the worker.
 */
import { type EngineJob, EngineError, type EngineImage } from '../../engine.ts';
import type { VideoAspectRatio } from '../../jobs/video.ts';
import { type Prediction, readOutputUrls } from '../protocol.ts';
import type { FamilyResult, FileInputs, PredictionFamily, PredictionRequest } from '../predictions.ts';

type LumaJob = Extract<EngineJob, { kind: 'luma' }>;
type KlingJob = Extract<EngineJob, { kind: 'kling-video' }>;
type TryonJob = Extract<EngineJob, { kind: 'kling-tryon' }>;
type RunwayJob = Extract<EngineJob, { kind: 'runway' }>;
export type HostedVideoJob = LumaJob | KlingJob | TryonJob | RunwayJob;

/** The models this adapter knows the inputs of, per family key; what the README suggests. */
export const SUGGESTED_VIDEO_MODELS = {
  luma: 'luma/ray-flash-2-720p',
  kling: 'kwaivgi/kling-v1.6-standard',
  'kling-pro': 'kwaivgi/kling-v1.6-pro',
  'kling-tryon': 'cuuupid/idm-vton:0513734a452173b8173e907e3a59d19a36266e55b48528559432bd21c7d7e985',
  runway: 'runwayml/gen4-turbo',
} as const;

export type VideoModelKey = keyof typeof SUGGESTED_VIDEO_MODELS;
export const VIDEO_MODEL_KEYS = Object.keys(SUGGESTED_VIDEO_MODELS) as VideoModelKey[];
export type VideoModels = Partial<Record<VideoModelKey, string>>;

const KINDS_OF: Record<VideoModelKey, HostedVideoJob['kind'] | undefined> = {
  luma: 'luma',
  kling: 'kling-video',
  'kling-pro': undefined,
  'kling-tryon': 'kling-tryon',
  runway: 'runway',
};

const nameOf = (model: string) => model.split(':')[0];

const KLING_RATIOS: readonly VideoAspectRatio[] = ['16:9', '9:16', '1:1'];
const RUNWAY_RATIOS: readonly VideoAspectRatio[] = ['16:9', '9:16', '4:3', '3:4', '1:1', '21:9'];
/** Kling models on Replicate with an `end_image` input. */
const KLING_END_FRAME = /^kwaivgi\/kling-v(1\.6-pro|2\.1(-master)?)$/;

const unsupported = (message: string, model: string) => new EngineError('unsupported', message, { detail: `model ${model}` });

/** The model a job runs on: its family's, Kling's pro model for mode pro when there is one. */
function modelFor(job: HostedVideoJob, models: VideoModels): string {
  const model =
    job.kind === 'luma'
      ? models.luma
      : job.kind === 'kling-video'
        ? ((job.mode === 'pro' ? models['kling-pro'] : undefined) ?? models.kling)
        : job.kind === 'kling-tryon'
          ? models['kling-tryon']
          : models.runway;
  if (!model) throw new EngineError('unsupported', `${job.kind} tasks are not configured on this engine.`);
  return model;
}

/** What the job asked that the model has no input for: said in the note, never silently. */
function ignoredOptions(job: HostedVideoJob, model: string, models: VideoModels): string[] {
  const ignored: string[] = [];
  if (job.kind === 'luma' && job.enhancePrompt !== undefined) ignored.push('enhance_prompt');
  if (job.kind === 'kling-video') {
    if (job.model) ignored.push(`model ${job.model}`);
    if (job.mode === 'pro' && !models['kling-pro']) ignored.push('mode pro');
  }
  if (job.kind === 'kling-tryon' && job.model) ignored.push(`model ${job.model}`);
  if (job.kind === 'runway' && job.model) ignored.push(`model ${job.model}`);
  return ignored.length ? [`Not offered by ${nameOf(model)}, ignored: ${ignored.join(', ')}.`] : [];
}

async function lumaInput(job: LumaJob, model: string, files: FileInputs): Promise<Record<string, unknown>> {
  // luma/ray (Ray 1.6) names its frames *_url; the Ray 2 models start_image / end_image
  const legacy = nameOf(model) === 'luma/ray';
  const input: Record<string, unknown> = { prompt: job.prompt };
  if (job.aspectRatio) input.aspect_ratio = job.aspectRatio;
  if (job.loop !== undefined) input.loop = job.loop;
  if (job.image) input[legacy ? 'start_image_url' : 'start_image'] = await files.value(job.image);
  if (job.endImage) input[legacy ? 'end_image_url' : 'end_image'] = await files.value(job.endImage);
  return input;
}

async function klingInput(job: KlingJob, model: string, files: FileInputs): Promise<Record<string, unknown>> {
  const input: Record<string, unknown> = { prompt: job.prompt, duration: job.durationSec, cfg_scale: job.cfgScale };
  if (job.negativePrompt) input.negative_prompt = job.negativePrompt;
  if (job.generationType === 'image2video') {
    if (!job.image) throw new EngineError('invalid_input', 'Image-to-video needs a start image.');
    input.start_image = await files.value(job.image);
  } else if (job.aspectRatio) {
    if (!KLING_RATIOS.includes(job.aspectRatio)) {
      throw unsupported(`Kling videos here are ${KLING_RATIOS.join(', ')}; ${job.aspectRatio} is not available.`, model);
    }
    input.aspect_ratio = job.aspectRatio;
  }
  if (job.endImage) {
    if (!KLING_END_FRAME.test(nameOf(model))) throw unsupported(`Kling here (${nameOf(model)}) cannot end on a given frame; leave out the end image.`, model);
    input.end_image = await files.value(job.endImage);
  }
  return input;
}

async function runwayInput(job: RunwayJob, model: string, files: FileInputs): Promise<Record<string, unknown>> {
  if (job.generationType !== 'image2video' || !job.image) {
    throw unsupported(`Runway here (${nameOf(model)}) makes videos from a start image only; ${job.generationType} is not available.`, model);
  }
  if (job.endImage) throw unsupported(`Runway here (${nameOf(model)}) cannot end on a given frame; leave out the end image.`, model);
  const aspectRatio = job.aspectRatio ?? (job.flip ? '9:16' : undefined);
  if (aspectRatio && !RUNWAY_RATIOS.includes(aspectRatio)) {
    throw unsupported(`Runway videos here are ${RUNWAY_RATIOS.join(', ')}; ${aspectRatio} is not available.`, model);
  }
  const input: Record<string, unknown> = { prompt: job.prompt, image: await files.value(job.image), duration: job.durationSec };
  if (aspectRatio) input.aspect_ratio = aspectRatio;
  return input;
}

async function tryonInput(job: TryonJob, files: FileInputs): Promise<Record<string, unknown>> {
  // IDM-VTON wants the garment's kind and a description; Kolors' try-on asks neither
  return {
    human_img: await files.value(job.human),
    garm_img: await files.value(job.cloth),
    garment_des: 'the garment in the picture',
    category: 'upper_body',
  };
}

/** The family for the keys configured in `models` (a key without a model is not run here). */
export function videoFamily(models: VideoModels): PredictionFamily<HostedVideoJob> {
  const kinds = VIDEO_MODEL_KEYS.filter((key) => models[key]).flatMap((key) => KINDS_OF[key] ?? []);
  return {
    name: 'replicate-video',
    kinds,
    words: { service: 'The video service', work: 'The video generation' },
    typicalMs: 90_000,
    async request(job, files): Promise<PredictionRequest> {
      const model = modelFor(job, models);
      switch (job.kind) {
        case 'luma':
          return { model, input: await lumaInput(job, model, files) };
        case 'kling-video':
          return { model, input: await klingInput(job, model, files) };
        case 'kling-tryon':
          return { model, input: await tryonInput(job, files) };
        case 'runway':
          return { model, input: await runwayInput(job, model, files) };
      }
    },
    result(output: unknown, job: HostedVideoJob, prediction: Prediction, model: string): FamilyResult | undefined {
      const [url] = readOutputUrls(output);
      if (!url) return undefined;
      const note = [`${model} on Replicate.`, ...ignoredOptions(job, model, models)].join(' ');
      if (job.kind === 'kling-tryon') {
        const image: EngineImage = { source: 'url', url };
        return { method: 'virtual-try-on', simulated: false, note, layout: 'single', image, images: [image] };
      }
      const requested = prediction.input?.duration;
      const durationSec = typeof requested === 'number' ? requested : undefined;
      const fromImage = (job.kind === 'luma' || job.kind === 'kling-video' || job.kind === 'runway') && job.image !== undefined;
      return {
        method: fromImage ? 'image-to-video' : 'text-to-video',
        simulated: false,
        note,
        layout: 'none',
        images: [],
        videos: [{ file: { source: 'url', url }, ...(durationSec ? { durationSec } : {}) }],
      };
    },
  };
}
