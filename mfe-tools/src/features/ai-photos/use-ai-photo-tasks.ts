import { useCallback, useEffect, useRef, useState } from 'react';
import { type AiPhotoListItem, ERROR_FETCHING_AI_PHOTO_TASKS } from './ai-photos-rules.ts';

export type TaskListState = { status: 'loading' } | { status: 'error' } | { status: 'ready'; items: AiPhotoListItem[]; isRefreshing: boolean };

type Options = {
  listTasks: () => Promise<AiPhotoListItem[]>;
  /** False until the user is known: the list waits (as 'loading'). */
  enabled: boolean;
  notifyError: (message: string) => void;
};

/**
 * The side list's rows: read when the screen opens and again on `reload` (a task was created or
 * finished). A failed read says 'Error fetching AI Photo tasks!'; rows already shown stay, and
 * with none the list shows its error with Retry. Only the newest read may fill the list.
 */
export function useAiPhotoTasks({ listTasks, enabled, notifyError }: Options) {
  const [state, setState] = useState<TaskListState>({ status: 'loading' });
  const reads = useRef(0);
  const optionsRef = useRef({ listTasks, notifyError });
  optionsRef.current = { listTasks, notifyError };

  const reload = useCallback(async () => {
    const mine = ++reads.current;
    setState((prev) => (prev.status === 'ready' ? { ...prev, isRefreshing: true } : { status: 'loading' }));
    try {
      const items = await optionsRef.current.listTasks();
      if (mine === reads.current) setState({ status: 'ready', items, isRefreshing: false });
    } catch {
      if (mine !== reads.current) return;
      optionsRef.current.notifyError(ERROR_FETCHING_AI_PHOTO_TASKS);
      setState((prev) => (prev.status === 'ready' ? { ...prev, isRefreshing: false } : { status: 'error' }));
    }
  }, []);

  useEffect(() => {
    if (enabled) void reload();
  }, [enabled, reload]);

  return { state, reload };
}
