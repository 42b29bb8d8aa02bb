/**
 * @module Live task events for server-sent event streams (routes/task-events.ts): one
 * LISTEN per API process on the channel the tasks' triggers announce every new version on
 * (`<task id>:<event_seq>:<user id>`, migration 20261128001100_task_events.sql), fanned out to
 * the streams open in this process. Whoever changed the task (a worker in another process,
 * a sweep, a cancel), every API process hears it.
 *
 * A notification only says "this task has a version above N"; the stream then reads the task,
 * scoped to its account, and sends its current /fetch view with the version as the event id.
 * So a burst of progress steps read while the stream was busy is sent once, at its latest
 * state (progress is a state, not a log), and nothing is ever sent from a payload alone.
 *
 * Event ids are task versions (tasks.event_seq): one sequence for all tasks, so they grow per
 * task and, across an account's tasks, in the order the changes were made. A reconnect with
 * Last-Event-ID gets the current state of whatever changed after that id.
 */
import type { Db } from '@aim/supabase/db';
import { ApiError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import { TASK_EVENT_CHANNEL, taskEventRepository, type VersionedTaskRow } from '../../repositories/task-event-repository.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { TASK_NOT_FOUND_MESSAGE } from '../tasks/submit-from-parent.ts';
import { withQueuePosition } from '../tasks/queue-position.ts';
import { viewsOf } from '../tasks/fetch-task.ts';
import { isFinished, isTerminal, type TaskView } from '../tasks/task-view.ts';

type TaskEventName = 'progress' | 'completed' | 'failed';

export interface TaskStreamEvent {
  /** The task's version (tasks.event_seq), the SSE `id`. */
  id: string;
  event: TaskEventName;
  /** The task as POST /fetch shows it. */
  data: TaskView;
}

/** How many streams one account may hold open in one API process. */
export const DEFAULT_MAX_STREAMS_PER_ACCOUNT = 10;
/** At most this many tasks are replayed on an account stream's reconnect (their current states). */
const CATCH_UP_LIMIT = 500;

export interface TaskStream {
  /** The events, in order; ends after a followed task's terminal event, or on close. */
  events(): AsyncIterable<TaskStreamEvent>;
  /** The client went away (or the process stops): ends `events()`, frees the account's slot. */
  close(): void;
}

interface OpenStreamOptions {
  /** Follow one task (ends at its terminal event); without it: every task of the account. */
  taskId?: string;
  /** Account stream: only these task types (null: all). */
  types?: readonly string[] | null;
  /** The Last-Event-ID a reconnecting client sent (a task version); null: a new stream. */
  lastEventId?: number | null;
}

export interface TaskEventHub {
  /**
   * Opens a stream for the account: 404 for a task that is not the account's, 429 past the
   * per-account cap; `ended` when a reconnecting client already had the task's terminal event.
   */
  open(account: Account, opts: OpenStreamOptions): Promise<TaskStream | 'ended'>;
  /** Ends every stream and stops listening (the process shuts down). */
  close(): Promise<void>;
  /** How often an idle stream sends a heartbeat comment. */
  readonly heartbeatMs: number;
}

function eventNameOf(view: TaskView): TaskEventName {
  if (isFinished(view.status)) return 'completed';
  return view.status === 'failed' ? 'failed' : 'progress';
}

/** Parses a Last-Event-ID header: a task version, or null when absent or not one of ours. */
export function parseLastEventId(header: string | undefined): number | null {
  if (!header || !/^\d{1,15}$/.test(header.trim())) return null;
  return Number(header.trim());
}

class Follower implements TaskStream {
  /** Versions at or below this need not be sent (the client had them), -1: none. */
  private readonly floor: number;
  private readonly sent = new Map<string, number>();
  private readonly dirty = new Set<string>();
  private catchUpSince: number | null;
  private maxSent: number;
  private wake?: () => void;
  closed = false;

  constructor(
    private readonly db: Db,
    readonly userId: string,
    readonly taskId: string | undefined,
    private readonly types: readonly string[] | null,
    /** The client's Last-Event-ID, -1: none. */
    lastEventId: number,
    private readonly onClose: (f: Follower) => void,
  ) {
    // One task's versions commit in order: what is at or below the client's id, it had. Across
    // an account's tasks they may commit out of order (a lower version after a higher one), so
    // an account stream filters nothing by the id: it catches up from it with an overlap
    // (taskEventRepository.findChangedSince) and may send a task's latest state twice.
    this.floor = taskId ? lastEventId : -1;
    this.maxSent = lastEventId;
    // a task stream starts with the task's current state; a resumed account stream with what it missed
    this.catchUpSince = !taskId && lastEventId >= 0 ? lastEventId : null;
    if (taskId) this.dirty.add(taskId);
  }

  /** A notification: the task has version `seq`. */
  notify(taskId: string, seq: number) {
    if (this.taskId && this.taskId !== taskId) return;
    if (seq <= (this.sent.get(taskId) ?? this.floor)) return;
    this.dirty.add(taskId);
    this.wake?.();
  }

  /** The LISTEN connection came back: notifications may have been missed meanwhile. */
  resync() {
    if (this.taskId) this.dirty.add(this.taskId);
    else this.catchUpSince = Math.min(this.catchUpSince ?? this.maxSent, this.maxSent);
    this.wake?.();
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    this.wake?.();
    this.onClose(this);
  }

  private async readChanged(): Promise<VersionedTaskRow[]> {
    const repo = taskEventRepository(this.db);
    let rows: VersionedTaskRow[] = [];
    if (this.catchUpSince !== null) {
      const since = this.catchUpSince;
      this.catchUpSince = null;
      rows = await repo.findChangedSince(this.userId, Math.max(since, 0), this.types, CATCH_UP_LIMIT);
    }
    if (this.dirty.size > 0) {
      const ids = [...this.dirty];
      this.dirty.clear();
      rows = rows.concat(await repo.findOwnVersioned(this.userId, ids));
    }
    const latest = new Map<string, VersionedTaskRow>();
    for (const row of rows) {
      if (this.types && !this.types.includes(row.type)) continue;
      if (row.event_seq <= (this.sent.get(row.id) ?? this.floor)) continue;
      const seen = latest.get(row.id);
      if (!seen || seen.event_seq < row.event_seq) latest.set(row.id, row);
    }
    return [...latest.values()].sort((a, b) => a.event_seq - b.event_seq);
  }

  async *events(): AsyncGenerator<TaskStreamEvent> {
    try {
      while (!this.closed) {
        if (this.catchUpSince === null && this.dirty.size === 0) {
          await new Promise<void>((resolve) => {
            this.wake = resolve;
          });
          this.wake = undefined;
          continue;
        }
        const rows = await this.readChanged();
        const views = await viewsOf(this.db, rows);
        for (const [i, row] of rows.entries()) {
          if (this.closed) return;
          this.sent.set(row.id, row.event_seq);
          this.maxSent = Math.max(this.maxSent, row.event_seq);
          const data = await withQueuePosition(this.db, views[i]);
          yield { id: String(row.event_seq), event: eventNameOf(data), data };
          if (this.taskId && isTerminal(row.status)) return;
        }
      }
    } finally {
      this.close();
    }
  }
}

/** How often an idle stream sends a comment line (proxies close idle connections). */
const HEARTBEAT_MS = 15_000;

export function createTaskEventHub(deps: { db: Db; log: Logger; maxStreamsPerAccount?: number; heartbeatMs?: number }): TaskEventHub {
  const max = deps.maxStreamsPerAccount ?? DEFAULT_MAX_STREAMS_PER_ACCOUNT;
  const byUser = new Map<string, Set<Follower>>();
  let listening: Promise<() => Promise<void>> | undefined;
  let closed = false;

  const onPayload = (payload: string) => {
    const [taskId, seqText, userId] = payload.split(':');
    const followers = userId ? byUser.get(userId) : undefined;
    if (!followers || !taskId) return;
    const seq = Number(seqText);
    if (!Number.isSafeInteger(seq)) return;
    for (const follower of followers) follower.notify(taskId, seq);
  };
  const onReconnect = () => {
    deps.log.info('task events: LISTEN reconnected; open streams re-read their tasks');
    for (const followers of byUser.values()) for (const follower of followers) follower.resync();
  };
  const release = (follower: Follower) => {
    const followers = byUser.get(follower.userId);
    followers?.delete(follower);
    if (followers?.size === 0) byUser.delete(follower.userId);
  };

  return {
    heartbeatMs: deps.heartbeatMs ?? HEARTBEAT_MS,
    async open(account, opts) {
      if (closed) throw new ApiError('internal_error', 'The server is shutting down');
      const lastEventId = opts.lastEventId ?? null;
      if (opts.taskId) {
        const [row] = await taskEventRepository(deps.db).findOwnVersioned(account.id, [opts.taskId.toLowerCase()]);
        if (!row) throw new ApiError('not_found', TASK_NOT_FOUND_MESSAGE);
        if (isTerminal(row.status) && lastEventId !== null && row.event_seq <= lastEventId) return 'ended';
      }
      const followers = byUser.get(account.id) ?? new Set<Follower>();
      if (followers.size >= max) throw new ApiError('too_many_requests', `At most ${max} event streams can be open at once per account`);
      const follower = new Follower(deps.db, account.id, opts.taskId?.toLowerCase(), opts.types ?? null, lastEventId ?? -1, release);
      followers.add(follower);
      byUser.set(account.id, followers);
      try {
        // listening before the stream's first read: no change between that read and the LISTEN is lost
        listening ??= deps.db.listen(TASK_EVENT_CHANNEL, onPayload, { onReconnect });
        await listening;
      } catch (error) {
        listening = undefined;
        follower.close();
        throw error;
      }
      return follower;
    },

    async close() {
      closed = true;
      for (const followers of [...byUser.values()]) for (const follower of [...followers]) follower.close();
      const unlisten = await listening?.catch(() => undefined);
      await unlisten?.();
    },
  };
}
