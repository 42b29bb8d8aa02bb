/**
 * @module Ideogram on Replicate (engine and queue `replicate-ideogram`): the Ideogram tasks as
 * predictions on the models an operator names (REPLICATE_IDEOGRAM_MODEL for imagine, or
 * REPLICATE_IDEOGRAM_MODELS `{ imagine, upscale, describe }`; a task kind without a model stays
 * on the local engine). Each model gets the inputs its Replicate schema documents:
 *
 * | key        | suggested model                      | inputs sent                                                                                 | result                 |
 * | ---------- | ------------------------------------ | ------------------------------------------------------------------------------------------- | ---------------------- |
 * | `imagine`  | ideogram-ai/ideogram-v2 (or v3-turbo) | prompt, aspect_ratio or resolution `WxH`, style_type, negative_prompt (v2), magic_prompt_option, seed | one picture (a set)   |
 * | `upscale`  | nightmareai/real-esrgan:42fed1c4…    | image, scale 2                                                                              | one picture            |
 * | `describe` | methexis-inc/img2prompt:50adaf2d…    | image                                                                                       | one description (text) |
 *
 * v1's style and MagicPrompt values are written the way Replicate's enums spell them (RENDER_3D
 * → `Render 3D`, ON → `On`). Refused ('unsupported', refunded): a style the model does not
 * have (Render 3D and Anime on v3, Fiction anywhere). Ignored and said in the note: a negative
 * prompt on v3 (no such input), the upscale's prompt, resemblance, detail and seed (ESRGAN
 * only enlarges). Not run here: ideogram-remix (Ideogram's models on Replicate take a picture
 * only to inpaint it under a mask, which is not a remix), so it stays on the local engine.
 */
import { type EngineImage, type EngineJob, EngineError } from '../../engine.ts';
import type { IdeogramStyleType } from '../../jobs/picture-actions.ts';
import { type Prediction, readOutputUrls, seedFromLogs } from '../protocol.ts';
import type { FamilyResult, PredictionFamily, PredictionRequest } from '../predictions.ts';

type ImagineJob = Extract<EngineJob, { kind: 'ideogram-imagine' }>;
type UpscaleJob = Extract<EngineJob, { kind: 'ideogram-upscale' }>;
type DescribeJob = Extract<EngineJob, { kind: 'ideogram-describe' }>;
export type HostedIdeogramJob = ImagineJob | UpscaleJob | DescribeJob;

export const SUGGESTED_IDEOGRAM_MODELS = {
  imagine: 'ideogram-ai/ideogram-v2',
  upscale: 'nightmareai/real-esrgan:42fed1c4974146d4d2414e2be2c5277c7fcf05fcc3a73abf41610695738c1d7b',
  describe: 'methexis-inc/img2prompt:50adaf2d3ad20a6f911a8a9e3ccf777b263b8596fbd2c8fc26e8888f8a0edbb5',
} as const;

export type IdeogramModelKey = keyof typeof SUGGESTED_IDEOGRAM_MODELS;
export const IDEOGRAM_MODEL_KEYS = Object.keys(SUGGESTED_IDEOGRAM_MODELS) as IdeogramModelKey[];
export type IdeogramModels = Partial<Record<IdeogramModelKey, string>>;

const KIND_OF: Record<IdeogramModelKey, HostedIdeogramJob['kind']> = {
  imagine: 'ideogram-imagine',
  upscale: 'ideogram-upscale',
  describe: 'ideogram-describe',
};
const KEY_OF: Record<HostedIdeogramJob['kind'], IdeogramModelKey> = {
  'ideogram-imagine': 'imagine',
  'ideogram-upscale': 'upscale',
  'ideogram-describe': 'describe',
};

const nameOf = (model: string) => model.split(':')[0];

/** Replicate's spelling of each v1 style; v3 has only the first five. */
const STYLE_NAMES: Partial<Record<IdeogramStyleType, string>> = {
  AUTO: 'Auto',
  GENERAL: 'General',
  REALISTIC: 'Realistic',
  DESIGN: 'Design',
  RENDER_3D: 'Render 3D',
  ANIME: 'Anime',
};
const V3_STYLES = new Set(['Auto', 'General', 'Realistic', 'Design']);
const MAGIC_NAMES = { AUTO: 'Auto', ON: 'On', OFF: 'Off' } as const;

const isV3 = (model: string) => /^ideogram-ai\/ideogram-v3/.test(nameOf(model));
const isIdeogram = (model: string) => nameOf(model).startsWith('ideogram-ai/');

