/**
 * @module Flux on Replicate (engine and queue `replicate-flux`): flux-imagine as a prediction
 * on Black Forest Labs' official models. The task's v1 `model` picks the Replicate model
 * through a map (DEFAULT_FLUX_MODELS, each entry overridable by REPLICATE_FLUX_MODELS); a task
 * naming none runs on REPLICATE_FLUX_MODEL (default black-forest-labs/flux-schnell). Each model
 * gets the inputs its Replicate schema documents (FLUX_PROFILES):
 *
 * | v1 model           | Replicate model                      | inputs sent besides prompt and seed                                                        |
 * | ------------------ | ------------------------------------ | ------------------------------------------------------------------------------------------ |
 * | flux-schnell       | black-forest-labs/flux-schnell       | aspect_ratio, num_outputs 1                                                                |
 * | flux-dev           | black-forest-labs/flux-dev           | aspect_ratio, num_outputs 1, num_inference_steps, guidance, image (the image prompt)       |
 * | flux-pro           | black-forest-labs/flux-pro           | aspect_ratio (custom + width, height), steps, guidance, safety_tolerance, prompt_upsampling, image_prompt |
 * | flux-pro-1.1       | black-forest-labs/flux-1.1-pro       | aspect_ratio (custom + width, height), safety_tolerance, prompt_upsampling, image_prompt   |
 * | flux-pro-1.1-ultra | black-forest-labs/flux-1.1-pro-ultra | aspect_ratio, safety_tolerance, raw, image_prompt, image_prompt_strength                   |
 * | (another model)    | as configured                        | aspect_ratio                                                                               |
 *
 * An exact `size` goes as width and height where the model takes them (aspect_ratio custom),
 * else as the nearest aspect ratio the model offers (said in the note). v1's safety tolerance
 * 0 is Replicate's strictest, 1. A knob the model has no input for is ignored and the note
 * says so; an image prompt on a model that cannot start from a picture is refused
 * ('unsupported', refunded) rather than dropped. One picture comes back (`layout: 'single'`),
 * copied into the media store by the worker; the seed is the one the model logged, if it did.
 */
import { type EngineImage, type EngineJob, EngineError, type FluxModel } from '../../engine.ts';
import { type Prediction, readOutputUrls, seedFromLogs } from '../protocol.ts';
import type { FamilyResult, PredictionFamily, PredictionRequest } from '../predictions.ts';

type FluxJob = Extract<EngineJob, { kind: 'flux-imagine' }>;

/** The model of a flux task that names none. */
const DEFAULT_FLUX_MODEL = 'black-forest-labs/flux-schnell';

/** The v1 `model` names and the official Replicate model each runs on, unless configured otherwise. */
export const DEFAULT_FLUX_MODELS: Readonly<Record<FluxModel, string>> = {
  'flux-schnell': 'black-forest-labs/flux-schnell',
  'flux-dev': 'black-forest-labs/flux-dev',
  'flux-pro': 'black-forest-labs/flux-pro',
  'flux-pro-1.1': 'black-forest-labs/flux-1.1-pro',
  'flux-pro-1.1-ultra': 'black-forest-labs/flux-1.1-pro-ultra',
};

export interface FluxFamilyOptions {
  /** The model for tasks naming none. Default DEFAULT_FLUX_MODEL. */
  model?: string;
  /** v1 model name → Replicate model, over DEFAULT_FLUX_MODELS. */
  models?: Readonly<Partial<Record<FluxModel, string>>>;
}

/** Which documented inputs a Flux model on Replicate has. */
interface FluxProfile {
  ratios: readonly string[];
  /** `aspect_ratio: custom` with `width` and `height`. */
  custom?: boolean;
  /** Outputs a list; `num_outputs` 1 asks for one picture. */
  list?: boolean;
  steps?: 'steps' | 'num_inference_steps';
  guidance?: boolean;
  safetyTolerance?: boolean;
  promptUpsampling?: boolean;
  /** The input a picture to start from goes in. */
  imagePrompt?: 'image' | 'image_prompt';
  raw?: boolean;
  imagePromptStrength?: boolean;
}

const RATIOS = ['1:1', '16:9', '21:9', '3:2', '2:3', '4:5', '5:4', '3:4', '4:3', '9:16', '9:21'] as const;

const FLUX_PROFILES: Readonly<Record<string, FluxProfile>> = {
  'black-forest-labs/flux-schnell': { ratios: RATIOS, list: true },
  'black-forest-labs/flux-dev': { ratios: RATIOS, list: true, steps: 'num_inference_steps', guidance: true, imagePrompt: 'image' },
  'black-forest-labs/flux-pro': {
    ratios: RATIOS,
    custom: true,
    steps: 'steps',
    guidance: true,
    safetyTolerance: true,
    promptUpsampling: true,
    imagePrompt: 'image_prompt',
  },
  'black-forest-labs/flux-1.1-pro': { ratios: RATIOS, custom: true, safetyTolerance: true, promptUpsampling: true, imagePrompt: 'image_prompt' },
  'black-forest-labs/flux-1.1-pro-ultra': {
    ratios: RATIOS,
    safetyTolerance: true,
    raw: true,
    imagePrompt: 'image_prompt',
    imagePromptStrength: true,
  },
};

