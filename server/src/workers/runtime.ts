/**
 * @module What the API and the worker must agree on, built from the environment the same
 * way in both processes: the media store and the engines (hence the job queues).
 *
 * Environment: MEDIA_STORE (`disk` or `s3`; default s3 when S3_BUCKET is set, else disk),
 * MEDIA_DIR (disk; default `<repo>/.data/media`), S3_* (see storage/s3-media-store.ts), MIDJOURNEY_PROXY_URL and
 * MIDJOURNEY_PROXY_SECRET (unset: every kind runs on the local engine), REPLICATE_API_TOKEN
 * and REPLICATE_FACESWAP_* (set: faceswap runs on Replicate; see engines/replicate),
 * REPLICATE_LORA_* (with REPLICATE_LORA_DESTINATION set: AI photo training and generation run
 * on Replicate; see engines/replicate/lora.ts), REPLICATE_FLUX_MODEL(S), REPLICATE_IDEOGRAM_MODEL(S),
 * REPLICATE_VIDEO_MODELS, REPLICATE_AUDIO_MODELS (each set: that family's task kinds run on the
 * models named; see engines/replicate/env.ts),
 * WORKER_CONCURRENCY (jobs per engine at once, default 2; the local face, video and audio engines always 1).
 * QUEUE_FAIRNESS and QUEUE_MAX_RUNNING_PER_ACCOUNT (how workers share a queue between accounts)
 * are read by the worker itself: see queue-fairness.ts.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Engine } from '../engines/engine.ts';
import { countFacesLocally } from '../engines/local/face-census.ts';
import { createLocalEngine } from '../engines/local/index.ts';
import { createLocalAudioEngine } from '../engines/local-audio/index.ts';
import { createLocalFaceEngine } from '../engines/local-face/index.ts';
import { createLocalVideoEngine } from '../engines/local-video/index.ts';
import { createMidjourneyProxyEngine } from '../engines/midjourney-proxy/index.ts';
import { createReplicatePredictionEngines, replicatePredictionsConfigFromEnv } from '../engines/replicate/env.ts';
import { createReplicateFaceswapEngine, replicateFaceswapOptionsFromEnv } from '../engines/replicate/index.ts';
import { createReplicateLoraEngine, replicateLoraOptionsFromEnv } from '../engines/replicate/lora.ts';
import { createEngineRegistry, type EngineRegistry } from '../services/tasks/engine-registry.ts';
import { createDiskMediaStore } from '../storage/disk-media-store.ts';
import type { MediaStore } from '../storage/media-store.ts';
import { createS3MediaStore, s3MediaStoreOptionsFromEnv } from '../storage/s3-media-store.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** `<repo>/.data/media`, or MEDIA_DIR resolved against the repository root. */
function mediaDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(repoRoot, env.MEDIA_DIR ?? '.data/media');
}

export function mediaStoreFromEnv(publicUrl: string, env: NodeJS.ProcessEnv = process.env): MediaStore {
  const kind = env.MEDIA_STORE || (env.S3_BUCKET ? 's3' : 'disk');
  if (kind === 's3') return createS3MediaStore(s3MediaStoreOptionsFromEnv(publicUrl, env));
  if (kind !== 'disk') throw new Error(`MEDIA_STORE must be disk or s3, got ${JSON.stringify(kind)}`);
  return createDiskMediaStore({ dir: mediaDir(env), publicUrl });
}

/** The local engines, in routing order: procedural/sharp kinds, then faceswap on CPU, then the videos. */
function localEngines(): Engine[] {
  // describe counts faces with the face engine's models (loaded on first use)
  return [createLocalEngine({ faces: countFacesLocally }), createLocalFaceEngine(), createLocalVideoEngine(), createLocalAudioEngine()];
}

/**
 * The midjourney-proxy upstream first when configured (Midjourney kinds), the local engines
 * for the rest. A hosted engine pushed before the local ones takes their kinds over (earlier wins).
 */
export function enginesFromEnv(env: NodeJS.ProcessEnv = process.env): EngineRegistry {
  const engines: Engine[] = [];
  if (env.MIDJOURNEY_PROXY_URL) {
    engines.push(createMidjourneyProxyEngine({ baseUrl: env.MIDJOURNEY_PROXY_URL, apiSecret: env.MIDJOURNEY_PROXY_SECRET }));
  }
  // hosted faceswap, ahead of any local engine that can also swap faces
  const replicate = replicateFaceswapOptionsFromEnv(env);
  if (replicate) engines.push(createReplicateFaceswapEngine(replicate));
  // hosted AI photo training and generation; the upload check stays local
  const lora = replicateLoraOptionsFromEnv(env);
  if (lora) engines.push(createReplicateLoraEngine(lora));
  // hosted Flux, Ideogram, video and music models, each family by its own variable
  const predictions = replicatePredictionsConfigFromEnv(env);
  if (predictions) engines.push(...createReplicatePredictionEngines(predictions));
  engines.push(...localEngines());
  return createEngineRegistry(engines);
}

/**
 * Engines whose jobs must run one at a time: local-face computes on one core in one worker
 * thread; local-video keeps both cores busy (libvips frames, the encoder thread), so two at
 * once finish no sooner than one after the other (server/bench/video-bench.ts); local-audio
 * synthesises and encodes on the event loop in slices, so two at once would only interleave.
 */
const SERIAL_ENGINES = new Set(['local-face', 'local-video', 'local-audio']);

export function concurrencyFromEnv(engines: EngineRegistry, env: NodeJS.ProcessEnv = process.env): Record<string, number> {
  const perEngine = env.WORKER_CONCURRENCY && /^[1-9]\d*$/.test(env.WORKER_CONCURRENCY) ? Number(env.WORKER_CONCURRENCY) : 2;
  return Object.fromEntries(engines.names.map((name) => [name, SERIAL_ENGINES.has(name) ? 1 : perEngine]));
}

/** Fills what main.ts did not pass to createApiApp: disk media under `<repo>/.data/media`, the local engines. */
export function withTaskDefaults(publicUrl: string, given: { media?: MediaStore; engines?: EngineRegistry }): { media: MediaStore; engines: EngineRegistry } {
  return {
    media: given.media ?? mediaStoreFromEnv(publicUrl, {}),
    engines: given.engines ?? createEngineRegistry(localEngines()),
  };
}
