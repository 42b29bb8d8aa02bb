// What a gallery card does: favourite at once (taken back if the server refuses) and download.
import { useState } from 'react';
import { saveBlob } from '@aim/shared-kit/download';
import { GALLERY_TEXTS } from './gallery-ui.tsx';

export function useGalleryActions<T extends { id: string; favorite: boolean }>(opts: {
  email: string | null;
  /** Changes the listed rows in place (the cached pages). */
  mapItems(change: (item: T) => T): void;
  toggle(email: string, taskId: string): Promise<boolean>;
  fetchFile(url: string): Promise<Blob>;
  notifyError(title: string): void;
  /** The toast when a download fails. */
  downloadFailed: string;
}) {
  const { email, mapItems, toggle, fetchFile, notifyError, downloadFailed } = opts;
  /** The key of the download under way (a task id, or a song's URL), for its button's spinner. */
  const [downloading, setDownloading] = useState<string | null>(null);

  async function toggleFavorite(item: T) {
    if (!email) return;
    const flip = (favorite: boolean) => mapItems((i) => (i.id === item.id ? { ...i, favorite } : i));
    flip(!item.favorite);
    try {
      flip(await toggle(email, item.id));
    } catch {
      flip(item.favorite);
      notifyError(GALLERY_TEXTS.favoriteFailed);
    }
  }

  async function download(key: string, url: string, fileName: string) {
    setDownloading(key);
    try {
      saveBlob(await fetchFile(url), fileName);
    } catch {
      notifyError(downloadFailed);
    } finally {
      setDownloading(null);
    }
  }

  return { toggleFavorite, download, downloading };
}
