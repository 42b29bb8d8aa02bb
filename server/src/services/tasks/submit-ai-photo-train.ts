/**
 * @module POST /ai-photo-train (spec §4, §5, §7): learns the person of one of the caller's
 * finished, unexpired uploads under a trigger word (DEFAULT_TRIGGER_WORD when none is given). Priced 4 credits per photo the upload
 * kept (its check's verdicts; every photo when it gave none), held with the task. The train
 * task points at the upload (parent_id) and can be generated from until its `expires_at`.
 */
import { ApiError } from '../../errors.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { loadAiPhotoParent } from './ai-photo-parent.ts';
import { DEFAULT_TRIGGER_WORD, MAX_TRIGGER_WORD, MIN_TRIGGER_WORD, TRAINING_TTL_MS, TRIGGER_WORD_MESSAGE, usablePhotoIndexes } from './ai-photo-rules.ts';
import { type WebhookInput, webhookOf } from './submit-inputs.ts';
import { createTask, type TaskDeps } from './create-task.ts';

export interface AiPhotoTrainInput extends WebhookInput {
  training_images_id: string;
  /** Omitted: DEFAULT_TRIGGER_WORD. */
  trigger_word?: string;
}

/** The trigger word as stored (trimmed), or the spec's 400. It goes into prompts, so one word. */
function checkedTriggerWord(input: string): string {
  const word = input.trim();
  const length = [...word].length;
  if (length < MIN_TRIGGER_WORD || length > MAX_TRIGGER_WORD) throw new ApiError('validation_failed', TRIGGER_WORD_MESSAGE);
  if (!/^[\p{L}\p{N}_-]+$/u.test(word)) throw new ApiError('validation_failed', 'Trigger word must be one word of letters, digits, _ or -');
  return word;
}

export async function submitAiPhotoTrain(deps: TaskDeps, account: Account, input: AiPhotoTrainInput): Promise<{ task_id: string }> {
  const triggerWord = checkedTriggerWord(input.trigger_word ?? DEFAULT_TRIGGER_WORD);
  const webhook = webhookOf(input);
  const upload = await loadAiPhotoParent(deps, account, input.training_images_id, 'ai-photo-upload');
  const usable = usablePhotoIndexes(upload);
  if (usable.length === 0) throw new ApiError('conflict', 'None of the uploaded photos can be used for training; upload other photos');
  return createTask(deps, account, {
    type: 'ai-photo-train',
    quantity: usable.length,
    prompt: null,
    parentId: upload.id,
    inputData: { training_images_id: upload.id, trigger_word: triggerWord },
    expiresAt: new Date(Date.now() + TRAINING_TTL_MS),
    webhook,
  });
}
