// What the Images gallery asks of the outside world (spec §7 Data store: tasks and
// tasks_archive_1 by email, newest first; toggle_favorite), behind one interface so the page can
// be tested with a fake. Row-level security keeps every read to the caller's own tasks.
import { useMemo } from 'react';
import { PAGE_SIZES } from '@aim/shared-kit/domain';
import { getSupabaseClient, postgrestList } from '@aim/shared-kit/supabase';
import { fetchBlob, toggleFavorite } from '../shared/favorites.ts';
import { olderThan, type PageCursor } from '../shared/keyset.ts';
import { galleryTypes, type ImageFilter, type ImageTab, searchPattern } from './gallery-rules.ts';

export type GalleryImage = {
  id: string;
  type: string;
  prompt: string | null;
  image_url: string;
  favorite: boolean;
  created_at: string;
};

export type GalleryQuery = { tab: ImageTab; filter: ImageFilter; search: string; archive: boolean };

export type ImagesGateway = {
  /** One page (PAGE_SIZES.images) of the caller's pictures, newest first: the first, or the one after the row `after`. */
  page(email: string, query: GalleryQuery, after: PageCursor | null): Promise<GalleryImage[]>;
  /** toggle_favorite: answers the new state. */
  toggleFavorite(email: string, taskId: string): Promise<boolean>;
  fetchImage(url: string): Promise<Blob>;
};

export function createImagesGateway(supabase: ReturnType<typeof getSupabaseClient>): ImagesGateway {
  return {
    async page(email, query, after) {
      const { types, prefixes } = galleryTypes(query.tab, query.filter);
      let request = supabase
        .from(query.archive ? 'tasks_archive_1' : 'tasks')
        .select('id, type, prompt, image_url, favorite, created_at')
        .eq('email', email)
        .not('image_url', 'is', null)
        .or([`type.in.(${postgrestList(types)})`, ...prefixes.map((p) => `type.like.${p}*`)].join(','));
      if (query.filter === 'Favorites') request = request.eq('favorite', true);
      const pattern = searchPattern(query.search);
      if (pattern) request = request.ilike('prompt', pattern);
      // keyset: the rows after the last one shown, flat at any depth (an offset reads every row before)
      if (after) request = request.lte('created_at', after.created_at).or(olderThan(after));
      const { data, error } = await request.order('created_at', { ascending: false }).order('id', { ascending: false }).limit(PAGE_SIZES.images);
      if (error) throw new Error(error.message);
      return (data ?? []) as GalleryImage[];
    },
    toggleFavorite: (email, taskId) => toggleFavorite(supabase, email, taskId),
    fetchImage: fetchBlob,
  };
}

export function useImagesGateway(): ImagesGateway {
  return useMemo(() => createImagesGateway(getSupabaseClient()), []);
}
