import { useCallback, useRef, useState } from 'react';
import { type ActionKey, newActionKey } from '../tasks/create-call.ts';
import { uploadFailureDetail } from '../tasks/task-rules.ts';
import { base64Length, ERROR_PREPARING_TRAINING_DATA, ERROR_UPLOADING_IMAGES, type Ethnicity, type Gender, namePhotosIn } from './ai-photos-rules.ts';
import type { UploadPhotosInput } from './gateway.ts';
import { readAsBase64 } from './photo-files.ts';

/**
 * Where an upload is: the photos are prepared (scaled down when large) and read into base64 one
 * by one (the count is real progress), then the one JSON request is sent. fetch reports no
 * upload progress, so that phase says what is on its way (how many photos, how many bytes)
 * rather than inventing a percentage.
 */
export type UploadProgress = { phase: 'idle' } | { phase: 'reading'; done: number; total: number } | { phase: 'sending'; count: number; bytes: number };

type PhotoToSend = { file: File; size: { width: number; height: number } | null };

type Options = {
  uploadPhotos: (input: UploadPhotosInput, key: ActionKey) => Promise<string>;
  /** The bytes to send for a photo (the file, or a scaled-down copy). */
  preparePhoto: (file: File, size: PhotoToSend['size']) => Promise<Blob>;
  notifyError: (message: string) => void;
  /** The upload task exists: the screen follows it (its id goes into ?taskId=). */
  onUploaded: (taskId: string, names: string[]) => void;
};

/**
 * Step 1's submit: prepare and read the photos, POST /ai-photo-upload, hand the task id on. A
 * photo that cannot be read gives 'Error uploading images!'; a refused or failed request gives
 * 'Error uploading and preparing training data!' with the server's reason (photos named by
 * their files) kept for the form. `cancel` makes a late answer moot.
 */
export function useTrainingUpload(options: Options) {
  const [progress, setProgress] = useState<UploadProgress>({ phase: 'idle' });
  const [error, setError] = useState<string | null>(null);
  const run = useRef(0);
  const optionsRef = useRef(options);
  optionsRef.current = options;

  const start = useCallback(async (photos: readonly PhotoToSend[], subject: { gender: Gender; ethnicity: Ethnicity; age: number }) => {
    const mine = ++run.current;
    const current = () => mine === run.current;
    // One Upload click, one Idempotency-Key.
    const key = newActionKey();
    const names = photos.map((p) => p.file.name);
    setError(null);
    const images: string[] = [];
    let bytes = 0;
    setProgress({ phase: 'reading', done: 0, total: photos.length });
    for (const { file, size } of photos) {
      try {
        const blob = await optionsRef.current.preparePhoto(file, size);
        images.push(await readAsBase64(blob));
        bytes += base64Length(blob.size);
      } catch {
        if (!current()) return;
        optionsRef.current.notifyError(ERROR_UPLOADING_IMAGES);
        setError(`${file.name} could not be read. Remove it or choose it again.`);
        setProgress({ phase: 'idle' });
        return;
      }
      if (!current()) return;
      setProgress({ phase: 'reading', done: images.length, total: photos.length });
    }
    setProgress({ phase: 'sending', count: photos.length, bytes });
    try {
      const taskId = await optionsRef.current.uploadPhotos({ images, ...subject }, key);
      if (!current()) return;
      setProgress({ phase: 'idle' });
      optionsRef.current.onUploaded(taskId, names);
    } catch (err) {
      if (!current()) return;
      optionsRef.current.notifyError(ERROR_PREPARING_TRAINING_DATA);
      const detail = uploadFailureDetail(err);
      setError(detail && namePhotosIn(detail, names));
      setProgress({ phase: 'idle' });
    }
  }, []);

  const cancel = useCallback(() => {
    run.current++;
    setProgress({ phase: 'idle' });
    setError(null);
  }, []);

  return { progress, error, isBusy: progress.phase !== 'idle', start, cancel };
}
