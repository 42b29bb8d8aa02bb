/**
 * @module The face worker requests the AI photo work makes, as plain async functions: measure
 * the faces of a picture, and swap a face whose mesh is already known onto another.
 */
import type { Point } from '../face-models.ts';
import { requestFaceWork } from '../face-worker-client.ts';
import type { AlignedFace, FaceAnalysis, PreparedImage, RgbImage } from '../protocol.ts';

const ignoreStages = () => {};

/** Every face of `image`, largest first; with `alignSize`, the largest also aligned (see align.ts). */
export async function analyseFaces(
  image: PreparedImage,
  alignSize: number | undefined,
  signal: AbortSignal,
): Promise<{ faces: FaceAnalysis[]; aligned?: AlignedFace }> {
  const answer = await requestFaceWork({ type: 'analyse', image, alignSize }, ignoreStages, signal);
  if (answer.type === 'analysed') return { faces: answer.faces, aligned: answer.aligned };
  throw new Error(answer.type === 'failed' ? answer.message : `unexpected answer from the face worker: ${answer.type}`);
}

export interface KnownFaces {
  source: RgbImage;
  sourceMesh: Point[];
  target: RgbImage;
  targetMesh: Point[];
}

/** `target` with the source face warped, colour-matched and blended onto its face. */
export async function swapOnto(faces: KnownFaces, signal: AbortSignal): Promise<RgbImage> {
  const answer = await requestFaceWork({ type: 'swap-onto', ...faces }, ignoreStages, signal);
  if (answer.type === 'swapped') return answer.outcome.image;
  throw new Error(answer.type === 'failed' ? answer.message : `unexpected answer from the face worker: ${answer.type}`);
}
