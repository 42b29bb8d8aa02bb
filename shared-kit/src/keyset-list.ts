// Keyset (cursor) infinite lists on the page's QueryClient (spec §9): the first page at once,
// each further page after the last row shown (never by offset) when the end of the list comes
// near, after a delay, until a short page says there is nothing more. A new view is a new query
// key: it starts from its first page, and late answers of the old view land in the old key.
import { type InfiniteData, type QueryKey, useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { type RefObject, useCallback, useEffect, useMemo, useRef, useState } from 'react';

/** Where a page ends: the last row's created_at exactly as the server sent it (microseconds; never through Date) and id. */
export type PageCursor = { created_at: string; id: string };

/** A row a keyset list pages over: newest first by (created_at desc, id desc). */
type KeysetRow = { created_at: string; id: string | number };
type CursorOf<T extends KeysetRow> = Pick<T, 'created_at' | 'id'>;

/** loading: the first page; more: a further page (after the delay); end: nothing more to load. */
export type KeysetPhase = 'loading' | 'idle' | 'more' | 'end' | 'error';

export type KeysetList<T> = {
  items: T[];
  phase: KeysetPhase;
  /** Changes rows in place (an optimistic favourite): every page of the cached list. */
  mapItems(change: (item: T) => T): void;
  /** The first page of the current view again. */
  reload(): void;
  /** The next page, if there is one and none is on its way (after a failed first page: the first page again). */
  loadMore(): void;
  /** Put on an element after the list: the next page loads when it comes within `rootMargin`. */
  sentinel: RefObject<HTMLDivElement | null>;
};

export function useKeysetList<T extends KeysetRow>(opts: {
  /** Everything the pages depend on (the view, the user): a new key is a new list. */
  queryKey: QueryKey;
  /** One page: the first (`after` null) or the one after the row `after`; null while it cannot be asked yet (no session). */
  fetchPage: ((after: CursorOf<T> | null, signal: AbortSignal) => Promise<T[]>) | null;
  pageSize: number;
  /** Delay before each further page. */
  delayMs: number;
  rootMargin?: string;
}): KeysetList<T> {
  const { queryKey, fetchPage, pageSize, delayMs, rootMargin = '600px' } = opts;
  const client = useQueryClient();
  const sentinel = useRef<HTMLDivElement>(null);
  const query = useInfiniteQuery({
    queryKey,
    queryFn: async ({ pageParam, signal }) => {
      if (pageParam) await new Promise((r) => setTimeout(r, delayMs));
      return fetchPage!(pageParam, signal);
    },
    initialPageParam: null as CursorOf<T> | null,
    // the exact created_at string the server sent and the id: nothing else of the row
    getNextPageParam: (last: T[]): CursorOf<T> | undefined =>
      last.length < pageSize ? undefined : ({ created_at: last.at(-1)!.created_at, id: last.at(-1)!.id } as CursorOf<T>),
    enabled: fetchPage !== null,
    // a view left is dropped: coming back to it starts from its first page, as it always did
    gcTime: 0,
  });
  const { data, status, isFetchingNextPage, isFetchNextPageError, hasNextPage, fetchNextPage, refetch } = query;

  const items = useMemo(() => {
    const shown = new Set<string | number>();
    return (data?.pages ?? []).flat().filter((row) => !shown.has(row.id) && shown.add(row.id));
  }, [data]);

  // 'more' from the moment a further page is asked (the query reports it a tick later)
  const [asking, setAsking] = useState(false);
  let phase: KeysetPhase;
  if (isFetchingNextPage || asking) phase = 'more';
  else if (status === 'pending') phase = 'loading';
  else if (status === 'error' || isFetchNextPageError) phase = 'error';
  else phase = hasNextPage ? 'idle' : 'end';

  const latestKey = useRef(queryKey);
  latestKey.current = queryKey;
  const mapItems = useCallback(
    (change: (item: T) => T) =>
      client.setQueryData<InfiniteData<T[], CursorOf<T> | null>>(
        latestKey.current,
        (old) => old && { ...old, pages: old.pages.map((page) => page.map(change)) },
      ),
    [client],
  );
  const reload = useCallback(() => void client.resetQueries({ queryKey: latestKey.current, exact: true }), [client]);
  const latest = useRef({ phase, hasData: !!data });
  latest.current = { phase, hasData: !!data };
  const loadMore = useCallback(() => {
    const { phase: now, hasData } = latest.current;
    if (now !== 'idle' && now !== 'error') return;
    setAsking(true);
    void (hasData ? fetchNextPage({ cancelRefetch: false }) : refetch()).finally(() => setAsking(false));
  }, [fetchNextPage, refetch]);

  // A new observer after each page reports at once if the end is still in view (a tall screen, a short page).
  useEffect(() => {
    const el = sentinel.current;
    if (!el || phase !== 'idle' || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && loadMore(), { rootMargin });
    observer.observe(el);
    return () => observer.disconnect();
  }, [loadMore, phase, items.length, rootMargin]);

  return { items, phase, mapItems, reload, loadMore, sentinel };
}
