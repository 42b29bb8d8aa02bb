// The Faceswap screen's rules (spec §2 Faceswap, §4, §5, §8), kept free of React so they can be
// table-tested (test/faceswap-rules.test.ts).
import { FACESWAP_MAX_BYTES, taskFamily } from '@aim/shared-kit/domain';
import { failureMessage, isAcceptedImage, type LiveTask, type TaskPhase, taskPhase, UNSUPPORTED_IMAGE_MESSAGE } from '../tasks/task-rules.ts';
import type { LiveTaskState } from '../tasks/use-live-task.ts';

/** The fields of a faceswap task row (spec §3) the screen reads. */
export type FaceswapTask = LiveTask & {
  image_url: string | null;
  result: { message?: string | null } | null;
  refund: number | null;
  input_data: { swap_image_url?: string | null; target_image_url?: string | null } | null;
};

// Spec texts: these must match exactly.
export const NOT_FACESWAP_TASK = 'This task is not a Faceswap task!';
export const ERROR_UPLOADING_IMAGES = 'Error uploading images!';
/** §8 gives the faceswap download its own text, colon included. */
export const ERROR_DOWNLOADING_IMAGE = 'Error downloading image:';

export type ImageRole = 'source' | 'target';
export const IMAGE_ROLES: readonly ImageRole[] = ['source', 'target'];
export const IMAGE_LABELS: Record<ImageRole, string> = { source: 'Source Image', target: 'Target Image' };

export function isFaceswapTask(type: string | null | undefined): boolean {
  return !!type && taskFamily(type) === 'faceswap';
}

/** Spec §5: 'Source Image is too large. Please upload an image under 3MB.' and the same for Target. */
export function tooLargeMessage(role: ImageRole): string {
  return `${IMAGE_LABELS[role]} is too large. Please upload an image under 3MB.`;
}

/** Null when the file may be uploaded for that box: jpeg, png, gif or webp, at most 3 MB. */
export function checkImageFile(file: { type: string; size: number }, role: ImageRole): string | null {
  if (!isAcceptedImage(file)) return UNSUPPORTED_IMAGE_MESSAGE;
  if (file.size > FACESWAP_MAX_BYTES) return tooLargeMessage(role);
  return null;
}

/** One upload box: the URL the server stored the picture under, and what the box previews. */
export type ImageSlot = { url: string | null; preview: string | null; uploading: boolean; error: string | null };
export const EMPTY_SLOT: ImageSlot = { url: null, preview: null, uploading: false, error: null };

/** Spec §5: both images are needed to enable Generate (and both uploads must have finished). */
export function canGenerate(slots: Record<ImageRole, ImageSlot>, ready: boolean): boolean {
  return ready && IMAGE_ROLES.every((role) => !!slots[role].url && !slots[role].uploading);
}

/** The pictures a task was made from, to show in the boxes when it is restored from ?taskId=. */
export function taskInputs(task: Pick<FaceswapTask, 'input_data'>): Record<ImageRole, string | null> {
  return { source: task.input_data?.swap_image_url || null, target: task.input_data?.target_image_url || null };
}

export type SpinnerReason = 'uploading' | 'loading' | 'running';

export type ResultView =
  | { kind: 'generate' }
  | { kind: 'spinner'; reason: SpinnerReason }
  | { kind: 'image'; url: string }
  | { kind: 'failed'; message: string }
  | { kind: 'error' }
  | { kind: 'no-image' };

/**
 * Spec §2: the Result box shows the Generate button when nothing is started; a spinner while
 * uploading, while a task id exists without data, or while the status is non-terminal with no
 * image_url; the result image once image_url exists; 'Task Failed' with the message on failure.
 * A task that could not be read says so ('Error fetching task!' was toasted).
 */
export function resultView(input: { uploading: boolean; taskId: string | null; state: LiveTaskState<FaceswapTask> }): ResultView {
  const { uploading, taskId, state } = input;
  if (uploading) return { kind: 'spinner', reason: 'uploading' };
  if (!taskId) return { kind: 'generate' };
  if (state.status === 'error') return { kind: 'error' };
  // 'idle' with an id is the render before the hook's effect has started reading it.
  if (state.status !== 'ready' || state.task.id !== taskId) return { kind: 'spinner', reason: 'loading' };
  const { task } = state;
  const phase = taskPhase(task.status);
  if (phase === 'failed') return { kind: 'failed', message: failureMessage(task) };
  if (task.image_url) return { kind: 'image', url: task.image_url };
  return phase === 'active' ? { kind: 'spinner', reason: 'running' } : { kind: 'no-image' };
}

/** The phase of the task on screen, or null when none is (used to lock the boxes while it runs). */
export function shownPhase(taskId: string | null, state: LiveTaskState<FaceswapTask>): TaskPhase | 'loading' | null {
  if (!taskId) return null;
  if (state.status === 'error') return null;
  if (state.status !== 'ready' || state.task.id !== taskId) return 'loading';
  return taskPhase(state.task.status);
}

/** Spec §2: Download saves a png named from the task id. */
export function resultFileName(taskId: string): string {
  return `${taskId}.png`;
}
