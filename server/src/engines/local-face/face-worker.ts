/**
 * @module The face worker thread: loads the models on its first request, then answers swap,
 * embed and (AI photos) analyse requests one at a time (see face-worker-client.ts for the
 * main-thread side). Everything heavy (WASM inference, the pixel loops) runs here, off the
 * main event loop.
 */
import { parentPort } from 'node:worker_threads';
import { alignedFaceArea, alignFace } from './ai-photos/align.ts';
import { describeFace, laplacianSharpness, skinColour } from './ai-photos/face-measures.ts';
import { cosineSimilarity, type DetectedFace, type FaceModels, loadFaceModels, type Point } from './face-models.ts';
import type { FaceWorkerRequest, FaceWorkerResponse, PreparedImage, RgbImage, SwapOutcome, SwapStage } from './protocol.ts';
import { swapFace } from './swap.ts';
import type { Region } from './warp.ts';

class MissingFace extends Error {
  constructor(readonly which: 'source' | 'target') {
    super(`no face in the ${which} image`);
  }
}

let models: Promise<FaceModels> | undefined;

/** The models, loaded on first use; a failed load is tried again by the next request. */
function faceModels(): Promise<FaceModels> {
  models ??= loadFaceModels().catch((error: unknown) => {
    models = undefined;
    throw error;
  });
  return models;
}

function post(response: FaceWorkerResponse): void {
  const transfer =
    response.type === 'swapped'
      ? [response.outcome.image.data.buffer as ArrayBuffer]
      : response.type === 'analysed' && response.aligned
        ? [response.aligned.image.data.buffer as ArrayBuffer]
        : [];
  parentPort?.postMessage(response, transfer);
}

/** Every face of an image, largest first, boxes and meshes scaled from the detection copy back to `pixels`. */
async function detectAll(image: PreparedImage): Promise<DetectedFace[]> {
  const detection = image.detection ?? image.pixels;
  const faces = await (await faceModels()).detectFaces(detection);
  const sx = image.pixels.width / detection.width;
  const sy = image.pixels.height / detection.height;
  if (sx === 1 && sy === 1) return faces;
  return faces.map((face) => ({
    ...face,
    box: [face.box[0] * sx, face.box[1] * sy, face.box[2] * sx, face.box[3] * sy],
    mesh: face.mesh.map(([x, y]): Point => [x * sx, y * sy]),
  }));
}

/** The largest face of an image (see detectAll). */
async function largestFace(image: PreparedImage): Promise<DetectedFace | undefined> {
  return (await detectAll(image))[0];
}

/** Every face measured; with `alignSize`, the largest also cut out upright, with its sharpness and skin colour. */
async function analyse(request: Extract<FaceWorkerRequest, { type: 'analyse' }>): Promise<FaceWorkerResponse> {
  const faces = (await detectAll(request.image)).map(describeFace);
  const [largest] = faces;
  if (!largest || !request.alignSize) return { id: request.id, type: 'analysed', faces };
  const image = alignFace(request.image.pixels, largest.eyes, request.alignSize);
  const aligned = { image, sharpness: laplacianSharpness(image, alignedFaceArea(request.alignSize)), skin: skinColour(request.image.pixels, largest) };
  return { id: request.id, type: 'analysed', faces, aligned };
}

/** `region` grown by `grow` of its size on each side, cut out of `image` and shrunk to fit `maxSide`. */
function cropForDetection(image: RgbImage, region: Region, grow: number, maxSide: number): RgbImage {
  const x0 = Math.max(0, Math.floor(region.x - region.width * grow));
  const y0 = Math.max(0, Math.floor(region.y - region.height * grow));
  const x1 = Math.min(image.width, Math.ceil(region.x + region.width * (1 + grow)));
  const y1 = Math.min(image.height, Math.ceil(region.y + region.height * (1 + grow)));
  const factor = Math.max(1, Math.ceil(Math.max(x1 - x0, y1 - y0) / maxSide));
  const width = Math.floor((x1 - x0) / factor);
  const height = Math.floor((y1 - y0) / factor);
  const data = new Uint8Array(width * height * 3);
  const area = factor * factor;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      for (let c = 0; c < 3; c += 1) {
        let sum = 0;
        for (let dy = 0; dy < factor; dy += 1) {
          const row = (y0 + y * factor + dy) * image.width;
          for (let dx = 0; dx < factor; dx += 1) sum += image.data[(row + x0 + x * factor + dx) * 3 + c];
        }
        data[(y * width + x) * 3 + c] = Math.round(sum / area);
      }
    }
  }
  return { data, width, height };
}

