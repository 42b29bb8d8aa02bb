/**
 * @module What engine jobs are built from, read before any engine runs: a parent task and
 * its picture, pictures and videos users name by URL (through the guarded fetcher), our own stored
 * media, the tasks an AI photo task was made from, and a trained identity. Each failure is
 * an EngineError a user can act on, or a TransientError worth another attempt.
 */
import { EngineError, type ImageInput, type ParentRef, type PhotoSubject, type TrainedIdentity } from '../../engines/engine.ts';
import type { AudioInput } from '../../engines/jobs/audio.ts';
import type { VideoInput } from '../../engines/jobs/video.ts';
import type { TaskRow, taskRepository } from '../../repositories/task-repository.ts';
import { subjectOf } from '../../services/tasks/ai-photo-rules.ts';
import { type ImageFetcher, ImageReadError } from '../../storage/image-fetcher.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { RESULT_KEYS } from '../store-result.ts';
import { errorText, TransientError } from '../worker-errors.ts';

/** Finished successfully (`success` is how older rows say `finished`). */
const succeeded = (status: string) => status === 'finished' || status === 'success';

export interface JobInputs {
  /** The task an action derives from; `withImage` also reads its primary picture from the store. */
  parentRef(task: TaskRow, withImage: boolean): Promise<ParentRef>;
  /** A picture a user named by URL (`which` names it in the failure message: 'source', 'target', 'mask' …). */
  inputImage(which: string, url: unknown, signal: AbortSignal): Promise<ImageInput>;
  /** A video a user named by URL (runway's video2video input), read like inputImage. */
  inputVideo(which: string, url: unknown, signal: AbortSignal): Promise<VideoInput>;
  /** An audio file by URL (suno-upload's audio_url, the song a suno-extend continues), read like inputImage; `which` starts the failure message ('The uploaded audio could not be read: …'). */
  inputAudio(which: string, url: unknown, signal: AbortSignal): Promise<AudioInput>;
  /** A file of ours, read back from the media store; `missing` is the message when it is gone. */
  storedImage(url: string, missing: string): Promise<ImageInput>;
  /** A task by id (live or archived), or a failure with `missing`. */
  sourceTask(id: unknown, missing: string): Promise<TaskRow>;
  /** Who an AI photo upload shows. */
  subjectOrFail(upload: TaskRow): PhotoSubject;
  /** The identity a train task recorded, for generating on `queue` (only its own engine can). */
  trainedIdentity(training: TaskRow, queue: string): Promise<TrainedIdentity>;
}

