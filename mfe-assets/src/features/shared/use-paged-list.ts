// The galleries' paging (spec §9): the first page at once, each further page when the end of the
// list comes near, after a delay, until a short page says there is nothing more. A further page is
// asked after the last row shown (a keyset cursor, see keyset.ts), not by offset. A new view
// (tab, filter, search, archive) starts again from the first page and drops late answers of the
// old one.
import { type Dispatch, type RefObject, type SetStateAction, useCallback, useEffect, useRef, useState } from 'react';
import type { PageCursor } from './keyset.ts';

/** loading: the first page; more: a further page (after the delay); end: nothing more to load. */
type PagePhase = 'loading' | 'idle' | 'more' | 'end' | 'error';

export type PagedList<T> = {
  items: T[];
  setItems: Dispatch<SetStateAction<T[]>>;
  phase: PagePhase;
  /** The first page of the current view again. */
  reload(): void;
  /** The next page, if there is one and none is on its way. */
  loadMore(): void;
  /** Put on an element after the list: the next page loads when it comes within `rootMargin`. */
  sentinel: RefObject<HTMLDivElement | null>;
};

export function usePagedList<T extends PageCursor>(opts: {
  /** One page: the first (`after` null) or the one after the row `after`; null while it cannot be asked yet (no session). */
  fetchPage: ((after: PageCursor | null) => Promise<T[]>) | null;
  pageSize: number;
  /** Changes whenever the view does. */
  viewKey: string;
  delayMs: number;
  rootMargin?: string;
}): PagedList<T> {
  const { fetchPage, pageSize, viewKey, delayMs, rootMargin = '600px' } = opts;
  const [items, setItems] = useState<T[]>([]);
  const [phase, setPhase] = useState<PagePhase>('loading');
  const sentinel = useRef<HTMLDivElement>(null);
  const view = useRef(0);
  const latest = useRef<{ phase: PagePhase; last: T | undefined; fetchPage: typeof fetchPage }>({ phase, last: undefined, fetchPage });
  latest.current = { phase, last: items.at(-1), fetchPage };

  const load = useCallback(
    async (after: PageCursor | null, current: number) => {
      const fetch = latest.current.fetchPage;
      if (!fetch) return;
      if (after) await new Promise((r) => setTimeout(r, delayMs));
      try {
        // the exact created_at string the server sent (microseconds) and the id: nothing else of the row
        const rows = await fetch(after && { created_at: after.created_at, id: after.id });
        if (current !== view.current) return;
        setItems((prev) => {
          if (!after) return rows;
          const shown = new Set(prev.map((p) => p.id));
          return [...prev, ...rows.filter((r) => !shown.has(r.id))];
        });
        setPhase(rows.length < pageSize ? 'end' : 'idle');
      } catch {
        if (current === view.current) setPhase('error');
      }
    },
    [delayMs, pageSize],
  );

  const reload = useCallback(() => {
    const current = ++view.current;
    setItems([]);
    setPhase('loading');
    void load(null, current);
  }, [load]);

  const loadMore = useCallback(() => {
    const { phase: now, last } = latest.current;
    if (now !== 'idle' && now !== 'error') return;
    setPhase('more');
    // after the last row shown; with none (an empty first page that failed) from the first page again
    void load(last ?? null, view.current);
  }, [load]);

  const ready = fetchPage !== null;
  // `viewKey` stands for the whole view: one first page per distinct view (and once a session exists)
  useEffect(reload, [reload, viewKey, ready]);

  // A new observer after each page reports at once if the end is still in view (a tall screen, a short page).
  useEffect(() => {
    const el = sentinel.current;
    if (!el || phase !== 'idle' || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && loadMore(), { rootMargin });
    observer.observe(el);
    return () => observer.disconnect();
  }, [loadMore, phase, items.length, rootMargin]);

  return { items, setItems, phase, reload, loadMore, sentinel };
}