/** The input of an imagine on `model`, and what the model cannot take (for the note). */
function imaginePlan(job: ImagineJob, model: string): { input: Record<string, unknown>; notes: string[] } {
  const input: Record<string, unknown> = { prompt: job.prompt };
  const ignored: string[] = [];
  if (job.resolution) input.resolution = `${job.resolution.width}x${job.resolution.height}`;
  else if (job.aspectRatio) input.aspect_ratio = job.aspectRatio;
  if (job.seed !== undefined) input.seed = job.seed;
  if (isIdeogram(model)) {
    if (job.styleType) {
      const style = STYLE_NAMES[job.styleType];
      if (!style || (isV3(model) && !V3_STYLES.has(style))) {
        throw new EngineError('unsupported', `The ${job.styleType} style is not available on ${nameOf(model)}; choose another style.`, {
          detail: `model ${model}`,
        });
      }
      input.style_type = style;
    }
    if (job.magicPrompt) input.magic_prompt_option = MAGIC_NAMES[job.magicPrompt];
    if (job.negativePrompt && !isV3(model)) input.negative_prompt = job.negativePrompt;
    else if (job.negativePrompt) ignored.push('negative_prompt');
  } else {
    for (const [name, value] of [
      ['style_type', job.styleType],
      ['magic_prompt_option', job.magicPrompt],
      ['negative_prompt', job.negativePrompt],
    ] as const) {
      if (value !== undefined) ignored.push(name);
    }
  }
  return { input, notes: ignored.length ? [`Not offered by ${nameOf(model)}, ignored: ${ignored.join(', ')}.`] : [] };
}

function upscaleNotes(job: UpscaleJob, model: string): string[] {
  const ignored = (['prompt', 'resemblance', 'detail', 'seed', 'magicPrompt'] as const).filter((field) => job[field] !== undefined);
  return ignored.length ? [`Not offered by ${nameOf(model)}, ignored: ${ignored.join(', ')}.`] : [];
}

/** A text output: a string, or the list of tokens a language model streams. */
function readOutputText(output: unknown): string | undefined {
  const text = typeof output === 'string' ? output : Array.isArray(output) && output.every((t) => typeof t === 'string') ? output.join('') : undefined;
  return text?.trim() || undefined;
}

/** The family for the keys configured in `models`. */
export function ideogramFamily(models: IdeogramModels): PredictionFamily<HostedIdeogramJob> {
  const modelFor = (job: HostedIdeogramJob) => {
    const model = models[KEY_OF[job.kind]];
    if (!model) throw new EngineError('unsupported', `${job.kind} tasks are not configured on this engine.`);
    return model;
  };
  return {
    name: 'replicate-ideogram',
    kinds: IDEOGRAM_MODEL_KEYS.filter((key) => models[key]).map((key) => KIND_OF[key]),
    words: { service: 'The Ideogram image service', work: 'The Ideogram generation' },
    typicalMs: 15_000,
    async request(job, files): Promise<PredictionRequest> {
      const model = modelFor(job);
      if (job.kind === 'ideogram-imagine') return { model, input: imaginePlan(job, model).input };
      const image = await files.value(job.image);
      // ESRGAN's scale: Ideogram's upscale doubles the picture
      if (job.kind === 'ideogram-upscale') return { model, input: nameOf(model) === 'nightmareai/real-esrgan' ? { image, scale: 2 } : { image } };
      return { model, input: { image } };
    },
    result(output: unknown, job: HostedIdeogramJob, prediction: Prediction, model: string): FamilyResult | undefined {
      if (job.kind === 'ideogram-describe') {
        const text = readOutputText(output);
        return text ? { method: 'describe', simulated: false, note: `${model} on Replicate.`, layout: 'none', images: [], texts: [text] } : undefined;
      }
      const [url] = readOutputUrls(output);
      if (!url) return undefined;
      const image: EngineImage = { source: 'url', url };
      if (job.kind === 'ideogram-upscale') {
        const note = [`${model} on Replicate.`, ...upscaleNotes(job, model)].join(' ');
        return { method: 'upscale', simulated: false, note, layout: 'single', image, images: [image] };
      }
      const seed = seedFromLogs(prediction.logs) ?? job.seed;
      return {
        method: 'ideogram',
        simulated: false,
        note: [`${model} on Replicate.`, ...imaginePlan(job, modelFor(job)).notes].join(' '),
        layout: 'set',
        images: [image],
        ...(seed === undefined ? {} : { seed }),
      };
    },
  };
}
