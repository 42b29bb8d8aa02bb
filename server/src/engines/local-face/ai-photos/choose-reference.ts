/**
 * @module Which reference crop goes onto a template face: the one whose pose and expression
 * match best (a warp across ~25° of yaw, or from a closed onto an open mouth, shows), with a
 * small bonus for quality and a seeded pick among near-equals, so a seed gives the same photos.
 */
import type { HashStream } from '../../local/random.ts';
import type { ReferenceProfile } from './profile.ts';

/** Degrees of pose difference one unit of mouth-gap difference (inner-lip gap / eye distance) is worth. */
const MOUTH_WEIGHT = 60;
/** Degrees of pose difference a perfect quality score is worth. */
const QUALITY_BONUS = 5;
/** References within this many cost units (degrees) of the best count as equals. */
const TIE_MARGIN = 2;

export interface FacePose {
  yaw: number;
  pitch: number;
  mouthGap: number;
}

function cost(reference: ReferenceProfile, face: FacePose): number {
  return (
    Math.abs(reference.yaw - face.yaw) +
    Math.abs(reference.pitch - face.pitch) +
    MOUTH_WEIGHT * Math.abs(reference.mouth_gap - face.mouthGap) -
    QUALITY_BONUS * reference.quality
  );
}

/**
 * The position (in `references`) of the best match for `face`, skipping `excluded`; undefined
 * when every reference is excluded. `rank` > 0 takes the rank-th best instead (a repeated
 * template gets a different reference).
 */
export function chooseReference(
  references: readonly ReferenceProfile[],
  face: FacePose,
  stream: HashStream,
  excluded: ReadonlySet<number>,
  rank = 0,
): number | undefined {
  const ordered = references
    .map((reference, position) => ({ position, cost: cost(reference, face) }))
    .filter(({ position }) => !excluded.has(position))
    .sort((a, b) => a.cost - b.cost || a.position - b.position);
  if (ordered.length === 0) return undefined;
  const start = Math.min(rank, ordered.length - 1);
  const equals = ordered.slice(start).filter(({ cost: value }) => value <= ordered[start].cost + TIE_MARGIN);
  return stream.pick(equals).position;
}
