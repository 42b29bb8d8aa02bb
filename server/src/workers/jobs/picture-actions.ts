/**
 * @module Engine jobs of the Midjourney actions beyond imagine/U/V/R (blend, describe,
 * shorten, pan, zoom out, vary region, vary strong/subtle) and of Ideogram remix, upscale and
 * describe, from their task rows. The submit services (services/tasks/submit-*.ts) write the
 * `input_data` read here: pictures named by URL are read through the guarded fetcher before
 * the engine runs, the inpaint mask back from our media store, the parent's picture from the
 * store too. Optional fields are left out when the task has none.
 */
import type { AspectRatio, CellIndex } from '../../engines/engine.ts';
import type { BlendDimension, IdeogramStyleType, MagicPromptOption, PanDirection, PictureSize, VaryType } from '../../engines/jobs/picture-actions.ts';
import type { JobBuilders } from './index.ts';

/** The fields of `fields` whose value is defined. */
export function defined<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}

export const numberOf = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
export const textOf = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);
const cellOf = (value: unknown): CellIndex | undefined => {
  const n = numberOf(value);
  return n === 1 || n === 2 || n === 3 || n === 4 ? n : undefined;
};

/** `{ width, height }` as stored by the submit, or undefined. */
export function sizeOf(value: unknown): PictureSize | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { width, height } = value as Record<string, unknown>;
  const w = numberOf(width);
  const h = numberOf(height);
  return w && h ? { width: w, height: h } : undefined;
}

/** The ideogram fields the imagine and remix tasks share. */
export function ideogramFields(data: Record<string, unknown>) {
  return defined({
    seed: numberOf(data.seed),
    resolution: sizeOf(data.resolution),
    styleType: textOf(data.style_type) as IdeogramStyleType | undefined,
    negativePrompt: textOf(data.negative_prompt),
    magicPrompt: textOf(data.magic_prompt_option) as MagicPromptOption | undefined,
  });
}

const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth'];

export const pictureActionJobs: JobBuilders = {
  blend: async ({ inputs, input, signal, resume }) => {
    const urls = Array.isArray(input.data.image_urls) ? input.data.image_urls : [];
    // all at once; the first unreadable one (in order) is the one told
    const read = await Promise.allSettled(urls.map((url, i) => inputs.inputImage(ORDINALS[i] ?? `#${i + 1}`, url, signal)));
    const failed = read.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    const images = read.map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<typeof inputs.inputImage>>>).value);
    return { kind: 'blend', images, dimension: (textOf(input.data.dimension) ?? 'square') as BlendDimension, ...resume };
  },
  describe: async ({ inputs, input, signal, resume }) => ({
    kind: 'describe',
    image: await inputs.inputImage('input', input.data.image_url, signal),
    ...resume,
  }),
  shorten: async ({ task, resume }) => ({ kind: 'shorten', prompt: task.prompt ?? '', ...resume }),
  pan: async ({ task, inputs, input, resume }) => ({
    kind: 'pan',
    parent: await inputs.parentRef(task, true),
    direction: (textOf(input.data.direction) ?? 'right') as PanDirection,
    ...defined({ index: cellOf(input.data.index), prompt: textOf(input.data.prompt) }),
    ...resume,
  }),
  outpaint: async ({ task, inputs, input, resume }) => ({
    kind: 'outpaint',
    parent: await inputs.parentRef(task, true),
    zoom: numberOf(input.data.zoom_ratio) ?? 2,
    ...defined({ index: cellOf(input.data.index), aspectRatio: input.aspectRatio, prompt: textOf(input.data.prompt) }),
    ...resume,
  }),
  inpaint: async ({ task, inputs, input, resume }) => {
    const maskUrl = textOf(input.data.mask_url) ?? '';
    const [parent, mask] = await Promise.all([inputs.parentRef(task, true), inputs.storedImage(maskUrl, 'The mask of this task is no longer stored.')]);
    return {
      kind: 'inpaint',
      parent,
      mask,
      prompt: textOf(input.data.prompt) ?? task.prompt ?? '',
      ...defined({ index: cellOf(input.data.index) }),
      ...resume,
    };
  },
  vary: async ({ task, inputs, input, resume }) => ({
    kind: 'vary',
    parent: await inputs.parentRef(task, true),
    type: (textOf(input.data.vary_type) ?? 'subtle') as VaryType,
    ...defined({ index: cellOf(input.data.index) }),
    ...resume,
  }),
  'ideogram-remix': async ({ task, inputs, input, signal, resume }) => ({
    kind: 'ideogram-remix',
    image: await inputs.inputImage('input', input.data.image_url, signal),
    prompt: task.prompt ?? '',
    ...defined({ imageWeight: numberOf(input.data.image_weight), aspectRatio: input.aspectRatio as AspectRatio | undefined }),
    ...ideogramFields(input.data),
    ...resume,
  }),
  'ideogram-upscale': async ({ task, inputs, input, signal, resume }) => ({
    kind: 'ideogram-upscale',
    image: await inputs.inputImage('input', input.data.image_url, signal),
    ...defined({
      prompt: task.prompt ?? undefined,
      resemblance: numberOf(input.data.resemblance),
      detail: numberOf(input.data.detail),
      seed: numberOf(input.data.seed),
      magicPrompt: textOf(input.data.magic_prompt_option) as MagicPromptOption | undefined,
    }),
    ...resume,
  }),
  'ideogram-describe': async ({ inputs, input, signal, resume }) => ({
    kind: 'ideogram-describe',
    image: await inputs.inputImage('input', input.data.image_url, signal),
    ...resume,
  }),
};
