// @vitest-environment jsdom
// The Videos gallery (spec §2, §9) with a fake gateway: tabs, Everything/Favorites, Show Archive,
// pages of 20, each card's player (poster, controls, the choice of clip when a task has several),
// favourites (at once, taken back on refusal) and downloads.
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import { render } from '@aim/shared-kit/testing/render';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MediaGateway, MediaItem, MediaQuery } from '../src/features/media/gateway.ts';
import { MEDIA_TEXTS, MediaPage } from '../src/features/media/media-page.tsx';
import { MEDIA, type MediaKind } from '../src/features/media/media-rules.ts';
import type { PageCursor } from '../src/features/shared/keyset.ts';
import { cursorOf, pageAfter } from './support/page-after.ts';

const EMAIL = 'viewer@example.com';
const PAGE = 20;
const media = (name: string) => `http://localhost:8080/media/${name}`;

const video = (i: number, over: Partial<MediaItem> = {}): MediaItem => ({
  id: `vid-${i}`,
  type: ['luma', 'kling-video', 'runway', 'luma-ext'][i % 4]!,
  prompt: i === 0 ? 'a lighthouse at dusk' : `clip ${i}`,
  image_url: null,
  video_url: media(`vid-${i}-video-1.mp4`),
  videos: [{ video_url: media(`vid-${i}-video-1.mp4`), poster_url: media(`vid-${i}-video-1-poster.jpg`), width: 640, height: 360, duration: 5 }],
  audio_urls: null,
  lyrics: null,
  favorite: i % 5 === 0,
  // as the server sends it, in microseconds: a cursor rounded through Date would name no row
  created_at: new Date(Date.now() - i * 60_000).toISOString().replace('Z', '456+00:00'),
  ...over,
});

/** Four clips, as Midjourney video makes them. */
const midjourney = (id: string): MediaItem =>
  video(0, {
    id,
    type: 'imagine-video',
    video_url: media(`${id}-video-1.mp4`),
    videos: [1, 2, 3, 4].map((n) => ({ video_url: media(`${id}-video-${n}.mp4`), poster_url: media(`${id}-video-${n}-poster.jpg`) })),
  });

function fakeGateway(live: MediaItem[], archived: MediaItem[] = [], over: Partial<MediaGateway> = {}) {
  const calls: { query: MediaQuery; after: PageCursor | null }[] = [];
  const gateway: MediaGateway = {
    page: vi.fn(async (_email: string, kind: MediaKind, query: MediaQuery, after: PageCursor | null) => {
      calls.push({ query, after });
      const types = MEDIA[kind].tabs.find((t) => t.label === query.tab)!.types;
      const matching = (query.archive ? archived : live).filter((v) => types.includes(v.type) && (query.filter !== 'Favorites' || v.favorite));
      return pageAfter(matching, after, PAGE).map((v) => ({ ...v }));
    }),
    toggleFavorite: vi.fn(async (_email: string, id: string) => {
      const found = [...live, ...archived].find((v) => v.id === id)!;
      found.favorite = !found.favorite;
      return found.favorite;
    }),
    fetchFile: vi.fn(async () => new Blob(['mp4'], { type: 'video/mp4' })),
    ...over,
  };
  return { gateway, calls };
}

let observers: { callback: IntersectionObserverCallback; target?: Element }[] = [];
/** Reports the grid's end in view to the page's IntersectionObserver. */
function scrollToEnd() {
  const live = observers.filter((o) => o.target);
  act(() => {
    for (const o of live) o.callback([{ isIntersecting: true, target: o.target! } as IntersectionObserverEntry], {} as IntersectionObserver);
  });
}

let saved: string[] = [];
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
  saved = [];
  URL.createObjectURL = vi.fn(() => 'blob:x');
  URL.revokeObjectURL = vi.fn();
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    saved.push(this.download);
  });
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function renderPage(gateway: MediaGateway) {
  const notifyError = vi.fn();
  render(<MediaPage kind="videos" gateway={gateway} email={EMAIL} notifyError={notifyError} nextPageDelayMs={20} />);
  return { notifyError, user: userEvent.setup() };
}

