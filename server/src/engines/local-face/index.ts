/**
 * @module The local face engine (local-engine.md §2, §4, §5): a real swap on CPU, not a
 * simulation, and the AI photo work built on it (ai-photos/: upload checks, an identity
 * profile from face analysis instead of generative training, template face swaps instead of
 * generation; each says so in its result). Pictures are decoded here (sharp); face detection,
 * the 468-point mesh, the piecewise-affine warp, the colour, shading and blend run in one
 * worker thread per process (face-worker.ts), so the event loop of the process that hosts the
 * engine (in embedded mode the API itself) stays free. The largest face of the source goes
 * onto the largest face of the target; the result is a PNG of the target's size.
 */
import { defineEngine, throwIfAborted } from '../define-engine.ts';
import { type Engine, EngineError, type EngineImage, type EngineResult } from '../engine.ts';
import { runGenerate } from './ai-photos/generate.ts';
import { type AiPhotoOptions, aiPhotoSettings } from './ai-photos/settings.ts';
import { runTrain } from './ai-photos/train.ts';
import { runUpload } from './ai-photos/upload.ts';
import { closeFaceWorker, requestFaceWork } from './face-worker-client.ts';
import { encodePng, prepareImage } from './images.ts';
import type { SwapOutcome, SwapStage } from './protocol.ts';

export interface LocalFaceEngineOptions {
  /** Largest input picture, in pixels. Default 40 megapixels. */
  maxInputPixels?: number;
  /** Longest side of the copy the detector reads (mesh points are scaled back). Default 1024. */
  detectionSize?: number;
  /** Longest side of the source kept for sampling the face. Default 2048. */
  maxSourceSide?: number;
  /** Re-detect the result to report identity similarity before/after (one more detection pass). Default true. */
  scoreIdentity?: boolean;
  /** AI photo uploads, trainings and generations (see ai-photos/settings.ts). */
  aiPhotos?: AiPhotoOptions;
}

/** Progress after each stage; decoding is 5–10, encoding 90–100. */
const STAGE_PERCENT: Record<SwapStage, number> = {
  'source-detected': 25,
  'target-detected': 40,
  warped: 60,
  blended: 85,
};

const METHOD_NOTE =
  "Face swapped locally on CPU: 468-point face mesh, piecewise-affine warp at the face's resolution, Lab colour and shading matched to the target face and a feathered blend; the target keeps its own mouth when one mouth is wide open and the other closed.";

function identityNote(identity: SwapOutcome['identity']): string {
  if (!identity) return '';
  const after = identity.after === null ? 'no face re-detected after' : `${identity.after.toFixed(2)} after`;
  return ` Identity similarity to the source face (cosine of face embeddings): ${identity.before.toFixed(2)} before, ${after}.`;
}

export function createLocalFaceEngine(options: LocalFaceEngineOptions = {}): Engine {
  const maxPixels = options.maxInputPixels ?? 40_000_000;
  const detectionSize = options.detectionSize ?? 1024;
  const maxSourceSide = options.maxSourceSide ?? 2048;
  const scoreIdentity = options.scoreIdentity ?? true;
  const aiPhotos = aiPhotoSettings(options.aiPhotos ?? {}, maxPixels, detectionSize);

  return defineEngine({
    name: 'local-face',
    kinds: ['faceswap', 'ai-photo-upload', 'ai-photo-train', 'ai-photo-generate'],
    // generation puts the trained face onto portrait templates: a stand-in for a generative
    // model, so it says `simulated` and is sold outside embedded mode only with ALLOW_SIMULATED_ENGINES
    simulatedKinds: ['ai-photo-generate'],
    async execute(job, report, signal): Promise<EngineResult> {
      if (job.kind === 'ai-photo-upload') return runUpload(job, aiPhotos, report, signal);
      if (job.kind === 'ai-photo-train') return runTrain(job, aiPhotos, report, signal);
      if (job.kind === 'ai-photo-generate') return runGenerate(job, aiPhotos, report, signal);
      if (job.kind !== 'faceswap') throw new EngineError('unsupported', 'This engine cannot run this task.', { detail: job.kind });
      report({ percentage: 5, status: 'processing' });
      const [source, target] = await Promise.all([
        prepareImage(job.source.data, 'source', { maxPixels, detectionSize, maxSide: maxSourceSide }),
        prepareImage(job.target.data, 'target', { maxPixels, detectionSize }),
      ]);
      throwIfAborted(signal);
      report({ percentage: 10 });
      const answer = await requestFaceWork(
        { type: 'swap', source, target, scoreIdentity, detectionSize },
        (stage) => report({ percentage: STAGE_PERCENT[stage] }),
        signal,
      );
      if (answer.type === 'failed') {
        if (answer.reason === 'no-face-source') throw new EngineError('invalid_input', 'No face found in the source image', { retryable: false });
        if (answer.reason === 'no-face-target') throw new EngineError('invalid_input', 'No face found in the target image', { retryable: false });
        throw new Error(answer.message);
      }
      if (answer.type !== 'swapped') throw new Error(`unexpected answer from the face worker: ${answer.type}`);
      throwIfAborted(signal);
      report({ percentage: 90 });
      const { image: pixels, identity } = answer.outcome;
      const image: EngineImage = { source: 'buffer', data: await encodePng(pixels), contentType: 'image/png', width: pixels.width, height: pixels.height };
      return {
        engine: 'local-face',
        method: 'mesh-warp-classic',
        simulated: false,
        note: METHOD_NOTE + identityNote(identity),
        layout: 'single',
        image,
        images: [image],
        width: pixels.width,
        height: pixels.height,
      };
    },
  });
}

/**
 * The L2-normalised identity embedding (faceres, 1024-d) of the largest face in a picture,
 * or null when it has none; computed by the same worker and models as the swap.
 */
export async function embedLargestFace(
  picture: Buffer,
  options: Pick<LocalFaceEngineOptions, 'maxInputPixels' | 'detectionSize'> = {},
): Promise<number[] | null> {
  const image = await prepareImage(picture, 'source', { maxPixels: options.maxInputPixels ?? 40_000_000, detectionSize: options.detectionSize ?? 1024 });
  const answer = await requestFaceWork({ type: 'embed', image }, () => {});
  if (answer.type === 'embedded') return answer.embedding;
  throw new Error(answer.type === 'failed' ? answer.message : `unexpected answer from the face worker: ${answer.type}`);
}

/** Stops the face worker thread of this process (tests, shutdown); a later run starts it again. */
export const closeLocalFaceEngine = closeFaceWorker;
