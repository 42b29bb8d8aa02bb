/**
 * @module The identity arithmetic of AI photo training (local-engine.md §4), pure: which
 * photos show the same person (median pairwise cosine of faceres embeddings, not the distance
 * to a centroid: the embeddings share a large common component that flatters strangers), the
 * centroid of the kept ones, and a quality rank.
 */
import { cosineSimilarity } from '../face-models.ts';

/** Median pairwise cosine below which a photo is taken for another person (same-person photos score ~0.9). */
export const SAME_PERSON_THRESHOLD = 0.75;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export interface Consistency {
  /** Positions (into the given list) of the photos that agree with each other. */
  kept: number[];
  /** Photos dropped as another person, in the order dropped, with their median similarity then. */
  dropped: { member: number; median: number }[];
  /** Each kept photo's median similarity to the other kept ones. */
  medians: Map<number, number>;
}

/**
 * Repeatedly drops the photo whose median cosine to the others is lowest, while that median is
 * under `threshold`: a minority of other people goes, the majority identity stays.
 */
export function findConsistentSet(embeddings: readonly (readonly number[])[], threshold = SAME_PERSON_THRESHOLD): Consistency {
  const similarity = embeddings.map((a) => embeddings.map((b) => cosineSimilarity(a, b)));
  const kept = embeddings.map((_, i) => i);
  const dropped: Consistency['dropped'] = [];
  const medians = new Map<number, number>();
  while (true) {
    medians.clear();
    for (const member of kept) {
      const others = kept.filter((other) => other !== member).map((other) => similarity[member][other]);
      medians.set(member, others.length > 0 ? median(others) : 1);
    }
    let worst = kept[0];
    for (const member of kept) if ((medians.get(member) ?? 1) < (medians.get(worst) ?? 1)) worst = member;
    const worstMedian = medians.get(worst) ?? 1;
    if (kept.length < 2 || worstMedian >= threshold) return { kept, dropped, medians };
    kept.splice(kept.indexOf(worst), 1);
    dropped.push({ member: worst, median: worstMedian });
  }
}

/** The mean of L2-normalised embeddings, normalised again. */
export function centroid(embeddings: readonly (readonly number[])[]): number[] {
  const sum = new Array<number>(embeddings[0]?.length ?? 0).fill(0);
  for (const embedding of embeddings) for (let i = 0; i < sum.length; i += 1) sum[i] += embedding[i];
  const norm = Math.hypot(...sum);
  return norm > 0 ? sum.map((value) => value / norm) : sum;
}

export interface QualityInput {
  /** Laplacian spread of the aligned face. */
  sharpness: number;
  yaw: number;
  pitch: number;
  /** Distance between the eye centres in the photo as given, in pixels. */
  eyeDistance: number;
}

/**
 * Quality = sharpness (relative to the sharpest photo) × frontalness (cos yaw · cos pitch) ×
 * size (eye distance over `fullSizeEyes`, at most 1: smaller faces were enlarged in the crop).
 */
export function qualityScores(photos: readonly QualityInput[], fullSizeEyes: number): number[] {
  const sharpest = Math.max(...photos.map((photo) => photo.sharpness), 1e-6);
  const radians = (degrees: number) => (degrees * Math.PI) / 180;
  return photos.map((photo) => {
    const frontalness = Math.max(0, Math.cos(radians(photo.yaw)) * Math.cos(radians(photo.pitch)));
    const size = Math.min(1, photo.eyeDistance / fullSizeEyes);
    return (photo.sharpness / sharpest) * frontalness * size;
  });
}
