/**
 * @module The in-process hook on task changes: the worker emits every progress step and
 * the completion of a task it runs, with the task as POST /fetch shows it. The webhook
 * sender subscribes here (in the process that runs the worker).
 */
import type { TaskView } from './task-view.ts';

export type TaskEventKind = 'progress' | 'success' | 'failed';

/** Who the task belongs to (not part of the /fetch view, needed to find the account's webhook). */
interface TaskOwner {
  userId: string;
  email: string;
}

type TaskEventListener = (task: TaskView, kind: TaskEventKind, owner: TaskOwner) => void | Promise<void>;

export interface TaskEvents {
  /** Subscribes; answers the unsubscribe function. A throwing listener never stops the worker. */
  onTaskEvent(listener: TaskEventListener): () => void;
  emit(task: TaskView, kind: TaskEventKind, owner: TaskOwner): void;
}

export function createTaskEvents(onListenerError: (error: unknown) => void = () => {}): TaskEvents {
  const listeners = new Set<TaskEventListener>();
  return {
    onTaskEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    emit(task, kind, owner) {
      for (const listener of listeners) {
        try {
          Promise.resolve(listener(task, kind, owner)).catch(onListenerError);
        } catch (error) {
          onListenerError(error);
        }
      }
    },
  };
}
