import { useCallback, useEffect, useRef, useState } from 'react';
import type { TaskSource } from './task-store.ts';
import { ERROR_FETCHING_TASK, type LiveTask, mergeTaskUpdate, taskPhase } from './task-rules.ts';

export type LiveTaskState<T> = { status: 'idle' } | { status: 'loading' } | { status: 'error' } | { status: 'ready'; task: T; archived: boolean };

type Options<T extends LiveTask> = {
  source: TaskSource<T>;
  /** False while the screen may not read yet (e.g. the API key is not known): a task id then waits as 'loading'. */
  enabled?: boolean;
  /** Whether this screen shows tasks of that type. */
  accepts: (type: string) => boolean;
  /** The toast for a task of another type (spec §5), after which `onForeignTask` runs. */
  foreignMessage: string;
  notifyError: (message: string) => void;
  /** A task of another type was asked for: the caller drops the taskId from the URL. */
  onForeignTask: () => void;
};

/**
 * The task named by `taskId`: read once (live table, then the archive), then followed through
 * realtime while it is active; the subscription ends as soon as the task is terminal, or when
 * the id changes (Clear All Data sets it to null) or the screen goes away.
 */
export function useLiveTask<T extends LiveTask>(taskId: string | null, options: Options<T>) {
  const [state, setState] = useState<LiveTaskState<T>>({ status: 'idle' });
  const enabled = options.enabled ?? true;
  // The gateway changes identity when the user row loads; that must not re-read the task, so the
  // effect below runs per task id and reads the latest options through this ref.
  const optionsRef = useRef(options);
  optionsRef.current = options;

  useEffect(() => {
    if (!taskId) {
      setState({ status: 'idle' });
      return;
    }
    setState({ status: 'loading' });
    if (!enabled) return;
    const { source, accepts, foreignMessage, notifyError, onForeignTask } = optionsRef.current;
    let cancelled = false;
    let current: T | null = null;
    let unwatch: (() => void) | null = null;
    const stopWatching = () => {
      unwatch?.();
      unwatch = null;
    };
    const publish = (task: T, archived: boolean) => {
      current = task;
      setState({ status: 'ready', task, archived });
      if (taskPhase(task.status) !== 'active') stopWatching();
    };
    const onRow = (row: T) => {
      if (!cancelled && row.id === taskId) publish(mergeTaskUpdate(current, row), false);
    };

    void (async () => {
      const loaded = await source.readTask(taskId).catch(() => undefined);
      if (cancelled) return;
      if (!loaded) {
        notifyError(ERROR_FETCHING_TASK);
        setState({ status: 'error' });
        return;
      }
      if (!accepts(loaded.task.type)) {
        notifyError(foreignMessage);
        setState({ status: 'idle' });
        onForeignTask();
        return;
      }
      publish(loaded.task, loaded.archived);
      // Archived rows are finished history: nothing will change them.
      if (loaded.archived || taskPhase(loaded.task.status) !== 'active') return;
      unwatch = source.watchTask(taskId, onRow, () => {
        // Changes between the first read and the acknowledged join reach no subscriber: re-read once.
        void source.readTask(taskId).then(
          (again) => again && !again.archived && onRow(again.task),
          () => undefined,
        );
      });
    })();

    return () => {
      cancelled = true;
      stopWatching();
    };
  }, [taskId, enabled]);

  /** Local changes a screen made itself (favorite, seed) to a task no longer followed live. */
  const patchTask = useCallback((id: string, patch: Partial<T>) => {
    setState((prev) => (prev.status === 'ready' && prev.task.id === id ? { ...prev, task: { ...prev.task, ...patch } } : prev));
  }, []);

  return { state, patchTask };
}
