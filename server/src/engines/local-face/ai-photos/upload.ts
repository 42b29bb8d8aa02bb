/**
 * @module ai-photo-upload on the local face engine: every photo decoded and its faces found, a
 * verdict per photo (usable, or why not), and a clear failure when fewer than the minimum of
 * usable photos remain. The training's identity rule runs here too (identity.ts): a set that
 * shows two people about equally often is refused, and a photo that looks like someone else
 * than the rest gets a `different person (…)` warning, so a hosted training (which trains on
 * the upload's usable photos without a check of its own) is not paid for on a mixed set
 * unknowingly (docs/decisions/0016). Nothing is stored here: the worker keeps the verdicts in
 * the task.
 */
import { EngineError, type EngineJob, type EngineResult, type ProgressListener } from '../../engine.ts';
import { differentPersonReason, findConsistentSet, twoPeopleMessage } from './identity.ts';
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
  const faces = checked.flatMap((photo) => (photo.verdict.ok && photo.face ? [{ index: photo.verdict.index, embedding: photo.face.embedding }] : []));
  const consistency = findConsistentSet(faces.map((face) => face.embedding));
  if (consistency.twoPeople) {
    const indices = (members: number[]) => members.map((member) => faces[member].index);
    throw new EngineError('invalid_input', twoPeopleMessage(indices(consistency.kept), indices(consistency.second)), { retryable: false });
  }
  for (const { member, median } of consistency.dropped) {
    const verdict = photos[faces[member].index];
    verdict.warnings = [...(verdict.warnings ?? []), differentPersonReason(median, consistency.threshold)];
  }
  const others = consistency.dropped.length;
  const warning = others > 0 ? ` ${others} of them look like a different person than the rest (see the warnings).` : '';
  return {
    engine: 'local-face',
    method: 'face-check',
    simulated: false,
    note: `Photos checked locally by face detection: ${usable} of ${total} usable (one face each, at least ${settings.limits.minFaceSize} px wide).${warning}`,
    layout: 'none',
    images: [],
    data: { photos, usable },
  };
}
