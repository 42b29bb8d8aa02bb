/**
 * @module POST /outpaint (v1) and /pro/zoom: Midjourney's Zoom Out of an upscaled image (a
 * grid of four on a larger canvas). `zoom_ratio` 1.5 and 2 are the Zoom Out buttons
 * (outpaint-1.5x, outpaint-2x); any other ratio from 1 to 2, or an aspect ratio or a prompt
 * for the new area, is Custom Zoom (outpaint-custom; 1 with an aspect ratio is Make Square and
 * its like; zoom 1 alone is Make Square). The parent rules are pan's (midjourney-parent.ts).
 */
import type { AspectRatio, CellIndex } from '../../engines/engine.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { createTask, type TaskDeps } from './create-task.ts';
import { upscaledTarget } from './midjourney-parent.ts';
import { loadParent } from './submit-from-parent.ts';
import { type WebhookInput, webhookOf } from './submit-inputs.ts';
import { outpaintTaskType } from './task-kinds.ts';

export interface OutpaintInput extends WebhookInput {
  parent_task_id: string;
  /** 1 to 2 (the route checks the range). */
  zoom_ratio: number;
  aspect_ratio?: AspectRatio;
  prompt?: string;
  index?: CellIndex;
}

export async function submitOutpaint(deps: TaskDeps, account: Account, input: OutpaintInput): Promise<{ task_id: string }> {
  const parent = await loadParent(deps, account, input.parent_task_id);
  const index = upscaledTarget(parent, input.index, 'Zoom out', 'POST /upscale-1x');
  // zoom 1 only changes the shape: Make Square unless another aspect ratio is asked for
  const aspectRatio = input.aspect_ratio ?? (input.zoom_ratio === 1 ? '1:1' : undefined);
  const custom = aspectRatio !== undefined || input.prompt !== undefined;
  return createTask(deps, account, {
    type: outpaintTaskType(input.zoom_ratio, custom),
    prompt: input.prompt ?? parent.prompt,
    parentPrompt: parent.prompt,
    parentId: parent.id,
    inputData: {
      zoom_ratio: input.zoom_ratio,
      ...(aspectRatio ? { aspect_ratio: aspectRatio } : {}),
      ...(input.prompt ? { prompt: input.prompt } : {}),
      ...(index ? { index } : {}),
    },
    webhook: webhookOf(input),
  });
}
