// @vitest-environment jsdom
// The Audios gallery (spec §2, §9): a player per song with its cover, title, length and lyrics,
// Download per song, favourites, the Suno and Udio tabs, pages of 20, no archive switch.
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { render } from '@aim/shared-kit/testing/render';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatDuration, songsOf } from '../src/features/media/audio-songs.tsx';
import type { MediaGateway, MediaItem, MediaQuery } from '../src/features/media/gateway.ts';
import { MediaPage } from '../src/features/media/media-page.tsx';
import type { PageCursor } from '../src/features/shared/keyset.ts';
import { cursorOf, pageAfter } from './support/page-after.ts';

const EMAIL = 'listener@example.com';

const song = (id: string, n: number) => ({
  audio_url: `http://localhost:8080/media/${id}-song-${n}.mp3`,
  image_url: `http://localhost:8080/media/${id}-song-${n}-cover.jpg`,
  title: `Sea Song ${n}`,
  lyrics: `[Verse]\nwaves number ${n}`,
  tags: 'folk',
  duration: 34.6 + n,
});

const task = (id: string, over: Partial<MediaItem> = {}): MediaItem => ({
  id,
  type: 'suno',
  prompt: `prompt of ${id}`,
  image_url: null,
  video_url: null,
  audio_urls: [song(id, 1).audio_url, song(id, 2).audio_url],
  songs: [song(id, 1), song(id, 2)],
  lyrics: song(id, 1).lyrics,
  favorite: false,
  created_at: new Date().toISOString(),
  ...over,
});

function fakeGateway(pages: MediaItem[][]) {
  const calls: { query: MediaQuery; after: PageCursor | null }[] = [];
  const all = pages.flat();
  const gateway: MediaGateway = {
    page: vi.fn(async (_email: string, _kind, query: MediaQuery, after: PageCursor | null) => {
      calls.push({ query, after });
      return pageAfter(query.filter === 'Favorites' ? all.filter((i) => i.favorite) : all, after, 20).map((i) => ({ ...i }));
    }),
    toggleFavorite: vi.fn(async (_email: string, id: string) => {
      const found = all.find((i) => i.id === id)!;
      found.favorite = !found.favorite;
      return found.favorite;
    }),
    fetchFile: vi.fn(async () => new Blob(['mp3'])),
  };
  return { gateway, calls };
}

function renderPage(gateway: MediaGateway) {
  const notifyError = vi.fn();
  render(<MediaPage kind="audio" gateway={gateway} email={EMAIL} notifyError={notifyError} nextPageDelayMs={10} />);
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

describe('Audios gallery', () => {
  it('shows a player per song with its cover, title, length, tags and own lyrics, and downloads each song', async () => {
    const { gateway } = fakeGateway([[task('s1')]]);
    const { user } = renderPage(gateway);
    await waitFor(() => expect(cards()).toHaveLength(1));
    const songs = within(cards()[0]).getAllByTestId('song');
    expect(songs).toHaveLength(2);
    songs.forEach((el, i) => {
      const n = i + 1;
      expect(el.querySelector('audio')?.getAttribute('src')).toBe(song('s1', n).audio_url);
      expect(
        within(el)
          .getByRole('img', { name: `Cover of Sea Song ${n}` })
          .getAttribute('src'),
      ).toBe(song('s1', n).image_url);
      expect(within(el).getByText(`Sea Song ${n}`)).toBeTruthy();
      expect(within(el).getByText(`${formatDuration(34.6 + n)} · folk`)).toBeTruthy();
      expect(within(el).getByText(`waves number ${n}`, { exact: false })).toBeTruthy();
    });
    await user.click(screen.getByRole('button', { name: 'Download song 2 of s1' }));
    await waitFor(() => expect(saved).toEqual(['s1-2.mp3']));
    expect(gateway.fetchFile).toHaveBeenCalledWith(song('s1', 2).audio_url);
  });

  it('has the Suno and Udio tabs and Everything/Favorites, no Show Archive, and keeps a favourite', async () => {
    const { gateway, calls } = fakeGateway([[task('s1'), task('u1', { type: 'udio' })]]);
    const { user } = renderPage(gateway);
    await waitFor(() => expect(cards()).toHaveLength(2));
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['All', 'Suno', 'Udio']);
    expect(screen.queryByText('Show Archive')).toBeNull();
    await user.click(screen.getByRole('tab', { name: 'Udio' }));
    await waitFor(() => expect(calls.at(-1)?.query).toEqual({ tab: 'Udio', filter: 'Everything', archive: false }));
    await user.click(screen.getByRole('tab', { name: 'All' }));
    await waitFor(() => expect(cards()).toHaveLength(2));
    await user.click(within(cards()[1]).getByRole('button', { name: 'Add to favorites' }));
    await waitFor(() => expect(gateway.toggleFavorite).toHaveBeenCalledWith(EMAIL, 'u1'));
    await user.selectOptions(screen.getByTestId('media-filter'), 'Favorites');
    await waitFor(() => expect(cards().map((c) => c.getAttribute('data-task-id'))).toEqual(['u1']));
  });

  it('loads songs 20 at a time', async () => {
    const first = Array.from({ length: 20 }, (_, i) => task(`a${i}`));
    const { gateway, calls } = fakeGateway([first, [task('b0'), task('b1')]]);
    const { user } = renderPage(gateway);
    await waitFor(() => expect(cards()).toHaveLength(20));
    await user.click(screen.getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(cards()).toHaveLength(22));
    // after the last song task shown, even when all share one created_at (the id tells them apart)
    expect(calls.map((c) => c.after)).toEqual([null, cursorOf(first[19]!)]);
    expect(cards().map((c) => c.getAttribute('data-task-id'))).toEqual([...first.map((t) => t.id), 'b0', 'b1']);
  });

  it("plays rows without recorded songs from audio_urls, the task's lyrics once", () => {
    const row = task('old', { songs: null, lyrics: 'la la' });
    expect(songsOf(row)).toEqual([
      { audio_url: row.audio_urls![0], lyrics: 'la la' },
      { audio_url: row.audio_urls![1], lyrics: undefined },
    ]);
    expect(formatDuration(94.5)).toBe('1:34');
  });

  it("says 'No songs yet'", async () => {
    renderPage(fakeGateway([[]]).gateway);
    expect(await screen.findByText('No songs yet')).toBeTruthy();
  });
});
