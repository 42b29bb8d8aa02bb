/**
 * @module POST /inpaint: Midjourney's Vary (Region) of an upscaled image (task type inpaint; a
 * grid of four). `mask` is a picture as base64 (plain or a data: URI): its white pixels mark
 * the region to redraw, black the rest (transparent counts as black); it is scaled to the
 * picture when their sizes differ. It is decoded and judged at submit: a PNG, JPEG or WebP of
 * at most 5 MB and 40 megapixels that selects something, else a 400 on `mask`. The mask is
 * stored in the media store (`inpaint-mask-<task id>.<ext>`, after a balance check) and
 * read back by the worker. The prompt for the region defaults to the parent's.
 */
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import type { CellIndex } from '../../engines/engine.ts';
import { ApiError } from '../../errors.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { decodeBase64Image } from '../../storage/base64-image.ts';
import { inspectImage, MAX_IMAGE_PIXELS } from '../../storage/image-type.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { assertCanCreateTask, createTask, type TaskDeps } from './create-task.ts';
import { upscaledTarget } from './midjourney-parent.ts';
import { loadParent } from './submit-from-parent.ts';
import { type WebhookInput, webhookOf } from './submit-inputs.ts';

export const MAX_MASK_BYTES = 5 * 1024 * 1024;
const MASK_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp']);

export interface InpaintInput extends WebhookInput {
  parent_task_id: string;
  mask: string;
  prompt?: string;
  index?: CellIndex;
}

const maskProblem = (problem: string) => new ApiError('validation_failed', `mask: ${problem}`);

/** The mask's bytes and type, or a 400 on `mask` saying what is wrong with it. */
async function checkedMask(text: string): Promise<{ data: Buffer; contentType: string; extension: string }> {
  const decoded = decodeBase64Image(text, MAX_MASK_BYTES);
  if (!decoded.ok) throw maskProblem(decoded.problem);
  const image = await inspectImage(decoded.data);
  if (!image.ok && image.problem === 'unreadable') throw maskProblem('the image could not be read (damaged or cut short)');
  if (!image.ok || !MASK_TYPES.has(image.type.contentType)) throw maskProblem('not a PNG, JPEG or WebP image');
  if (image.width * image.height > MAX_IMAGE_PIXELS) throw maskProblem(`larger than ${MAX_IMAGE_PIXELS / 1_000_000} megapixels`);
  let brightest: number;
  try {
    const stats = await sharp(decoded.data, { limitInputPixels: MAX_IMAGE_PIXELS }).flatten({ background: '#000000' }).greyscale().stats();
    brightest = stats.channels[0].max;
  } catch {
    throw maskProblem('the image could not be read (damaged or cut short)');
  }
  if (brightest < 128) throw maskProblem('selects no region (paint the region to vary in white on black)');
  return { data: decoded.data, contentType: image.type.contentType, extension: image.type.extension };
}

export async function submitInpaint(deps: TaskDeps & { media: MediaStore }, account: Account, input: InpaintInput): Promise<{ task_id: string }> {
  const parent = await loadParent(deps, account, input.parent_task_id);
  const index = upscaledTarget(parent, input.index, 'Vary (Region)', 'POST /upscale-1x');
  const prompt = input.prompt ?? parent.prompt;
  if (!prompt) throw new ApiError('validation_failed', 'prompt: Required (the task has no prompt to start from)');
  const mask = await checkedMask(input.mask);
  await assertCanCreateTask(deps, account, { type: 'inpaint' });
  const id = randomUUID();
  const maskUrl = await deps.media.put(`inpaint-mask-${id}.${mask.extension}`, mask.data, mask.contentType);
  return createTask(deps, account, {
    id,
    type: 'inpaint',
    prompt,
    parentPrompt: parent.prompt,
    parentId: parent.id,
    inputData: { mask_url: maskUrl, prompt, ...(index ? { index } : {}) },
    webhook: webhookOf(input),
  });
}
