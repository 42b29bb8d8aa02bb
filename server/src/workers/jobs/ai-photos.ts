/**
 * @module The AI photo jobs: an upload's stored photos, a training on the photos its upload
 * kept, a generation from the identity its training recorded.
 */
import { EngineError } from '../../engines/engine.ts';
import { uploadedPhotoUrls, usablePhotoIndexes } from '../../services/tasks/ai-photo-rules.ts';
import type { JobBuilders } from './index.ts';

const PHOTOS_GONE = 'The uploaded photos are no longer stored; upload them again.';

const whole = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) ? value : undefined);

export const aiPhotoJobs: JobBuilders = {
  'ai-photo-upload': async ({ task, inputs, resume }) => {
    const subject = inputs.subjectOrFail(task);
    const images = await Promise.all(uploadedPhotoUrls(task).map((url) => inputs.storedImage(url, PHOTOS_GONE)));
    if (images.length === 0) throw new EngineError('invalid_input', 'The upload has no photos.');
    return { kind: 'ai-photo-upload', images, subject, ...resume };
  },

  'ai-photo-train': async ({ task, inputs, input, resume }) => {
    const upload = await inputs.sourceTask(task.parent_id ?? input.data.training_images_id, 'The upload to train on no longer exists.');
    if (typeof input.data.trigger_word !== 'string') throw new EngineError('invalid_input', 'The training has no trigger word.');
    const urls = uploadedPhotoUrls(upload);
    // the photos the upload check kept (the price was counted on them)
    const images = await Promise.all(usablePhotoIndexes(upload).map((i) => inputs.storedImage(urls[i], PHOTOS_GONE)));
    if (images.length === 0) throw new EngineError('invalid_input', 'None of the uploaded photos can be used for training.');
    return { kind: 'ai-photo-train', images, subject: inputs.subjectOrFail(upload), triggerWord: input.data.trigger_word, ...resume };
  },

  'ai-photo-generate': async ({ task, job, inputs, input, resume }) => {
    const training = await inputs.sourceTask(task.parent_id ?? input.data.training_id, 'The model these photos were asked of no longer exists.');
    const identity = await inputs.trainedIdentity(training, job.queue);
    return {
      kind: 'ai-photo-generate',
      identity,
      prompt: task.prompt ?? '',
      count: whole(input.data.number_of_images) ?? 4,
      aspectRatio: input.data.aspect_ratio === 'custom' ? undefined : input.aspectRatio,
      width: whole(input.data.width),
      height: whole(input.data.height),
      seed: whole(input.data.seed),
      ...resume,
    };
  },
};
