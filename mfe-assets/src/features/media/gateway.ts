// What the Videos and Audios galleries ask of the outside world (spec §7 Data store: tasks and
// tasks_archive_1 by email, newest first; toggle_favorite), behind one interface so the page
// can be tested with a fake. Row-level security keeps every read to the caller's own tasks.
import { useMemo } from 'react';
import { getSupabaseClient } from '@aim/shared-kit/supabase';
import { fetchBlob, toggleFavorite } from '../shared/favorites.ts';
import { olderThan, type PageCursor } from '../shared/keyset.ts';
import { MEDIA, type MediaFilter, type MediaKind } from './media-rules.ts';

/** One video of a task as the worker recorded it (result.videos[i]). */
export type VideoEntry = { video_url: string; poster_url?: string; width?: number; height?: number; duration?: number };

/** One song of a task as the worker recorded it (result.songs[i]). */
export type SongEntry = { audio_url: string; image_url?: string; title?: string; lyrics?: string; tags?: string; duration?: number };

export type MediaItem = {
  id: string;
  type: string;
  prompt: string | null;
  image_url: string | null;
  video_url: string | null;
  /** A video task's clips with their posters (Midjourney video makes four); null for other tasks and old rows. */
  videos?: VideoEntry[] | null;
  audio_urls: string[] | null;
  /** An audio task's songs with their covers, titles and lyrics; null for other tasks and old rows. */
  songs?: SongEntry[] | null;
  lyrics: string | null;
  favorite: boolean;
  created_at: string;
};

export type MediaQuery = { tab: string; filter: MediaFilter; archive: boolean };

export type MediaGateway = {
  /** One page (the kind's page size), newest first: the first, or the one after the row `after`. */
  page(email: string, kind: MediaKind, query: MediaQuery, after: PageCursor | null): Promise<MediaItem[]>;
  toggleFavorite(email: string, taskId: string): Promise<boolean>;
  fetchFile(url: string): Promise<Blob>;
};

const COLUMNS = 'id, type, prompt, image_url, video_url, audio_urls, lyrics, favorite, created_at';
/** Videos also read their clips and posters from the task's result (a JSON path, as PostgREST selects it). */
const VIDEO_COLUMNS: string = `${COLUMNS}, videos:result->videos`;
/** Songs likewise: each with its cover, title, lyrics and length. */
const AUDIO_COLUMNS: string = `${COLUMNS}, songs:result->songs`;

export function createMediaGateway(supabase: ReturnType<typeof getSupabaseClient>): MediaGateway {
  return {
    async page(email, kind, query, after) {
      const config = MEDIA[kind];
      const types = (config.tabs.find((t) => t.label === query.tab) ?? config.tabs[0]).types;
      let request = supabase
        .from(query.archive && config.archive ? 'tasks_archive_1' : 'tasks')
        .select(kind === 'videos' ? VIDEO_COLUMNS : AUDIO_COLUMNS)
        .eq('email', email)
        .not(config.column, 'is', null)
        .in('type', [...types]);
      if (query.filter === 'Favorites') request = request.eq('favorite', true);
      // keyset: the rows after the last one shown, flat at any depth (an offset reads every row before)
      if (after) request = request.lte('created_at', after.created_at).or(olderThan(after));
      const { data, error } = await request.order('created_at', { ascending: false }).order('id', { ascending: false }).limit(config.pageSize);
      if (error) throw new Error(error.message);
      return (data ?? []) as unknown as MediaItem[];
    },
    toggleFavorite: (email, taskId) => toggleFavorite(supabase, email, taskId),
    fetchFile: fetchBlob,
  };
}

export function useMediaGateway(): MediaGateway {
  return useMemo(() => createMediaGateway(getSupabaseClient()), []);
}
