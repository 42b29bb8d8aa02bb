// @vitest-environment jsdom
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { render } from '@aim/shared-kit/testing/render';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MediaGateway, MediaItem, MediaQuery } from '../src/features/media/gateway.ts';
import { MEDIA_TEXTS, MediaPage } from '../src/features/media/media-page.tsx';
import type { MediaKind } from '../src/features/media/media-rules.ts';
import type { PageCursor } from '../src/features/shared/keyset.ts';
import { pageAfter } from './support/page-after.ts';

const EMAIL = 'listener@example.com';

const item = (id: string, over: Partial<MediaItem>): MediaItem => ({
  id,
  type: 'luma',
  prompt: `prompt of ${id}`,
  image_url: null,
  video_url: null,
  audio_urls: null,
  lyrics: null,
  favorite: false,
  created_at: new Date().toISOString(),
  ...over,
});

function fakeGateway(items: MediaItem[], over: Partial<MediaGateway> = {}) {
  const calls: { kind: MediaKind; query: MediaQuery; after: PageCursor | null }[] = [];
  const gateway: MediaGateway = {
    page: vi.fn(async (_email: string, kind: MediaKind, query: MediaQuery, after: PageCursor | null) => {
      calls.push({ kind, query, after });
      return pageAfter(
        items.filter((i) => query.filter !== 'Favorites' || i.favorite),
        after,
        20,
      ).map((i) => ({ ...i }));
    }),
    toggleFavorite: vi.fn(async (_email: string, id: string) => {
      const found = items.find((i) => i.id === id)!;
      found.favorite = !found.favorite;
      return found.favorite;
    }),
    fetchFile: vi.fn(async () => new Blob(['x'])),
    ...over,
  };
  return { gateway, calls };
}

function renderPage(kind: MediaKind, gateway: MediaGateway) {
  const notifyError = vi.fn();
  render(<MediaPage kind={kind} gateway={gateway} email={EMAIL} notifyError={notifyError} nextPageDelayMs={10} />);
  return { notifyError, user: userEvent.setup() };
}

const cards = () => screen.queryAllByTestId('media-card');
let saved: string[] = [];

beforeEach(() => {
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

describe('Videos gallery', () => {
  it('plays each video with its poster, by tab, with favourites and the archive', async () => {
    const { gateway, calls } = fakeGateway([item('v1', { video_url: 'http://localhost:8080/media/v1.mp4', image_url: 'http://localhost:8080/media/v1.png' })]);
    const { user } = renderPage('videos', gateway);
    expect(screen.getByRole('heading', { level: 1, name: 'Videos' })).toBeTruthy();
    await waitFor(() => expect(cards()).toHaveLength(1));
    const video = cards()[0].querySelector('video')!;
    expect(video.getAttribute('src')).toBe('http://localhost:8080/media/v1.mp4');
    expect(video.getAttribute('poster')).toBe('http://localhost:8080/media/v1.png');
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['All', 'Luma AI', 'Kling', 'Runway']);

    await user.click(screen.getByRole('tab', { name: 'Kling' }));
    await waitFor(() => expect(calls.at(-1)?.query).toEqual({ tab: 'Kling', filter: 'Everything', archive: false }));
    await user.click(screen.getByText('Show Archive'));
    await waitFor(() => expect(calls.at(-1)?.query).toEqual({ tab: 'Kling', filter: 'Everything', archive: true }));

    await user.click(screen.getByRole('tab', { name: 'All' }));
    await user.click(screen.getByText('Show Archive'));
    await waitFor(() => expect(cards()).toHaveLength(1));
    await user.click(within(cards()[0]).getByRole('button', { name: 'Add to favorites' }));
    await waitFor(() => expect(within(cards()[0]).getByRole('button', { name: 'Remove from favorites' })).toBeTruthy());
    await user.click(within(cards()[0]).getByRole('button', { name: 'Download v1' }));
    await waitFor(() => expect(saved).toEqual(['v1.mp4']));
  });

  it("says 'No videos yet', and 'No videos match' under Favorites", async () => {
    const { user } = renderPage('videos', fakeGateway([]).gateway);
    expect(await screen.findByText('No videos yet')).toBeTruthy();
    await user.selectOptions(screen.getByTestId('media-filter'), 'Favorites');
    expect(await screen.findByText('No videos match')).toBeTruthy();
  });
});

describe('Audios gallery', () => {
  it('plays and downloads each song of a task, shows its lyrics, and has no archive switch', async () => {
    const song = item('s1', {
      type: 'suno',
      image_url: 'http://localhost:8080/media/cover.png',
      audio_urls: ['http://localhost:8080/media/s1-a.mp3', 'http://localhost:8080/media/s1-b.mp3'],
      lyrics: 'la la la',
    });
    const { gateway } = fakeGateway([song]);
    const { user, notifyError } = renderPage('audio', gateway);
    expect(screen.getByRole('heading', { level: 1, name: 'Audios' })).toBeTruthy();
    await waitFor(() => expect(cards()).toHaveLength(1));
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['All', 'Suno', 'Udio']);
    expect(screen.queryByText('Show Archive')).toBeNull();
    expect([...cards()[0].querySelectorAll('audio')].map((a) => a.getAttribute('src'))).toEqual(song.audio_urls);
    expect(within(cards()[0]).getByText('la la la')).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Download song 2 of s1' }));
    await waitFor(() => expect(saved).toEqual(['s1-2.mp3']));
    expect(gateway.fetchFile).toHaveBeenCalledWith('http://localhost:8080/media/s1-b.mp3');

    gateway.fetchFile = vi.fn(async () => Promise.reject(new Error('gone')));
    await user.click(screen.getByRole('button', { name: 'Download song 1 of s1' }));
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith(MEDIA_TEXTS.downloadFailed));
  });
});
