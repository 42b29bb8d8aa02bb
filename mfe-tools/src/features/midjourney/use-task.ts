import { useCallback, useEffect, useRef, useState } from 'react';
import type { MidjourneyGateway } from './gateway.ts';
import { ERROR_FETCHING_TASK, isMidjourneyTask, mergeTaskUpdate, NOT_MIDJOURNEY_TASK, taskPhase, type MidjourneyTask } from './task-model.ts';

export type TaskState = { status: 'idle' } | { status: 'loading' } | { status: 'error' } | { status: 'ready'; task: MidjourneyTask; archived: boolean };

type Options = {
  gateway: Pick<MidjourneyGateway, 'readTask' | 'watchTask'>;
  notifyError: (message: string) => void;
  /** A task of another family was asked for: the caller drops the taskId from the URL. */
  onForeignTask: () => void;
};

/**
 * The task named by `taskId`: read once (live table, then the archive), then followed through
 * realtime while it is active; the subscription ends as soon as the task is terminal, or when
 * the id changes or the screen goes away.
 */
export function useMidjourneyTask(taskId: string | null, options: Options) {
  const [state, setState] = useState<TaskState>({ status: 'idle' });
  // The gateway changes identity when the user row loads; that must not re-read the task, so the
  // effect below runs per task id and reads the latest options through this ref.
  const optionsRef = useRef(options);
  optionsRef.current = options;

  useEffect(() => {
    if (!taskId) {
      setState({ status: 'idle' });
      return;
    }
    const { gateway, notifyError, onForeignTask } = optionsRef.current;
    let cancelled = false;
    let current: MidjourneyTask | null = null;
    let unwatch: (() => void) | null = null;
    const stopWatching = () => {
      unwatch?.();
      unwatch = null;
    };
    const publish = (task: MidjourneyTask, archived: boolean) => {
      current = task;
      setState({ status: 'ready', task, archived });
      if (taskPhase(task.status) !== 'active') stopWatching();
    };
    const onRow = (row: MidjourneyTask) => {
      if (!cancelled && row.id === taskId) publish(mergeTaskUpdate(current, row), false);
    };

    setState({ status: 'loading' });
    void (async () => {
      const loaded = await gateway.readTask(taskId).catch(() => undefined);
      if (cancelled) return;
      if (!loaded) {
        notifyError(ERROR_FETCHING_TASK);
        setState({ status: 'error' });
        return;
      }
      if (!isMidjourneyTask(loaded.task.type)) {
        notifyError(NOT_MIDJOURNEY_TASK);
        setState({ status: 'idle' });
        onForeignTask();
        return;
      }
      publish(loaded.task, loaded.archived);
      // Archived rows are finished history: nothing will change them.
      if (loaded.archived || taskPhase(loaded.task.status) !== 'active') return;
      unwatch = gateway.watchTask(taskId, onRow, () => {
        // Changes between the first read and the acknowledged join reach no subscriber: re-read once.
        void gateway.readTask(taskId).then(
          (again) => again && !again.archived && onRow(again.task),
          () => undefined,
        );
      });
    })();

    return () => {
      cancelled = true;
      stopWatching();
    };
  }, [taskId]);

  /** Local changes this screen made itself (favorite, seed) to a task no longer followed live. */
  const patchTask = useCallback((id: string, patch: Partial<MidjourneyTask>) => {
    setState((prev) => (prev.status === 'ready' && prev.task.id === id ? { ...prev, task: { ...prev.task, ...patch } } : prev));
  }, []);

  return { state, patchTask };
}
