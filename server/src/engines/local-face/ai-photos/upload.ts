/**
 * @module ai-photo-upload on the local face engine: every photo decoded and its faces found, a
 * verdict per photo (usable, or why not), and a clear failure when fewer than the minimum of
 * usable photos remain. Nothing is stored here: the worker keeps the verdicts in the task.
 */
import { EngineError, type EngineJob, type EngineResult, type ProgressListener } from '../../engine.ts';
import { checkPhotos, describeRejections } from './photo-check.ts';
import type { AiPhotoSettings } from './settings.ts';

type UploadJob = Extract<EngineJob, { kind: 'ai-photo-upload' }>;

export async function runUpload(job: UploadJob, settings: AiPhotoSettings, report: ProgressListener, signal: AbortSignal): Promise<EngineResult> {
  const total = job.images.length;
  report({ percentage: 2, status: 'processing' });
  const checked = await checkPhotos(job.images, { limits: settings.limits }, (done) => report({ percentage: 5 + (90 * done) / Math.max(total, 1) }), signal);
  const photos = checked.map((photo) => photo.verdict);
  const usable = photos.filter((photo) => photo.ok).length;
  const rejections = photos.flatMap((photo) => (photo.ok ? [] : [{ index: photo.index, reason: photo.reason ?? 'unusable' }]));
  if (usable < settings.minPhotos) {
    const why = rejections.length > 0 ? ` Not usable: ${describeRejections(rejections)}.` : '';
    throw new EngineError(
      'invalid_input',
      `Only ${usable} of ${total} photos can be used; at least ${settings.minPhotos} photos showing one face at least ${settings.limits.minFaceSize} px wide are needed.${why}`,
      { retryable: false },
    );
  }
  return {
    engine: 'local-face',
    method: 'face-check',
    simulated: false,
    note: `Photos checked locally by face detection: ${usable} of ${total} usable (one face each, at least ${settings.limits.minFaceSize} px wide).`,
    layout: 'none',
    images: [],
    data: { photos, usable },
  };
}
