/**
 * @module POST /ai-photo-generate (spec §7): photos of the person one of the caller's
 * finished, unexpired trainings learned, from a prompt. 1 credit per photo asked for (1–4,
 * default 4). The shape: a named aspect ratio (default 1:1), optionally with the exact
 * width and height that match it, or `custom` with any width and height in range. The task
 * runs on the engine that trained the model when this server has it (another engine cannot
 * use the model: the worker fails such a task and refunds it), and is listed as long as its
 * training (same `expires_at`).
 */
import type { AspectRatio } from '../../engines/engine.ts';
import { ApiError } from '../../errors.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { loadAiPhotoParent } from './ai-photo-parent.ts';
import { MAX_GENERATED_PHOTOS } from './ai-photo-rules.ts';
import { type WebhookInput, webhookOf } from './submit-inputs.ts';
import { createTask, type TaskDeps } from './create-task.ts';

export interface AiPhotoGenerateInput extends WebhookInput {
  training_id: string;
  prompt: string;
  aspect_ratio?: AspectRatio | 'custom';
  width?: number;
  height?: number;
  number_of_images?: number;
  seed?: number;
}

// a named ratio and a size that differ by more than rounding to a multiple of 8 or 16 disagree
const RATIO_TOLERANCE = 0.02;

const invalid = (msg: string) => new ApiError('validation_failed', msg);

/** The shape asked for, checked across fields: what input_data stores. */
function checkedShape(input: AiPhotoGenerateInput): { aspect_ratio: AspectRatio | 'custom'; width?: number; height?: number } {
  const { width, height } = input;
  if (width !== undefined && height === undefined) throw invalid('height: Required with width');
  if (height !== undefined && width === undefined) throw invalid('width: Required with height');
  const ratio = input.aspect_ratio ?? (width !== undefined ? 'custom' : '1:1');
  if (width === undefined || height === undefined) {
    if (ratio === 'custom') throw invalid('width: Required when aspect_ratio is custom');
    return { aspect_ratio: ratio };
  }
  if (ratio !== 'custom') {
    const [w, h] = ratio.split(':').map(Number);
    if (Math.abs(width / height / (w / h) - 1) > RATIO_TOLERANCE) {
      throw invalid(`width: ${width}×${height} is not ${ratio}; leave width and height out, or set aspect_ratio to custom`);
    }
  }
  return { aspect_ratio: ratio, width, height };
}

export async function submitAiPhotoGenerate(deps: TaskDeps, account: Account, input: AiPhotoGenerateInput): Promise<{ task_id: string }> {
  const shape = checkedShape(input);
  const count = input.number_of_images ?? MAX_GENERATED_PHOTOS;
  const webhook = webhookOf(input);
  const training = await loadAiPhotoParent(deps, account, input.training_id, 'ai-photo-train');
  const engine = training.result?.engine;
  return createTask(deps, account, {
    type: 'ai-photo-generate',
    quantity: count,
    prompt: input.prompt,
    parentId: training.id,
    inputData: { training_id: training.id, ...shape, number_of_images: count, ...(input.seed === undefined ? {} : { seed: input.seed }) },
    expiresAt: training.expires_at,
    preferredEngine: typeof engine === 'string' ? engine : undefined,
    webhook,
  });
}
