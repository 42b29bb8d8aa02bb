/**
 * @module POST /shorten: shorter versions of a long prompt (task type shorten; /fetch shows
 * them in `content`, the analysis in `full_content`).
 */
import type { Account } from '../../repositories/user-repository.ts';
import { createTask, type TaskDeps } from './create-task.ts';
import { type WebhookInput, webhookOf } from './submit-inputs.ts';

export function submitShorten(deps: TaskDeps, account: Account, input: { prompt: string } & WebhookInput): Promise<{ task_id: string }> {
  return createTask(deps, account, { type: 'shorten', prompt: input.prompt, webhook: webhookOf(input) });
}
