import { useCallback, useEffect, useRef, useState } from 'react';
import { uploadFailureDetail } from '../tasks/task-rules.ts';
import { checkImageFile, EMPTY_SLOT, ERROR_UPLOADING_IMAGES, IMAGE_ROLES, type ImageRole, type ImageSlot } from './faceswap-rules.ts';

type Slots = Record<ImageRole, ImageSlot>;
const EMPTY_SLOTS: Slots = { source: EMPTY_SLOT, target: EMPTY_SLOT };

type Options = {
  /** POST /upload: the URL the server stored the picture under. */
  upload: (file: File) => Promise<string>;
  notifyError: (message: string) => void;
};

/**
 * The Source Image and Target Image boxes. A chosen file is checked (type, 3 MB), previewed at
 * once from the file itself, and uploaded; the box holds the answered URL. A failed upload gives
 * 'Error uploading images!' and puts back what that box held before: the other box is untouched.
 * A newer choice (or `clear`) makes the answer of an older upload moot.
 */
export function useFaceImages({ upload, notifyError }: Options) {
  const [slots, setSlots] = useState<Slots>(EMPTY_SLOTS);
  // What each box holds now (the state, without waiting for a render), and what it held after its
  // last finished upload or restore: a failed upload returns to that.
  const shown = useRef<Slots>(EMPTY_SLOTS);
  const committed = useRef<Slots>(EMPTY_SLOTS);
  // Bumped by every choice and by clear: only the newest upload of a box may fill it.
  const tokens = useRef<Record<ImageRole, number>>({ source: 0, target: 0 });
  // Object URLs made here, revoked once no box shows them.
  const objectUrls = useRef(new Set<string>());
  const optionsRef = useRef({ upload, notifyError });
  optionsRef.current = { upload, notifyError };

  const setSlot = useCallback((role: ImageRole, slot: ImageSlot) => {
    shown.current = { ...shown.current, [role]: slot };
    setSlots(shown.current);
  }, []);
  const release = useCallback((url: string | null) => {
    if (url && objectUrls.current.delete(url)) URL.revokeObjectURL(url);
  }, []);

  useEffect(() => {
    const urls = objectUrls.current;
    return () => {
      for (const url of urls) URL.revokeObjectURL(url);
      urls.clear();
    };
  }, []);

  /** Starts the upload of `file` into a box; false (with the reason shown in the box) when the file is refused. */
  const choose = useCallback(
    (role: ImageRole, file: File): boolean => {
      const problem = checkImageFile(file, role);
      if (problem) {
        setSlot(role, { ...shown.current[role], error: problem });
        return false;
      }
      const token = ++tokens.current[role];
      const preview = URL.createObjectURL(file);
      objectUrls.current.add(preview);
      setSlot(role, { url: null, preview, uploading: true, error: null });
      void optionsRef.current.upload(file).then(
        (url) => {
          if (token !== tokens.current[role]) return release(preview);
          release(committed.current[role].preview);
          const done: ImageSlot = { url, preview, uploading: false, error: null };
          committed.current = { ...committed.current, [role]: done };
          setSlot(role, done);
        },
        (error: unknown) => {
          release(preview);
          if (token !== tokens.current[role]) return;
          optionsRef.current.notifyError(ERROR_UPLOADING_IMAGES);
          setSlot(role, { ...committed.current[role], error: uploadFailureDetail(error) });
        },
      );
      return true;
    },
    [release, setSlot],
  );

  /** Shows a restored task's pictures in the boxes the user has not filled. */
  const restore = useCallback(
    (urls: Record<ImageRole, string | null>) => {
      for (const role of IMAGE_ROLES) {
        const url = urls[role];
        if (!url || shown.current[role].url || shown.current[role].uploading) continue;
        const slot: ImageSlot = { url, preview: url, uploading: false, error: null };
        committed.current = { ...committed.current, [role]: slot };
        setSlot(role, slot);
      }
    },
    [setSlot],
  );

  /** Clear All Data: both boxes empty, uploads still running forgotten. */
  const clear = useCallback(() => {
    tokens.current = { source: tokens.current.source + 1, target: tokens.current.target + 1 };
    for (const url of objectUrls.current) URL.revokeObjectURL(url);
    objectUrls.current.clear();
    committed.current = EMPTY_SLOTS;
    shown.current = EMPTY_SLOTS;
    setSlots(EMPTY_SLOTS);
  }, []);

  return { slots, uploading: slots.source.uploading || slots.target.uploading, choose, restore, clear };
}
