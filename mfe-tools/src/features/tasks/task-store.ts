// The outside calls every task screen of this remote shares: a task row by id and its live
// updates through the page's supabase-js client (spec §7 data store), POST /upload through the
// API client, and the fetch of a result picture. Each screen's gateway is built from these.
// Rows come out with an older `success` status read as `finished` (shared-kit's
// withNormalizedStatus), so the screens only ever see finished.
import type { RequestOptions, TypedApi } from '@aim/shared-kit/api';
import { withNormalizedStatus } from '@aim/shared-kit/domain';
import type { getSupabaseClient } from '@aim/shared-kit/supabase';

type SupabaseClient = ReturnType<typeof getSupabaseClient>;

export type LoadedTask<T> = { task: T; archived: boolean };

/** How a screen reads and follows one task (what `useLiveTask` needs). */
export type TaskSource<T> = {
  /** The row from tasks, else from tasks_archive_1; null when neither has it. */
  readTask(taskId: string): Promise<LoadedTask<T> | null>;
  /**
   * Follows UPDATEs of one task row. `onLive` fires once the subscription is acknowledged, so
   * the caller can re-read what changed before it. Returns the unsubscribe function.
   */
  watchTask(taskId: string, onRow: (task: T) => void, onLive: () => void): () => void;
};

/** PostgREST's code for `.single()` finding no row. */
const NO_ROWS = 'PGRST116';

/** `channelPrefix` names the realtime channel (`<prefix>:<task id>`) so each screen's is its own. */
export function createTaskSource<T>(supabase: SupabaseClient, channelPrefix: string): TaskSource<T> {
  async function readFrom(table: 'tasks' | 'tasks_archive_1', taskId: string): Promise<T | null> {
    const { data, error } = await supabase.from(table).select('*').eq('id', taskId).single();
    if (error) {
      if (error.code === NO_ROWS) return null;
      throw new Error(error.message);
    }
    return withNormalizedStatus(data as T & { status?: unknown });
  }

  return {
    async readTask(taskId) {
      const live = await readFrom('tasks', taskId);
      if (live) return { task: live, archived: false };
      const archived = await readFrom('tasks_archive_1', taskId);
      return archived ? { task: archived, archived: true } : null;
    },
    watchTask(taskId, onRow, onLive) {
      const channel = supabase
        .channel(`${channelPrefix}:${taskId}`)
        .on('postgres_changes', { event: 'UPDATE', schema: 'public', table: 'tasks', filter: `id=eq.${taskId}` }, (payload) =>
          onRow(withNormalizedStatus(payload.new as T & { status?: unknown })),
        )
        .subscribe((status) => {
          if (status === 'SUBSCRIBED') onLive();
        });
      return () => void supabase.removeChannel(channel);
    },
  };
}

/** POST /upload (multipart field `image`) → the URL the server stored the picture under. */
export async function uploadImage(api: TypedApi, file: File, options?: Omit<RequestOptions, 'body'>): Promise<string> {
  const form = new FormData();
  form.append('image', file);
  return (await api.post('/upload', { ...options, body: form })).imageURL;
}

/** The bytes of a result picture (its URL is a media URL, not an API call). */
export async function fetchImage(url: string): Promise<Blob> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
  return res.blob();
}