const cards = () => screen.queryAllByTestId('media-card');
const ids = () => cards().map((c) => c.dataset.taskId);
const card = (id: string) => cards().find((c) => c.dataset.taskId === id)!;
const player = (el: HTMLElement) => el.querySelector('video')!;

describe('Videos gallery', () => {
  it('plays each video inline: its poster frame, controls, metadata preloaded for the duration', async () => {
    const { gateway, calls } = fakeGateway([video(0), video(1)]);
    renderPage(gateway);
    expect(screen.getByRole('heading', { level: 1, name: 'Videos' })).toBeTruthy();
    await waitFor(() => expect(ids()).toEqual(['vid-0', 'vid-1']));
    const v = player(cards()[0]!);
    expect(v.getAttribute('src')).toBe(media('vid-0-video-1.mp4'));
    expect(v.getAttribute('poster')).toBe(media('vid-0-video-1-poster.jpg'));
    expect(v.hasAttribute('controls')).toBe(true);
    expect(v.getAttribute('preload')).toBe('metadata');
    expect(within(cards()[0]!).getByText('luma')).toBeTruthy();
    expect(within(cards()[0]!).getByText('a lighthouse at dusk')).toBeTruthy();
    // one clip: no choice of clips
    expect(within(cards()[0]!).queryByRole('group', { name: 'Clips' })).toBeNull();
    expect(calls).toEqual([{ query: { tab: 'All', filter: 'Everything', archive: false }, after: null }]);
  });

  it('falls back to the task’s video_url and image_url for rows without recorded clips', async () => {
    const { gateway } = fakeGateway([video(2, { videos: null, image_url: media('still.png') })]);
    renderPage(gateway);
    await waitFor(() => expect(cards()).toHaveLength(1));
    expect(player(cards()[0]!).getAttribute('src')).toBe(media('vid-2-video-1.mp4'));
    expect(player(cards()[0]!).getAttribute('poster')).toBe(media('still.png'));
  });

  it('shows the tabs All, Luma AI, Kling, Runway, each from its first page; Midjourney clips only under All', async () => {
    const { gateway, calls } = fakeGateway([video(0), video(1), video(2), video(3), midjourney('mj-1')]);
    const { user } = renderPage(gateway);
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['All', 'Luma AI', 'Kling', 'Runway']);
    await waitFor(() => expect(ids()).toEqual(['vid-0', 'vid-1', 'vid-2', 'vid-3', 'mj-1']));
    await user.click(screen.getByRole('tab', { name: 'Luma AI' }));
    await waitFor(() => expect(ids()).toEqual(['vid-0', 'vid-3']));
    await user.click(screen.getByRole('tab', { name: 'Kling' }));
    await waitFor(() => expect(ids()).toEqual(['vid-1']));
    await user.click(screen.getByRole('tab', { name: 'Runway' }));
    await waitFor(() => expect(ids()).toEqual(['vid-2']));
    expect(calls.map((c) => [c.query.tab, c.after])).toEqual([
      ['All', null],
      ['Luma AI', null],
      ['Kling', null],
      ['Runway', null],
    ]);
  });

  it('filters Everything or Favorites and shows the archive with its own tasks', async () => {
    const { gateway, calls } = fakeGateway([video(0), video(1), video(5)], [video(9, { id: 'old-1' })]);
    const { user } = renderPage(gateway);
    await waitFor(() => expect(ids()).toEqual(['vid-0', 'vid-1', 'vid-5']));
    await user.selectOptions(screen.getByTestId('media-filter'), 'Favorites');
    await waitFor(() => expect(ids()).toEqual(['vid-0', 'vid-5']));
    await user.selectOptions(screen.getByTestId('media-filter'), 'Everything');
    await user.click(screen.getByText('Show Archive'));
    await waitFor(() => expect(ids()).toEqual(['old-1']));
    expect(calls.at(-1)).toEqual({ query: { tab: 'All', filter: 'Everything', archive: true }, after: null });
    await user.click(screen.getByText('Show Archive'));
    await waitFor(() => expect(ids()).toEqual(['vid-0', 'vid-1', 'vid-5']));
  });

  it('shows pages of 20: the next one when the end of the grid comes into view, then stops', async () => {
    const all = Array.from({ length: 25 }, (_, i) => video(i));
    const { gateway, calls } = fakeGateway(all);
    renderPage(gateway);
    await waitFor(() => expect(cards()).toHaveLength(20));
    scrollToEnd();
    await waitFor(() => expect(cards()).toHaveLength(25));
    expect(calls.map((c) => c.after)).toEqual([null, cursorOf(all[19]!)]);
    expect(ids()).toEqual(all.map((v) => v.id));
    scrollToEnd();
    expect(calls).toHaveLength(2);
  });

  it('lets a task of four clips be played and downloaded clip by clip', async () => {
    const { gateway } = fakeGateway([midjourney('mj-1')]);
    const { user } = renderPage(gateway);
    await waitFor(() => expect(cards()).toHaveLength(1));
    const mj = card('mj-1');
    const choices = within(mj).getByRole('group', { name: 'Clips' });
    expect(
      within(choices)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['1', '2', '3', '4']);
    expect(within(choices).getByRole('button', { name: 'Play clip 1' }).getAttribute('aria-pressed')).toBe('true');

    await user.click(within(choices).getByRole('button', { name: 'Play clip 3' }));
    expect(player(card('mj-1')).getAttribute('src')).toBe(media('mj-1-video-3.mp4'));
    expect(player(card('mj-1')).getAttribute('poster')).toBe(media('mj-1-video-3-poster.jpg'));
    expect(within(choices).getByRole('button', { name: 'Play clip 3' }).getAttribute('aria-pressed')).toBe('true');

    await user.click(within(card('mj-1')).getByRole('button', { name: 'Download clip 3 of mj-1' }));
    await waitFor(() => expect(saved).toEqual(['mj-1-3.mp4']));
    expect(gateway.fetchFile).toHaveBeenCalledWith(media('mj-1-video-3.mp4'));
  });

  it('downloads a single video as <task id>.mp4, and says so when the download fails', async () => {
    const { gateway } = fakeGateway([video(1)]);
    const { user, notifyError } = renderPage(gateway);
    await waitFor(() => expect(cards()).toHaveLength(1));
    await user.click(within(cards()[0]!).getByRole('button', { name: 'Download vid-1' }));
    await waitFor(() => expect(saved).toEqual(['vid-1.mp4']));
    expect(gateway.fetchFile).toHaveBeenCalledWith(media('vid-1-video-1.mp4'));

    gateway.fetchFile = vi.fn(async () => Promise.reject(new Error('gone')));
    await user.click(within(cards()[0]!).getByRole('button', { name: 'Download vid-1' }));
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith(MEDIA_TEXTS.downloadFailed));
  });

  it('favourites at once, and takes it back when the server refuses', async () => {
    const { gateway } = fakeGateway([video(1)]);
    const { user, notifyError } = renderPage(gateway);
    await waitFor(() => expect(cards()).toHaveLength(1));
    await user.click(within(cards()[0]!).getByRole('button', { name: 'Add to favorites' }));
    await waitFor(() => expect(within(cards()[0]!).getByRole('button', { name: 'Remove from favorites' })).toBeTruthy());
    expect(gateway.toggleFavorite).toHaveBeenCalledWith(EMAIL, 'vid-1');

    gateway.toggleFavorite = vi.fn(async () => Promise.reject(new Error('denied')));
    await user.click(within(cards()[0]!).getByRole('button', { name: 'Remove from favorites' }));
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith(MEDIA_TEXTS.favoriteFailed));
    expect(within(cards()[0]!).getByRole('button', { name: 'Remove from favorites' })).toBeTruthy();
  });

  it("says 'No videos yet', and 'No videos match' once narrowed", async () => {
    const { user } = renderPage(fakeGateway([]).gateway);
    expect(await screen.findByText('No videos yet')).toBeTruthy();
    await user.click(screen.getByRole('tab', { name: 'Runway' }));
    expect(await screen.findByText('No videos match')).toBeTruthy();
  });
});
