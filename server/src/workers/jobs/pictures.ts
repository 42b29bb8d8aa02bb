/**
 * @module Engine jobs of the picture families (Midjourney, Flux, Ideogram) from their task rows.
 * The Midjourney actions beyond U/V/R and the other Ideogram jobs are in picture-actions.ts.
 */
import type { CellIndex, FluxModel, ParentRef, UpscaleType } from '../../engines/engine.ts';
import type { JobBuilders } from './index.ts';
import { defined, ideogramFields, numberOf, sizeOf, textOf } from './picture-actions.ts';

export const pictureJobs: JobBuilders = {
  imagine: async ({ task, input, resume }) => ({ kind: 'imagine', prompt: task.prompt ?? '', ...defined({ aspectRatio: input.aspectRatio }), ...resume }),
  'flux-imagine': async ({ task, input, inputs, signal, resume }) => {
    const data = input.data;
    const imagePrompt = textOf(data.image_prompt) ? await inputs.inputImage('image prompt', data.image_prompt, signal) : undefined;
    return {
      kind: 'flux-imagine',
      prompt: task.prompt ?? '',
      ...defined({
        aspectRatio: input.aspectRatio,
        seed: numberOf(data.seed),
        model: textOf(data.model) as FluxModel | undefined,
        size: sizeOf(data),
        steps: numberOf(data.steps),
        guidance: numberOf(data.guidance),
        safetyTolerance: numberOf(data.safety_tolerance),
        raw: typeof data.raw === 'boolean' ? data.raw : undefined,
        imagePrompt,
        imagePromptStrength: numberOf(data.image_prompt_strength),
        promptUpsampling: typeof data.prompt_upsampling === 'boolean' ? data.prompt_upsampling : undefined,
      }),
      ...resume,
    };
  },
  'ideogram-imagine': async ({ task, input, resume }) => ({
    kind: 'ideogram-imagine',
    prompt: task.prompt ?? '',
    ...defined({ aspectRatio: input.aspectRatio }),
    ...ideogramFields(input.data),
    ...resume,
  }),
  reroll: async ({ task, inputs, input, resume }) => ({
    kind: 'reroll',
    parent: await inputs.parentRef(task, false),
    ...defined({ prompt: textOf(input.data.prompt) }),
    ...resume,
  }),
  seed: async ({ task, inputs, resume }) => ({ kind: 'seed', parent: await inputs.parentRef(task, false), ...resume }),
  variation: async ({ task, inputs, input, resume }) => ({
    kind: 'variation',
    parent: await inputs.parentRef(task, true),
    index: Number(input.data.index) as CellIndex,
    ...resume,
  }),
  upscale: async ({ task, inputs, input, signal, resume }) => {
    // /upscale-highres may name any picture by URL instead of a parent task
    const parent: ParentRef = textOf(input.data.image_url)
      ? { image: (await inputs.inputImage('input', input.data.image_url, signal)).data, layout: 'single' }
      : await inputs.parentRef(task, true);
    return {
      kind: 'upscale',
      parent,
      index: (Number(input.data.index) || 1) as CellIndex,
      type: (input.data.upscale_type ?? '1x') as UpscaleType,
      ...resume,
    };
  },
};
