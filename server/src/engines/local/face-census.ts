/**
 * @module The face counter describe uses when the local face engine is available: the same
 * worker thread and models as faceswap (local-face/), one detection pass over a copy of at most
 * 1024 px. The first call loads the models (about a second); later ones take 0.2–0.5 s.
 */
import { requestFaceWork } from '../local-face/face-worker-client.ts';
import { prepareImage } from '../local-face/images.ts';
import type { FaceCounter } from './describe.ts';

export const countFacesLocally: FaceCounter = async (image, signal) => {
  const prepared = await prepareImage(image, 'source', { maxPixels: 40_000_000, detectionSize: 1024, maxSide: 1024 });
  const answer = await requestFaceWork({ type: 'analyse', image: prepared }, () => {}, signal);
  if (answer.type === 'analysed') return answer.faces.length;
  throw new Error(answer.type === 'failed' ? answer.message : `unexpected answer from the face worker: ${answer.type}`);
};
