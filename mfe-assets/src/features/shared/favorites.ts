// toggle_favorite (spec §7) and fetching a file to save, shared by the galleries' gateways.
import type { getSupabaseClient } from '@aim/shared-kit/supabase';

/** Flips a task's favourite (its row in tasks or tasks_archive_1); answers the new state. */
export async function toggleFavorite(supabase: ReturnType<typeof getSupabaseClient>, email: string, taskId: string): Promise<boolean> {
  const { data, error } = await supabase.rpc('toggle_favorite', { task_id: taskId, email });
  if (error) throw new Error(error.message);
  if (typeof data !== 'boolean') throw new Error('The task was not found');
  return data;
}

export async function fetchBlob(url: string): Promise<Blob> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
  return res.blob();
}
