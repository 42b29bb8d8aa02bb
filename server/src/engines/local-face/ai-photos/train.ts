/**
 * @module ai-photo-train on the local face engine (local-engine.md §4): real face analytics,
 * no generative training. Each photo checked as for an upload, its face measured (1024-d
 * embedding, pose, mouth, age and gender estimates) and aligned; photos of someone else
 * dropped by median pairwise similarity (a set of two people about equally often refused); the rest ranked by sharpness × frontalness × size.
 * The best aligned crops are the result's pictures; the identity profile goes in `data`.
 */
import { EngineError, type EngineImage, type EngineJob, type EngineResult, type ProgressListener } from '../../engine.ts';
import { encodeJpeg } from '../images.ts';
import { centroid, differentPersonReason, findConsistentSet, qualityScores, twoPeopleMessage } from './identity.ts';
import { type CheckedPhoto, checkPhotos, describeRejections } from './photo-check.ts';
import { IDENTITY_NOTE, type IdentityProfile, round, type StoredIdentity } from './profile.ts';
import type { AiPhotoSettings } from './settings.ts';
import { EYE_DISTANCE, EYE_LINE } from './align.ts';

type TrainJob = Extract<EngineJob, { kind: 'ai-photo-train' }>;

/** A photo that passed the check, with everything the identity work needs. */
type UsablePhoto = Required<Pick<CheckedPhoto, 'face' | 'aligned'>> & CheckedPhoto;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const hex = (rgb: readonly number[]) => `#${rgb.map((value) => value.toString(16).padStart(2, '0')).join('')}`;

/** faceres' estimates over the kept photos: median age, the more frequent gender and its share. */
function estimate(photos: readonly UsablePhoto[]): IdentityProfile['estimate'] {
  const ages = photos.flatMap((photo) => (photo.face.age === undefined ? [] : [photo.face.age]));
  const genders = photos.flatMap((photo) => (photo.face.gender === undefined ? [] : [photo.face.gender]));
  const female = genders.filter((gender) => gender === 'female').length;
  const gender = genders.length === 0 ? null : female * 2 >= genders.length ? 'female' : 'male';
  const share = genders.length === 0 ? 0 : Math.max(female, genders.length - female) / genders.length;
  return { age: ages.length > 0 ? Math.round(median(ages)) : null, gender, gender_share: round(share, 2) };
}

function failTooFew(kept: number, total: number, minimum: number, rejections: { index: number; reason: string }[]): never {
  const why = rejections.length > 0 ? ` Not used: ${describeRejections(rejections)}.` : '';
  throw new EngineError('invalid_input', `Only ${kept} of ${total} photos show the same person clearly; at least ${minimum} are needed.${why}`, {
    retryable: false,
  });
}

export async function runTrain(job: TrainJob, settings: AiPhotoSettings, report: ProgressListener, signal: AbortSignal): Promise<EngineResult> {
  const total = job.images.length;
  if (total < settings.minPhotos) {
    throw new EngineError('invalid_input', `At least ${settings.minPhotos} photos of the same person are needed to train; ${total} were given.`, {
      retryable: false,
    });
  }
  report({ percentage: 2, status: 'processing' });
  const checked = await checkPhotos(
    job.images,
    { limits: settings.limits, alignSize: settings.referenceSize },
    (done) => report({ percentage: 5 + (65 * done) / total }),
    signal,
  );
  const usable = checked.filter((photo): photo is UsablePhoto => photo.verdict.ok && photo.face !== undefined && photo.aligned !== undefined);
  const rejected = checked.flatMap((photo) => (photo.verdict.ok ? [] : [{ index: photo.verdict.index, reason: photo.verdict.reason ?? 'unusable' }]));

  const consistency = findConsistentSet(usable.map((photo) => photo.face.embedding));
  if (consistency.twoPeople) {
    const photos = (members: number[]) => members.map((member) => usable[member].verdict.index);
    throw new EngineError('invalid_input', twoPeopleMessage(photos(consistency.kept), photos(consistency.second)), { retryable: false });
  }
  for (const { member, median: similarity } of consistency.dropped) {
    rejected.push({ index: usable[member].verdict.index, reason: differentPersonReason(similarity, consistency.threshold) });
  }
  rejected.sort((a, b) => a.index - b.index);
  report({ percentage: 75 });
  if (consistency.kept.length < settings.minPhotos) failTooFew(consistency.kept.length, total, settings.minPhotos, rejected);

  const kept = consistency.kept.map((member) => ({ photo: usable[member], similarity: consistency.medians.get(member) ?? 0 }));
  const quality = qualityScores(
    kept.map(({ photo }) => ({
      sharpness: photo.aligned.sharpness,
      yaw: photo.face.pose.yaw,
      pitch: photo.face.pose.pitch,
      eyeDistance: Math.hypot(photo.face.eyes[1][0] - photo.face.eyes[0][0], photo.face.eyes[1][1] - photo.face.eyes[0][1]) * photo.scale,
    })),
    EYE_DISTANCE * settings.referenceSize,
  );
  const sharpest = Math.max(...kept.map(({ photo }) => photo.aligned.sharpness), 1e-6);
  const ranked = kept
    .map((entry, i) => ({ ...entry, quality: quality[i] }))
    .sort((a, b) => b.quality - a.quality || a.photo.verdict.index - b.photo.verdict.index)
    .slice(0, settings.maxReferences);
  report({ percentage: 80 });

  const images: EngineImage[] = [];
  for (const [i, { photo }] of ranked.entries()) {
    const { image } = photo.aligned;
    images.push({ source: 'buffer', data: await encodeJpeg(image), contentType: 'image/jpeg', width: image.width, height: image.height });
    report({ percentage: 80 + (15 * (i + 1)) / ranked.length });
  }

  const similarities = kept.map(({ similarity }) => similarity);
  const skin = [0, 1, 2].map((c) => median(kept.map(({ photo }) => photo.aligned.skin[c]))) as [number, number, number];
  const profile: IdentityProfile = {
    centroid: centroid(kept.map(({ photo }) => photo.face.embedding)).map((value) => round(value)),
    references: ranked.map(({ photo, similarity, quality: score }) => ({
      photo: photo.verdict.index,
      yaw: round(photo.face.pose.yaw, 1),
      pitch: round(photo.face.pose.pitch, 1),
      roll: round(photo.face.pose.roll, 1),
      mouth_gap: round(photo.face.mouthGap, 3),
      sharpness: round(photo.aligned.sharpness / sharpest, 3),
      quality: round(score, 3),
      similarity: round(similarity, 3),
    })),
    consistency: { median_similarity: round(median(similarities), 3), min_similarity: round(Math.min(...similarities), 3), threshold: consistency.threshold },
    skin_tone: { rgb: skin, hex: hex(skin) },
    estimate: estimate(kept.map(({ photo }) => photo)),
    crop: { size: settings.referenceSize, eye_distance: EYE_DISTANCE, eye_line: EYE_LINE },
  };
  const identity: StoredIdentity = { method: 'identity-profile', note: IDENTITY_NOTE, profile, rejected, kept: kept.length };
  return {
    engine: 'local-face',
    method: 'identity-profile',
    simulated: false,
    note: `${IDENTITY_NOTE} Kept ${kept.length} of ${total} photos of one person (median identity similarity ${profile.consistency.median_similarity.toFixed(2)}); ${rejected.length} not used; ${images.length} aligned reference crops.`,
    layout: 'set',
    image: images[0],
    images,
    width: settings.referenceSize,
    height: settings.referenceSize,
    data: { identity, trigger_word: job.triggerWord },
  };
}