export function createJobInputs(deps: { tasks: ReturnType<typeof taskRepository>; media: MediaStore; images: ImageFetcher }): JobInputs {
  const { tasks, media, images } = deps;

  async function storedImage(url: string, missing: string): Promise<ImageInput> {
    const key = media.keyOf(url);
    let stored: Awaited<ReturnType<MediaStore['get']>>;
    try {
      stored = key ? await media.get(key) : undefined;
    } catch (error) {
      throw new TransientError(`media read failed: ${errorText(error)}`);
    }
    if (!stored) throw new EngineError('invalid_input', missing, { detail: `not in the media store: ${url}` });
    return { url, data: stored.data, contentType: stored.contentType };
  }

  async function sourceTask(id: unknown, missing: string): Promise<TaskRow> {
    const found = typeof id === 'string' ? await tasks.findById(id) : undefined;
    if (!found) throw new EngineError('invalid_input', missing);
    return found;
  }

  function subjectOrFail(upload: TaskRow): PhotoSubject {
    const subject = subjectOf(upload);
    if (!subject) throw new EngineError('invalid_input', 'The upload does not say who the photos show.', { detail: `upload ${upload.id}` });
    return subject;
  }

  return {
    async parentRef(task, withImage) {
      const parent = task.parent_id ? await tasks.findById(task.parent_id) : undefined;
      if (!parent) throw new EngineError('invalid_input', 'The parent task no longer exists.');
      const result = parent.result ?? {};
      const ref: ParentRef = {
        prompt: parent.prompt ?? undefined,
        layout: result.layout === 'single' ? 'single' : 'grid',
        upstreamId: typeof result.upstream_id === 'string' ? result.upstream_id : undefined,
        seed: parent.seed !== null && /^\d+$/.test(parent.seed) ? Number(parent.seed) : undefined,
      };
      if (withImage) {
        const key = parent.image_url ? media.keyOf(parent.image_url) : undefined;
        const stored = key ? await media.get(key) : undefined;
        if (!stored) throw new EngineError('invalid_input', 'The parent task has no image to work from.');
        ref.image = stored.data;
      }
      return ref;
    },

    async inputVideo(which, url, signal) {
      const failure = (reason: string, options: { retryable?: boolean; cause?: unknown } = {}) =>
        new EngineError(options.retryable ? 'upstream_unavailable' : 'invalid_input', `The ${which} video could not be read: ${reason}`, options);
      if (typeof url !== 'string' || !url) throw failure('the task has no URL for it');
      try {
        return await images.readVideo(url, signal);
      } catch (error) {
        if (error instanceof ImageReadError) throw failure(error.message, { retryable: error.retryable, cause: error });
        throw error;
      }
    },

    async inputAudio(which, url, signal) {
      const failure = (reason: string, options: { retryable?: boolean; cause?: unknown } = {}) =>
        new EngineError(options.retryable ? 'upstream_unavailable' : 'invalid_input', `The ${which} could not be read: ${reason}`, options);
      if (typeof url !== 'string' || !url) throw failure('the task has no URL for it');
      try {
        return await images.readAudio(url, signal);
      } catch (error) {
        if (error instanceof ImageReadError) throw failure(error.message, { retryable: error.retryable, cause: error });
        throw error;
      }
    },

    async inputImage(which, url, signal) {
      // a picture that will not become readable fails the task at once; a network failure is worth another attempt
      const failure = (reason: string, options: { retryable?: boolean; cause?: unknown } = {}) =>
        new EngineError(options.retryable ? 'upstream_unavailable' : 'invalid_input', `The ${which} image could not be read: ${reason}`, options);
      if (typeof url !== 'string' || !url) throw failure('the task has no URL for it');
      try {
        const image = await images.read(url, signal);
        return { url: image.url, data: image.data, contentType: image.contentType };
      } catch (error) {
        if (error instanceof ImageReadError) throw failure(error.message, { retryable: error.retryable, cause: error });
        throw error;
      }
    },

    storedImage,
    sourceTask,
    subjectOrFail,

    async trainedIdentity(training, queue) {
      if (!succeeded(training.status)) throw new EngineError('invalid_input', 'The training has not finished successfully.');
      const result = training.result ?? {};
      const engine = typeof result.engine === 'string' ? result.engine : '';
      if (engine !== queue) {
        throw new EngineError(
          'unsupported',
          `This model was trained by another engine (${engine || 'unknown'}) than the one generating photos here (${queue}); train it again.`,
        );
      }
      const triggerWord = training.input_data?.trigger_word;
      if (typeof triggerWord !== 'string') throw new EngineError('invalid_input', 'The training has no trigger word.');
      const upload = await sourceTask(training.parent_id ?? training.input_data?.training_images_id, 'The upload this model learned from no longer exists.');
      const images = await Promise.all(
        (training.image_urls ?? []).map((url) => storedImage(url, "The trained model's pictures are no longer stored; train it again.")),
      );
      const data = Object.fromEntries(Object.entries(result).filter(([key]) => !RESULT_KEYS.includes(key)));
      const identity: TrainedIdentity = { engine, triggerWord, subject: subjectOrFail(upload), data, images };
      if (typeof result.upstream_id === 'string') identity.upstreamId = result.upstream_id;
      return identity;
    },
  };
}