/** What another text-to-image model is sent: the names most of them share. */
const GENERIC_PROFILE: FluxProfile = { ratios: RATIOS };

const nameOf = (model: string) => model.split(':')[0];
const profileOf = (model: string) => FLUX_PROFILES[nameOf(model)] ?? GENERIC_PROFILE;

/** The model's aspect ratio closest to width:height. */
export function nearestRatio(width: number, height: number, ratios: readonly string[]): string {
  const target = Math.log(width / height);
  const distance = (ratio: string) => {
    const [w, h] = ratio.split(':').map(Number);
    return Math.abs(Math.log(w / h) - target);
  };
  return ratios.reduce((best, ratio) => (distance(ratio) < distance(best) ? ratio : best));
}

/**
 * The input of `job` on `model` (an image prompt's place left for the caller to fill), and
 * what of the job the model cannot take, for the note.
 */
function fluxPlan(job: FluxJob, model: string): { input: Record<string, unknown>; imageInput?: string; notes: string[] } {
  const profile = profileOf(model);
  const input: Record<string, unknown> = { prompt: job.prompt };
  const ignored: string[] = [];
  const notes: string[] = [];
  if (job.size && profile.custom) {
    Object.assign(input, { aspect_ratio: 'custom', width: job.size.width, height: job.size.height });
  } else if (job.size) {
    input.aspect_ratio = nearestRatio(job.size.width, job.size.height, profile.ratios);
    notes.push(`The size ${job.size.width}×${job.size.height} was asked as the nearest aspect ratio the model offers, ${input.aspect_ratio}.`);
  } else if (job.aspectRatio) {
    input.aspect_ratio = job.aspectRatio;
  }
  if (job.seed !== undefined) input.seed = job.seed;
  if (profile.list) input.num_outputs = 1;
  const knobs: [keyof FluxJob, string | undefined, unknown][] = [
    ['steps', profile.steps, job.steps],
    ['guidance', profile.guidance ? 'guidance' : undefined, job.guidance],
    // v1 allows 0 (strictest); Replicate's strictest is 1
    [
      'safetyTolerance',
      profile.safetyTolerance ? 'safety_tolerance' : undefined,
      job.safetyTolerance === undefined ? undefined : Math.max(1, job.safetyTolerance),
    ],
    ['promptUpsampling', profile.promptUpsampling ? 'prompt_upsampling' : undefined, job.promptUpsampling],
    ['raw', profile.raw ? 'raw' : undefined, job.raw],
    ['imagePromptStrength', profile.imagePromptStrength ? 'image_prompt_strength' : undefined, job.imagePromptStrength],
  ];
  for (const [field, name, value] of knobs) {
    if (value === undefined) continue;
    if (name) input[name] = value;
    else ignored.push(field);
  }
  if (job.imagePrompt && !profile.imagePrompt) {
    throw new EngineError('unsupported', `${nameOf(model)} cannot start from a picture; leave out the image prompt or choose another Flux model.`, {
      detail: `model ${model}`,
    });
  }
  if (ignored.length) notes.push(`Not offered by ${nameOf(model)}, ignored: ${ignored.join(', ')}.`);
  return { input, imageInput: job.imagePrompt ? profile.imagePrompt : undefined, notes };
}

export function fluxFamily(options: FluxFamilyOptions = {}): PredictionFamily<FluxJob> {
  const fallback = options.model ?? DEFAULT_FLUX_MODEL;
  const models: Partial<Record<FluxModel, string>> = { ...DEFAULT_FLUX_MODELS, ...options.models };
  const modelFor = (job: FluxJob) => (job.model ? (models[job.model] ?? fallback) : fallback);
  return {
    name: 'replicate-flux',
    kinds: ['flux-imagine'],
    words: { service: 'The Flux image service', work: 'The Flux image generation' },
    typicalMs: 10_000,
    async request(job, files): Promise<PredictionRequest> {
      const model = modelFor(job);
      const { input, imageInput } = fluxPlan(job, model);
      if (imageInput && job.imagePrompt) input[imageInput] = await files.value(job.imagePrompt);
      return { model, input };
    },
    result(output: unknown, job: FluxJob, prediction: Prediction, model: string): FamilyResult | undefined {
      const [url] = readOutputUrls(output);
      if (!url) return undefined;
      const image: EngineImage = { source: 'url', url };
      const seed = seedFromLogs(prediction.logs) ?? job.seed;
      return {
        method: 'flux',
        simulated: false,
        note: [`${model} on Replicate.`, ...fluxPlan(job, modelFor(job)).notes].join(' '),
        layout: 'single',
        image,
        images: [image],
        ...(seed === undefined ? {} : { seed }),
      };
    },
  };
}
