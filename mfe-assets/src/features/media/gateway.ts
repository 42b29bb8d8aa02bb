// What the Videos and Audios galleries ask of the outside world (spec §7 Data store: tasks and
// tasks_archive_1 by email, newest first; toggle_favorite), behind one interface so the page
// can be tested with a fake. Row-level security keeps every read to the caller's own tasks.
import { useMemo } from 'react';
import { getSupabaseClient, RANGE_NOT_SATISFIABLE } from '@aim/shared-kit/supabase';
import { fetchBlob, toggleFavorite } from '../shared/favorites.ts';
import { MEDIA, type MediaFilter, type MediaKind } from './media-rules.ts';

export type MediaItem = {
  id: string;
  type: string;
  prompt: string | null;
  image_url: string | null;
  video_url: string | null;
  audio_urls: string[] | null;
  lyrics: string | null;
  favorite: boolean;
  created_at: string;
};

export type MediaQuery = { tab: string; filter: MediaFilter; archive: boolean };

export type MediaGateway = {
  page(email: string, kind: MediaKind, query: MediaQuery, offset: number): Promise<MediaItem[]>;
  toggleFavorite(email: string, taskId: string): Promise<boolean>;
  fetchFile(url: string): Promise<Blob>;
};

export function createMediaGateway(supabase: ReturnType<typeof getSupabaseClient>): MediaGateway {
  return {
    async page(email, kind, query, offset) {
      const config = MEDIA[kind];
      const types = (config.tabs.find((t) => t.label === query.tab) ?? config.tabs[0]).types;
      let request = supabase
        .from(query.archive && config.archive ? 'tasks_archive_1' : 'tasks')
        .select('id, type, prompt, image_url, video_url, audio_urls, lyrics, favorite, created_at')
        .eq('email', email)
        .not(config.column, 'is', null)
        .in('type', [...types]);
      if (query.filter === 'Favorites') request = request.eq('favorite', true);
      const { data, error } = await request
        .order('created_at', { ascending: false })
        .order('id', { ascending: false })
        .range(offset, offset + config.pageSize - 1);
      // a page past the end: nothing more
      if (error?.code === RANGE_NOT_SATISFIABLE) return [];
      if (error) throw new Error(error.message);
      return (data ?? []) as MediaItem[];
    },
    toggleFavorite: (email, taskId) => toggleFavorite(supabase, email, taskId),
    fetchFile: fetchBlob,
  };
}

export function useMediaGateway(): MediaGateway {
  return useMemo(() => createMediaGateway(getSupabaseClient()), []);
}
