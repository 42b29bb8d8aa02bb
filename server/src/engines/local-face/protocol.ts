/**
 * @module What the main thread and the face worker thread say to each other. Pixels cross as
 * plain RGB (3 bytes a pixel, row by row); sharp decodes and encodes on the main thread, the
 * worker only runs the models and the pure-JS pixel work.
 */

/** Decoded RGB pixels, 3 bytes a pixel, no padding. */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/**
 * An input picture as the worker gets it: `pixels` for the pixel work, `detection` a smaller
 * copy for the detector (absent when `pixels` is small enough); mesh points found on
 * `detection` are scaled back to `pixels`.
 */
export interface PreparedImage {
  pixels: RgbImage;
  detection?: RgbImage;
}

/** Milestones of one swap, reported in this order. */
export type SwapStage = 'source-detected' | 'target-detected' | 'warped' | 'blended';

export type FaceWorkerRequest =
  | {
      id: number;
      type: 'swap';
      source: PreparedImage;
      target: PreparedImage;
      /** Re-detect the result to measure how much identity moved (one more detection pass). */
      scoreIdentity: boolean;
      /** Longest side of the images given to the detector. */
      detectionSize: number;
    }
  | { id: number; type: 'embed'; image: PreparedImage };

/** Why a request failed: a face is missing, or anything else (internal). */
type FaceWorkerFailure = 'no-face-source' | 'no-face-target' | 'internal';

export interface SwapOutcome {
  image: RgbImage;
  /** Cosine similarity of the face embeddings: source vs target, and source vs the re-detected output. */
  identity?: { before: number; after: number | null };
}

export type FaceWorkerResponse =
  | { id: number; type: 'progress'; stage: SwapStage }
  | { id: number; type: 'swapped'; outcome: SwapOutcome }
  | { id: number; type: 'embedded'; embedding: number[] | null }
  | { id: number; type: 'failed'; reason: FaceWorkerFailure; message: string };
