// @vitest-environment jsdom
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import { render } from '@aim/shared-kit/testing/render';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GalleryImage, GalleryQuery, ImagesGateway } from '../src/features/images/gateway.ts';
import { ImagesPage } from '../src/features/images/images-page.tsx';
import { GALLERY_TEXTS as TEXTS } from '../src/features/shared/gallery-ui.tsx';
import type { PageCursor } from '../src/features/shared/keyset.ts';
import { cursorOf, pageAfter } from './support/page-after.ts';

const EMAIL = 'painter@example.com';
const PAGE = 25;

function images(n: number, archived = false): GalleryImage[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${archived ? 'old' : 'img'}-${i}`,
    type: i % 5 === 4 ? 'upscale#1' : 'imagine',
    prompt: i === 0 ? 'a lighthouse at dawn' : `picture ${i}`,
    image_url: `http://localhost:8080/media/${i}.png`,
    favorite: i === 1,
    // as the server sends it, in microseconds: a cursor rounded through Date would name no row
    created_at: new Date(Date.now() - i * 60_000).toISOString().replace('Z', '456+00:00'),
  }));
}

/** Pages, filters and favourites over in-memory pictures, like the real gateway. */
function fakeGateway(all: GalleryImage[], archived: GalleryImage[] = [], over: Partial<ImagesGateway> = {}) {
  const calls: { query: GalleryQuery; after: PageCursor | null }[] = [];
  const gateway: ImagesGateway = {
    page: vi.fn(async (_email: string, query: GalleryQuery, after: PageCursor | null) => {
      calls.push({ query, after });
      const source = query.archive ? archived : all;
      const matching = source.filter(
        (i) =>
          (query.filter !== 'Favorites' || i.favorite) &&
          (query.filter !== 'Upscales' || i.type.startsWith('upscale')) &&
          (!query.search || (i.prompt ?? '').includes(query.search.trim())),
      );
      return pageAfter(matching, after, PAGE).map((i) => ({ ...i }));
    }),
    toggleFavorite: vi.fn(async (_email: string, id: string) => {
      const image = [...all, ...archived].find((i) => i.id === id)!;
      image.favorite = !image.favorite;
      return image.favorite;
    }),
    fetchImage: vi.fn(async () => new Blob(['png'], { type: 'image/png' })),
    ...over,
  };
  return { gateway, calls };
}

/** A controllable IntersectionObserver: `scrollToEnd()` reports the grid's end in view. */
let observers: { callback: IntersectionObserverCallback; target?: Element }[] = [];
function scrollToEnd() {
  const live = observers.filter((o) => o.target);
  act(() => {
    for (const o of live) o.callback([{ isIntersecting: true, target: o.target! } as IntersectionObserverEntry], {} as IntersectionObserver);
  });
}

beforeEach(() => {
  observers = [];
  window.IntersectionObserver = class {
    entry: { callback: IntersectionObserverCallback; target?: Element };
    constructor(callback: IntersectionObserverCallback) {
      this.entry = { callback };
      observers.push(this.entry);
    }
    observe(target: Element) {
      this.entry.target = target;
    }
    disconnect() {
      this.entry.target = undefined;
    }
    unobserve() {}
    takeRecords() {
      return [];
    }
  } as unknown as typeof IntersectionObserver;
  URL.createObjectURL = vi.fn(() => 'blob:x');
  URL.revokeObjectURL = vi.fn();
});
afterEach(cleanup);

function renderPage(gateway: ImagesGateway) {
  const notifyError = vi.fn();
  render(<ImagesPage gateway={gateway} email={EMAIL} notifyError={notifyError} nextPageDelayMs={30} />, { route: '/dashboard/assets/images' });
  return { notifyError, user: userEvent.setup() };
}

const cards = () => screen.queryAllByTestId('image-card');

