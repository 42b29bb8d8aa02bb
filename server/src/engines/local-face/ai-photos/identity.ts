/**
 * @module The identity arithmetic of AI photo training (local-engine.md §4), pure: which
 * photos show the same person (median pairwise similarity of faceres embeddings, not the
 * distance to a centroid), the centroid of the kept ones, and a quality rank.
 *
 * Similarity is the cosine of the embeddings once the population mean is taken away from both
 * (identitySimilarity): every faceres embedding carries a large common component (the mean of
 * 57 people has norm 0.65), which lifts every pair, strangers included, and squeezes the gap
 * between one person's photos from different days and two lookalikes. Measured held out
 * (bench/ai-photos-bench.ts, the mean taken without the people compared), fewer strangers pass
 * and one person's photos from two sessions sit further above the threshold than with the
 * plain cosine.
 */
import { cosineSimilarity } from '../face-models.ts';
import { POPULATION_MEAN } from './population-mean.ts';

/**
 * Median pairwise identity similarity below which a photo is taken for another person.
 * Calibrated held out on the real photos of test/fixtures/face-eval (bench/ai-photos-bench.ts
 * prints the distributions): the lowest 0.01 step at which at most 1 % of other people's photos
 * reach it against a person's set (0.42), plus 0.03 for the sampling error of 58 people. The
 * rule then keeps 0.67 % of strangers' photos mixed into a set (1.48 % of strangers of the same
 * self-reported ethnicity, where this model's strangers score highest; 0.49 would take that
 * under 1 % but leave a darkened, tightly cropped photo of the two-session person 0.005 above
 * it), drops none of a person's own, refuses 99 % of 5 + 5 sets of two people; same-person
 * pairs, mostly one sitting, score 0.50–0.96 (different people p99 0.42); the person
 * photographed in two sessions has per-photo medians 0.56–0.64. Photos of one person years
 * apart were not measurable (docs/decisions/0016). The same value tells generation which
 * templates already show the subject (similarity to the centroid: 38 of 38 such templates
 * caught, 0.7 % of other people's skipped).
 */
export const SAME_PERSON_THRESHOLD = 0.45;

/**
 * How alike two faces are: the cosine of their faceres embeddings with `mean` (the population
 * mean) taken away from both. 1 is the same embedding, ~0 two typical strangers. Embeddings of
 * another length than the mean (none, or another model's) fall back to the plain cosine.
 */
export function identitySimilarity(a: readonly number[], b: readonly number[], mean: readonly number[] = POPULATION_MEAN): number {
  if (a.length !== mean.length || b.length !== mean.length) return cosineSimilarity(a, b);
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < mean.length; i += 1) {
    const x = a[i] - mean[i];
    const y = b[i] - mean[i];
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return normA > 0 && normB > 0 ? dot / Math.sqrt(normA * normB) : 0;
}

/**
 * The person a training keeps must show in at least this many times as many photos as the
 * next person does; below that the set shows two people about equally often and is refused
 * rather than one of them picked.
 */
export const MAJORITY_RATIO = 2;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export interface Consistency {
  /** Positions (into the given list) of the photos that agree with each other. */
  kept: number[];
  /** Photos dropped as another person, with their median similarity to the kept ones. */
  dropped: { member: number; median: number }[];
  /** Each kept photo's median similarity to the other kept ones. */
  medians: Map<number, number>;
  /** The largest group of the dropped photos that agree with each other (one other person), when it has 2 photos or more. */
  second: number[];
  /** True when `second` is too large next to `kept` (see MAJORITY_RATIO): the set shows two people. */
  twoPeople: boolean;
  threshold: number;
}

/** Repeatedly drops the member whose median similarity to the other members is lowest, while under `threshold`. */
function agreeing(similarity: readonly (readonly number[])[], members: readonly number[], threshold: number) {
  const kept = [...members];
  const medians = new Map<number, number>();
  while (true) {
    medians.clear();
    for (const member of kept) {
      const others = kept.filter((other) => other !== member).map((other) => similarity[member][other]);
      medians.set(member, others.length > 0 ? median(others) : 1);
    }
    let worst = kept[0];
    for (const member of kept) if ((medians.get(member) ?? 1) < (medians.get(worst) ?? 1)) worst = member;
    if (kept.length < 2 || (medians.get(worst) ?? 1) >= threshold) return { kept, medians };
    kept.splice(kept.indexOf(worst), 1);
  }
}

/**
 * The photos that show one person: those whose median similarity to the others stays at or above
 * `threshold` once the lowest ones have been dropped one by one (a minority of other people
 * goes, the majority identity stays). A photo dropped early, while another person still
 * pulled the medians down, comes back when its median to the kept photos reaches the
 * threshold. The dropped photos are then grouped the same way, to tell a set of two people
 * (refused) from a set with a few strangers in it.
 */
export function findConsistentSet(
  embeddings: readonly (readonly number[])[],
  threshold = SAME_PERSON_THRESHOLD,
  /** The population mean (identitySimilarity); the benchmark passes one made without the people compared. */
  mean: readonly number[] = POPULATION_MEAN,
): Consistency {
  const similarity = embeddings.map((a) => embeddings.map((b) => identitySimilarity(a, b, mean)));
  const all = embeddings.map((_, i) => i);
  const first = agreeing(similarity, all, threshold).kept;
  const medianTo = (member: number, group: readonly number[]) => {
    const others = group.filter((other) => other !== member).map((other) => similarity[member][other]);
    return others.length > 0 ? median(others) : 1;
  };
  const kept = all.filter((member) => first.includes(member) || (first.length >= 2 && medianTo(member, first) >= threshold));
  const medians = new Map(kept.map((member) => [member, medianTo(member, kept)]));
  const dropped = all.filter((member) => !kept.includes(member)).map((member) => ({ member, median: medianTo(member, kept) }));
  const rest = dropped.map(({ member }) => member);
  const group = rest.length >= 2 ? agreeing(similarity, rest, threshold).kept : [];
  const second = group.length >= 2 ? group : [];
  return { kept, dropped, medians, second, twoPeople: second.length > 0 && kept.length < MAJORITY_RATIO * second.length, threshold };
}

/** A dropped photo's verdict: "different person (similarity 0.41 to the others, under 0.65)". */
export function differentPersonReason(similarity: number, threshold: number): string {
  return `different person (similarity ${similarity.toFixed(2)} to the others, under ${threshold.toFixed(2)})`;
}

/** "photos 1, 3 and 5" (indices counted from 0, shown from 1). */
function photoList(indices: readonly number[]): string {
  const numbers = [...indices].sort((a, b) => a - b).map((index) => index + 1);
  return numbers.length === 1 ? `photo ${numbers[0]}` : `photos ${numbers.slice(0, -1).join(', ')} and ${numbers[numbers.length - 1]}`;
}

/** Why a set of two people about equally often is refused; the larger group first (of two the same size, the one with the earlier photo). */
export function twoPeopleMessage(one: readonly number[], other: readonly number[]): string {
  const [larger, smaller] = one.length > other.length || (one.length === other.length && Math.min(...one) < Math.min(...other)) ? [one, other] : [other, one];
  return `The photos show two different people about equally often (${photoList(larger)}; ${photoList(smaller)}), so it is unclear whom to train on. Upload photos of one person only; the person must be in at least ${MAJORITY_RATIO} times as many photos as anyone else.`;
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
