import { useLiveTask } from '../tasks/use-live-task.ts';
import type { MidjourneyGateway } from './gateway.ts';
import { isMidjourneyTask, NOT_MIDJOURNEY_TASK, type MidjourneyTask } from './task-model.ts';

type Options = {
  gateway: Pick<MidjourneyGateway, 'readTask' | 'watchTask'>;
  notifyError: (message: string) => void;
  /** A task of another family was asked for: the caller drops the taskId from the URL. */
  onForeignTask: () => void;
};

/**
 * The Midjourney task named by `taskId`, read and followed live by `useLiveTask`; a task of
 * another family is refused with 'This task is not a Midjourney task!'.
 */
export function useMidjourneyTask(taskId: string | null, { gateway, notifyError, onForeignTask }: Options) {
  return useLiveTask<MidjourneyTask>(taskId, { source: gateway, accepts: isMidjourneyTask, foreignMessage: NOT_MIDJOURNEY_TASK, notifyError, onForeignTask });
}