describe('Images gallery', () => {
  it('shows up to 10 skeletons, then the first 25 pictures newest first with type, time and prompt', async () => {
    const { gateway, calls } = fakeGateway(images(30));
    renderPage(gateway);
    expect(screen.getAllByTestId('gallery-skeleton')).toHaveLength(10);
    await waitFor(() => expect(cards()).toHaveLength(25));
    expect(screen.queryAllByTestId('gallery-skeleton')).toHaveLength(0);
    const first = cards()[0];
    expect(within(first).getByText('a lighthouse at dawn')).toBeTruthy();
    expect(within(first).getByText('imagine')).toBeTruthy();
    expect(within(first).getByText('just now')).toBeTruthy();
    expect(within(first).getByRole('img').getAttribute('src')).toBe('http://localhost:8080/media/0.png');
    expect(within(first).getByRole('link', { name: 'Open' }).getAttribute('href')).toBe('/dashboard/tools/midjourney?taskId=img-0');
    expect(calls).toEqual([{ query: { tab: 'All', filter: 'Everything', search: '', archive: false }, after: null }]);
  });

  it('Open reopens a Faceswap picture in the Faceswap screen, AI photos in the AI Photos screen; a type no tool reopens has no Open', async () => {
    const [swap, flux, aiPhoto] = images(3);
    const { gateway } = fakeGateway([
      { ...swap!, id: 'swap-1', type: 'faceswap', prompt: null },
      { ...flux!, id: 'flux-1', type: 'flux-imagine' },
      { ...aiPhoto!, id: 'gen-1', type: 'ai-photo-generate', prompt: 'a vintage studio photo' },
    ]);
    renderPage(gateway);
    await waitFor(() => expect(cards()).toHaveLength(3));
    expect(within(cards()[0]!).getByRole('link', { name: 'Open' }).getAttribute('href')).toBe('/dashboard/tools/faceswap?taskId=swap-1');
    expect(within(cards()[1]!).queryByRole('link', { name: 'Open' })).toBeNull();
    expect(within(cards()[2]!).getByRole('link', { name: 'Open' }).getAttribute('href')).toBe('/dashboard/tools/ai-photos?taskId=gen-1');
  });

  it('loads the next page when the end of the grid comes into view, after the delay, then stops at the end', async () => {
    const all = images(30);
    const { gateway, calls } = fakeGateway(all);
    renderPage(gateway);
    await waitFor(() => expect(cards()).toHaveLength(25));
    scrollToEnd();
    expect(screen.getAllByTestId('gallery-skeleton')).toHaveLength(10);
    await waitFor(() => expect(cards()).toHaveLength(30));
    // the next page is asked after the last picture shown: its exact created_at and id
    expect(calls.map((c) => c.after)).toEqual([null, cursorOf(all[24]!)]);
    expect(cards().map((c) => c.dataset.taskId)).toEqual(all.map((i) => i.id));
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
    scrollToEnd();
    expect(calls).toHaveLength(2);
  });

  it('Load more does the same by keyboard or click', async () => {
    const { gateway } = fakeGateway(images(26));
    const { user } = renderPage(gateway);
    await waitFor(() => expect(cards()).toHaveLength(25));
    await user.click(screen.getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(cards()).toHaveLength(26));
  });

  it('filters, searches prompts and shows the archive, each from the first page', async () => {
    const { gateway, calls } = fakeGateway(images(12), images(3, true));
    const { user } = renderPage(gateway);
    await waitFor(() => expect(cards()).toHaveLength(12));

    await user.selectOptions(screen.getByTestId('image-filter'), 'Upscales');
    await waitFor(() => expect(cards().map((c) => c.dataset.taskId)).toEqual(['img-4', 'img-9']));

    await user.selectOptions(screen.getByTestId('image-filter'), 'Everything');
    await user.type(screen.getByTestId('image-search'), 'lighthouse');
    await waitFor(() => expect(cards().map((c) => c.dataset.taskId)).toEqual(['img-0']));

    await user.clear(screen.getByTestId('image-search'));
    await user.click(screen.getByText('Show Archive'));
    await waitFor(() => expect(cards().map((c) => c.dataset.taskId)).toEqual(['old-0', 'old-1', 'old-2']));
    expect(calls.at(-1)).toEqual({ query: { tab: 'All', filter: 'Everything', search: '', archive: true }, after: null });

    await user.click(screen.getByRole('tab', { name: 'Flux' }));
    await waitFor(() => expect(calls.at(-1)?.query.tab).toBe('Flux'));
  });

  it('says when nothing matches, and when there is nothing yet', async () => {
    const { gateway } = fakeGateway([]);
    const { user } = renderPage(gateway);
    expect(await screen.findByText('No pictures yet')).toBeTruthy();
    await user.selectOptions(screen.getByTestId('image-filter'), 'Favorites');
    expect(await screen.findByText('No pictures match')).toBeTruthy();
  });

  it('favourites and unfavourites a picture at once, and takes it back when the server refuses', async () => {
    const all = images(3);
    const { gateway } = fakeGateway(all);
    const { user, notifyError } = renderPage(gateway);
    await waitFor(() => expect(cards()).toHaveLength(3));
    const heart = () => within(cards()[0]).getByRole('button', { name: /favorites/ });
    expect(heart().getAttribute('aria-label')).toBe('Add to favorites');
    await user.click(heart());
    await waitFor(() => expect(heart().getAttribute('aria-label')).toBe('Remove from favorites'));
    expect(heart().getAttribute('aria-pressed')).toBe('true');
    expect(gateway.toggleFavorite).toHaveBeenCalledWith(EMAIL, 'img-0');

    gateway.toggleFavorite = vi.fn(async () => Promise.reject(new Error('offline')));
    await user.click(heart());
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith(TEXTS.favoriteFailed));
    expect(heart().getAttribute('aria-label')).toBe('Remove from favorites');
  });

  it("downloads a picture as <task id>.png, and says 'Error downloading image' when it cannot", async () => {
    const { gateway } = fakeGateway(images(2));
    const { user, notifyError } = renderPage(gateway);
    await waitFor(() => expect(cards()).toHaveLength(2));
    const clicked: string[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.download);
    });
    await user.click(screen.getByRole('button', { name: 'Download img-1' }));
    await waitFor(() => expect(clicked).toEqual(['img-1.png']));
    expect(gateway.fetchImage).toHaveBeenCalledWith('http://localhost:8080/media/1.png');

    gateway.fetchImage = vi.fn(async () => Promise.reject(new Error('404')));
    await user.click(screen.getByRole('button', { name: 'Download img-0' }));
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith('Error downloading image'));
    click.mockRestore();
  });

  it('offers Retry when the pictures could not be loaded', async () => {
    let fail = true;
    const { gateway } = fakeGateway(images(2));
    const inner = gateway.page;
    gateway.page = vi.fn((email: string, query: GalleryQuery, after: PageCursor | null) =>
      fail ? Promise.reject(new Error('offline')) : inner(email, query, after),
    );
    const { user } = renderPage(gateway);
    const error = await screen.findByTestId('gallery-error');
    fail = false;
    await user.click(within(error).getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(cards()).toHaveLength(2));
  });
});
