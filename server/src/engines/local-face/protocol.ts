/**
 * @module What the main thread and the face worker thread say to each other. Pixels cross as
 * plain RGB (3 bytes a pixel, row by row); sharp decodes and encodes on the main thread, the
 * worker only runs the models and the pure-JS pixel work.
 */
import type { Point } from './face-models.ts';

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
  | { id: number; type: 'embed'; image: PreparedImage }
  /** Every face of a picture measured (AI photos); `alignSize`: also the largest face aligned at that side. */
  | { id: number; type: 'analyse'; image: PreparedImage; alignSize?: number }
  /** A swap whose meshes are already known (AI photo generation analysed both pictures before). */
  | { id: number; type: 'swap-onto'; source: RgbImage; sourceMesh: Point[]; target: RgbImage; targetMesh: Point[] };

/** One face as the AI photo work measures it, in pixels of the request's `pixels` image. */
export interface FaceAnalysis {
  /** x, y, width, height (the detector's box, roomier than the face). */
  box: [number, number, number, number];
  /** The 468 mesh points. */
  mesh: Point[];
  /** Width of the face itself: the mesh's extent, cheek to cheek. */
  faceWidth: number;
  /** faceres identity embedding, L2-normalised (empty when the model gave none). */
  embedding: number[];
  /** Head pose in degrees; 0, 0, 0 faces the camera (zeros when the model gave none). */
  pose: { yaw: number; pitch: number; roll: number };
  /** Centres of the two eyes, the one on the image's left first. */
  eyes: [Point, Point];
  /** Gap between the inner lips over the distance between the eye centres (0 = closed). */
  mouthGap: number;
  age?: number;
  gender?: 'female' | 'male';
  genderScore?: number;
}

/** The largest face cut out upright, eyes level at fixed places (see ai-photos/align.ts). */
export interface AlignedFace {
  image: RgbImage;
  /** Spread of the grey Laplacian over the face part of the crop (higher = sharper). */
  sharpness: number;
  /** Mean RGB of skin patches (cheeks, forehead, between the brows) of the original pixels. */
  skin: [number, number, number];
}

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
  /** Faces largest first (none when the picture shows none). */
  | { id: number; type: 'analysed'; faces: FaceAnalysis[]; aligned?: AlignedFace }
  | { id: number; type: 'failed'; reason: FaceWorkerFailure; message: string };