/** A face narrower than this (pixels of the detection copy) is measured again on a full-resolution crop. */
const SMALL_FACE = 160;

/**
 * A small face in a large picture, measured again at its own resolution: detection ran on the
 * shrunk copy, so its mesh is coarse; a crop of the full-resolution pixels around the face
 * (three times its box) gives the mesh model the face's real pixels. Keeps the first mesh when
 * the crop shows no face.
 */
async function atFaceResolution(image: PreparedImage, face: DetectedFace): Promise<DetectedFace> {
  const detection = image.detection;
  if (!detection) return face;
  const scale = image.pixels.width / detection.width;
  if (face.box[2] / scale >= SMALL_FACE) return face;
  const [x, y, width, height] = face.box;
  const region = { x: Math.max(0, Math.floor(x - width)), y: Math.max(0, Math.floor(y - height)), width: 0, height: 0 };
  region.width = Math.min(image.pixels.width, Math.ceil(x + 2 * width)) - region.x;
  region.height = Math.min(image.pixels.height, Math.ceil(y + 2 * height)) - region.y;
  const crop = cropForDetection(image.pixels, region, 0, Number.POSITIVE_INFINITY);
  const [refined] = await (await faceModels()).detectFaces(crop);
  if (!refined) return face;
  return {
    ...refined,
    box: [refined.box[0] + region.x, refined.box[1] + region.y, refined.box[2], refined.box[3]],
    mesh: refined.mesh.map(([px, py]): Point => [px + region.x, py + region.y]),
  };
}

async function swap(request: Extract<FaceWorkerRequest, { type: 'swap' }>): Promise<SwapOutcome> {
  const progress = (stage: SwapStage) => post({ id: request.id, type: 'progress', stage });
  const source = await largestFace(request.source);
  if (!source) throw new MissingFace('source');
  progress('source-detected');
  const found = await largestFace(request.target);
  if (!found) throw new MissingFace('target');
  const target = await atFaceResolution(request.target, found);
  progress('target-detected');
  const { triangles } = await faceModels();
  const swapped = swapFace(
    { source: request.source.pixels, sourceMesh: source.mesh, target: request.target.pixels, targetMesh: target.mesh, triangles },
    progress,
  );
  if (!request.scoreIdentity) return { image: swapped.image };
  // re-detect the face in the result (a crop around it is enough) to measure the identity moved
  const [after] = await (await faceModels()).detectFaces(cropForDetection(swapped.image, swapped.region, 0.25, request.detectionSize));
  return {
    image: swapped.image,
    identity: {
      before: cosineSimilarity(source.embedding, target.embedding),
      after: after ? cosineSimilarity(source.embedding, after.embedding) : null,
    },
  };
}

async function handle(request: FaceWorkerRequest): Promise<void> {
  try {
    if (request.type === 'swap') {
      post({ id: request.id, type: 'swapped', outcome: await swap(request) });
    } else if (request.type === 'analyse') {
      post(await analyse(request));
    } else if (request.type === 'swap-onto') {
      const { triangles } = await faceModels();
      const { image } = swapFace({ ...request, triangles });
      post({ id: request.id, type: 'swapped', outcome: { image } });
    } else {
      const face = await largestFace(request.image);
      post({ id: request.id, type: 'embedded', embedding: face ? face.embedding : null });
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const reason = error instanceof MissingFace ? (error.which === 'source' ? 'no-face-source' : 'no-face-target') : 'internal';
    post({ id: request.id, type: 'failed', reason, message });
  }
}

let queue = Promise.resolve();
parentPort?.on('message', (request: FaceWorkerRequest) => {
  queue = queue.then(() => handle(request));
});
