/**
 * @module POST /ideogram-imagine (v1) and /ideogram/imagine: pictures from a prompt on
 * Ideogram (task type ideogram-imagine), with its parameters (ideogram-inputs.ts).
 */
import type { Account } from '../../repositories/user-repository.ts';
import { createTask, type TaskDeps } from './create-task.ts';
import { type IdeogramInput, ideogramInputData } from './ideogram-inputs.ts';
import { type WebhookInput, webhookOf } from './submit-inputs.ts';

export function submitIdeogramImagine(
  deps: TaskDeps,
  account: Account,
  input: { prompt: string } & IdeogramInput & WebhookInput,
): Promise<{ task_id: string }> {
  return createTask(deps, account, { type: 'ideogram-imagine', prompt: input.prompt, inputData: ideogramInputData(input), webhook: webhookOf(input) });
}
