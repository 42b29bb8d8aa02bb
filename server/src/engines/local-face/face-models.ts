/**
 * @module The face models, loaded once per worker thread: @vladmandic/human on the tfjs WASM
 * backend with the models shipped inside its npm package (nothing is downloaded), giving face
 * boxes, the 468-point mesh and a 1024-d identity embedding (faceres). Runs only inside the
 * face worker: inference is synchronous WASM and would block any event loop it ran on.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Tensor } from '@tensorflow/tfjs-core';
import type { Config, FaceResult, Human } from '@vladmandic/human';
import type { RgbImage } from './protocol.ts';

export type Point = [number, number];

export interface DetectedFace {
  /** x, y, width, height in pixels of the image given to `detectFaces`. */
  box: [number, number, number, number];
  /** The 468 mesh points (x, y) in pixels of that image. */
  mesh: Point[];
  /** faceres identity embedding, L2-normalised; empty when the model gave none. */
  embedding: number[];
  /** Head rotation from the mesh, in radians (0 facing the camera); absent when human gave none. */
  rotation?: { yaw: number; pitch: number; roll: number };
  /** faceres' age and gender estimates, when it gave them. */
  age?: number;
  gender?: 'female' | 'male';
  genderScore?: number;
}

export interface FaceModels {
  /** Every face found, largest first. */
  detectFaces(image: RgbImage): Promise<DetectedFace[]>;
  /** The mesh triangles: indices into `mesh`, three per triangle. */
  readonly triangles: readonly number[];
}

/** The bits of tfjs we call through human's own instance (so tensors belong to its backend). */
interface TensorOps {
  tensor4d(values: Int32Array, shape: [number, number, number, number], dtype: 'int32'): Tensor;
  dispose(tensor: Tensor): void;
}

const require = createRequire(import.meta.url);

/**
 * The folder of an installed package, from the path its main entry resolves to.
 * WORKAROUND(human-exports): human's and tfjs-backend-wasm's `exports` maps hide
 * `package.json` and `dist/*`, so resolve the main entry and walk up.
 */
function packageDir(mainEntry: string): string {
  let dir = path.dirname(mainEntry);
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find the package folder of ${mainEntry}`);
    dir = parent;
  }
  return dir;
}

/**
 * WORKAROUND(node-fetch-file): human loads its models with fetch(), and Node's fetch refuses
 * file:// URLs. Serve files under `root` from disk; everything else goes to the real fetch.
 * Only this worker thread's global is patched.
 */
function serveFilesFrom(root: string): void {
  const realFetch = globalThis.fetch;
  const rootUrl = pathToFileURL(root).href;
  globalThis.fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(rootUrl)) return realFetch(input, init);
    return new Response(readFileSync(fileURLToPath(url)), { status: 200 });
  };
}

function humanConfig(modelDir: string, wasmDir: string): Partial<Config> {
  const off = { enabled: false };
  return {
    backend: 'wasm',
    wasmPath: wasmDir,
    modelBasePath: `${pathToFileURL(modelDir).href}/`,
    debug: false,
    warmup: 'none',
    // every detect() is a new photo: no frame cache, no skipped frames
    cacheSensitivity: 0,
    filter: off,
    face: {
      enabled: true,
      detector: { rotation: true, maxDetected: 10, skipFrames: 0, skipTime: 0 },
      mesh: { enabled: true },
      iris: off,
      attention: off,
      description: { enabled: true, skipFrames: 0, skipTime: 0 },
      emotion: off,
      antispoof: off,
      liveness: off,
      gear: off,
    },
    body: off,
    hand: off,
    object: off,
    gesture: off,
    segmentation: off,
  };
}

function normalise(vector: readonly number[]): number[] {
  const norm = Math.hypot(...vector);
  return norm > 0 ? vector.map((value) => value / norm) : [];
}

/** Cosine similarity of two L2-normalised embeddings (1 = same, ~0.4 = typical strangers). */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  if (a.length === 0 || a.length !== b.length) return 0;
  let dot = 0;
  for (let i = 0; i < a.length; i += 1) dot += a[i] * b[i];
  return dot;
}

/** The optional estimates human adds to a face (pose from the mesh, faceres' age and gender). */
function faceAttributes(face: FaceResult): Pick<DetectedFace, 'rotation' | 'age' | 'gender' | 'genderScore'> {
  const attributes: Pick<DetectedFace, 'rotation' | 'age' | 'gender' | 'genderScore'> = {};
  const angle = face.rotation?.angle;
  if (angle) attributes.rotation = { yaw: angle.yaw, pitch: angle.pitch, roll: angle.roll };
  if (typeof face.age === 'number' && face.age > 0) attributes.age = face.age;
  if (face.gender === 'female' || face.gender === 'male') {
    attributes.gender = face.gender;
    if (typeof face.genderScore === 'number') attributes.genderScore = face.genderScore;
  }
  return attributes;
}

export async function loadFaceModels(): Promise<FaceModels> {
  const humanDir = packageDir(require.resolve('@vladmandic/human'));
  const wasmDir = `${path.join(packageDir(require.resolve('@tensorflow/tfjs-backend-wasm')), 'dist')}${path.sep}`;
  const modelDir = path.join(humanDir, 'models');
  serveFilesFrom(modelDir);
  // the node-wasm bundle is CommonJS and requires tfjs-core, -converter and -backend-wasm itself
  const { Human: HumanClass } = require(path.join(humanDir, 'dist', 'human.node-wasm.js')) as { Human: new (config: Partial<Config>) => Human };
  const human = new HumanClass(humanConfig(modelDir, wasmDir));
  await human.load();
  const tf = human.tf as TensorOps;

  async function detectFaces(image: RgbImage): Promise<DetectedFace[]> {
    const tensor = tf.tensor4d(Int32Array.from(image.data), [1, image.height, image.width, 3], 'int32');
    try {
      const result = await human.detect(tensor);
      if (result.error) throw new Error(`face detection failed: ${result.error}`);
      return result.face
        .filter((face) => face.mesh.length >= 468)
        .map((face) => ({
          box: [face.box[0], face.box[1], face.box[2], face.box[3]] as DetectedFace['box'],
          mesh: face.mesh.map((point): Point => [point[0], point[1]]),
          embedding: normalise(face.embedding ?? []),
          ...faceAttributes(face),
        }))
        .sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3]);
    } finally {
      tf.dispose(tensor);
    }
  }

  return { detectFaces, triangles: human.faceTriangulation };
}
