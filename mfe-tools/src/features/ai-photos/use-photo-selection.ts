import { useCallback, useEffect, useRef, useState } from 'react';
import { isLowResolution, lowResolutionWarning, MAX_PHOTOS_MESSAGE, planAdditions, unreadablePhotoWarning } from './ai-photos-rules.ts';

export type SelectedPhoto = {
  id: string;
  file: File;
  /** An object URL of the file, for the thumbnail. */
  preview: string;
  /** The picture's natural size once its thumbnail has decoded it. */
  size: { width: number; height: number } | null;
  /** The browser could not decode it (the upload check would refuse it too). */
  isUnreadable: boolean;
};

/** The messages under the picker after the last choice: the maximum reached, refused files. */
export type SelectionNotice = { isFull: boolean; refused: string[] };
const NO_NOTICE: SelectionNotice = { isFull: false, refused: [] };

let nextPhotoId = 0;

/**
 * The Prepare step's photos: chosen (or dropped) files of the accepted types, at most 30, each
 * previewed from an object URL; a thumbnail reports the natural size it decoded, which gives the
 * per-file low-resolution warning. Removing a photo (or `clear`) frees its object URL.
 */
export function usePhotoSelection() {
  const [photos, setPhotos] = useState<SelectedPhoto[]>([]);
  const [notice, setNotice] = useState<SelectionNotice>(NO_NOTICE);
  // The selection without waiting for a render: two choices in a row each see the other.
  const current = useRef<SelectedPhoto[]>([]);
  const update = useCallback((next: SelectedPhoto[]) => {
    current.current = next;
    setPhotos(next);
  }, []);

  useEffect(
    () => () => {
      for (const photo of current.current) URL.revokeObjectURL(photo.preview);
    },
    [],
  );

  const add = useCallback(
    (files: readonly File[]) => {
      const { accepted, refused, isFull } = planAdditions(
        current.current.map((p) => p.file),
        files,
      );
      const added = accepted.map((file) => ({ id: `photo-${++nextPhotoId}`, file, preview: URL.createObjectURL(file), size: null, isUnreadable: false }));
      if (added.length) update([...current.current, ...added]);
      setNotice({ isFull, refused });
    },
    [update],
  );

  const remove = useCallback(
    (id: string) => {
      const photo = current.current.find((p) => p.id === id);
      if (!photo) return;
      URL.revokeObjectURL(photo.preview);
      update(current.current.filter((p) => p.id !== id));
      // There is room again.
      setNotice(NO_NOTICE);
    },
    [update],
  );

  /** A thumbnail decoded its picture (`naturalWidth` × `naturalHeight`), or could not. */
  const measured = useCallback(
    (id: string, size: { width: number; height: number } | null) =>
      update(current.current.map((p) => (p.id === id ? { ...p, size, isUnreadable: size === null } : p))),
    [update],
  );

  const clear = useCallback(() => {
    for (const photo of current.current) URL.revokeObjectURL(photo.preview);
    update([]);
    setNotice(NO_NOTICE);
  }, [update]);

  const warnings = photos.flatMap((p) => {
    if (p.isUnreadable) return [unreadablePhotoWarning(p.file.name)];
    return p.size && isLowResolution(p.size) ? [lowResolutionWarning(p.file.name)] : [];
  });
  return { photos, notice, maxMessage: notice.isFull ? MAX_PHOTOS_MESSAGE : null, warnings, add, remove, measured, clear };
}
