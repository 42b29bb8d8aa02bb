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
 * MIDJOURNEY_PROXY_POLL_MS (how often a running Midjourney task is polled upstream, default 3000),
 * WORKER_CONCURRENCY (jobs per engine at once in each worker process, default 2; the local face,
 * video and audio engines always 1): every worker process adds this much capacity.
 * ENGINE_MAX_RUNNING (optional: at most this many jobs of each engine at once across all workers)
 * and ENGINE_MAX_RUNNING_<ENGINE> (the same for one engine, its name upper-cased with `-` as `_`,
 * e.g. ENGINE_MAX_RUNNING_MIDJOURNEY_PROXY=10; wins over ENGINE_MAX_RUNNING): an upstream's rate limit.
 * WORKER_LEASE_MS (a claimed job returns to the queue this long after its worker's last
 * heartbeat, default 10000), WORKER_HEARTBEAT_MS (default a third of the lease),
 * WORKER_SHUTDOWN_GRACE_MS (on SIGTERM, how long running jobs may finish before they are handed
 * back, default 20000 in a worker process, 0 in embedded mode); see docs/operations/scaling.md.
 * QUEUE_FAIRNESS and QUEUE_MAX_RUNNING_PER_ACCOUNT (how workers share a queue between accounts)
 * are read by the worker itself: see queue-fairness.ts; so are JOB_TIME_LIMIT_SECONDS and
 * JOB_TIME_LIMIT_SECONDS_<ENGINE> (how long one job may run before it is stopped, failed and
 * refunded; built-in limits per engine): see time-limits.ts.
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
    engines.push(
      createMidjourneyProxyEngine({
        baseUrl: env.MIDJOURNEY_PROXY_URL,
        apiSecret: env.MIDJOURNEY_PROXY_SECRET,
        pollIntervalMs: positive(env, 'MIDJOURNEY_PROXY_POLL_MS'),
      }),
    );
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

/** Jobs of each engine one worker process runs at once (WORKER_CONCURRENCY). */
export function concurrencyFromEnv(engines: EngineRegistry, env: NodeJS.ProcessEnv = process.env): Record<string, number> {
  const perEngine = env.WORKER_CONCURRENCY && /^[1-9]\d*$/.test(env.WORKER_CONCURRENCY) ? Number(env.WORKER_CONCURRENCY) : 2;
  return Object.fromEntries(engines.names.map((name) => [name, SERIAL_ENGINES.has(name) ? 1 : perEngine]));
}

/** A positive whole number from `env[name]`, undefined when unset; anything else is refused. */
function positive(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  if (!/^[1-9]\d*$/.test(value)) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(value)}`);
  return Number(value);
}

/** `ENGINE_MAX_RUNNING_<ENGINE>` for an engine name: `midjourney-proxy` → ENGINE_MAX_RUNNING_MIDJOURNEY_PROXY. */
export function engineCapVariable(engine: string): string {
  return `ENGINE_MAX_RUNNING_${engine.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/**
 * Cluster-wide caps by engine (ENGINE_MAX_RUNNING_<ENGINE>, else ENGINE_MAX_RUNNING); an engine
 * with neither set has none: its capacity is the sum of the workers' WORKER_CONCURRENCY.
 */
export function clusterLimitsFromEnv(engines: EngineRegistry, env: NodeJS.ProcessEnv = process.env): Record<string, number> {
  const all = positive(env, 'ENGINE_MAX_RUNNING');
  const limits: Record<string, number> = {};
  for (const name of engines.names) {
    const cap = positive(env, engineCapVariable(name)) ?? all;
    if (cap !== undefined) limits[name] = cap;
  }
  return limits;
}

/** Lease, heartbeat and shutdown grace of a worker (WORKER_LEASE_MS, WORKER_HEARTBEAT_MS, WORKER_SHUTDOWN_GRACE_MS). */
export function workerTimingFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  defaults: { shutdownGraceMs: number } = { shutdownGraceMs: 20_000 },
): { leaseMs: number; heartbeatMs: number; shutdownGraceMs: number } {
  const leaseMs = positive(env, 'WORKER_LEASE_MS') ?? 10_000;
  const heartbeatMs = positive(env, 'WORKER_HEARTBEAT_MS') ?? Math.max(100, Math.floor(leaseMs / 3));
  if (heartbeatMs >= leaseMs) throw new Error(`WORKER_HEARTBEAT_MS (${heartbeatMs}) must be shorter than WORKER_LEASE_MS (${leaseMs})`);
  const grace = env.WORKER_SHUTDOWN_GRACE_MS;
  if (grace !== undefined && grace !== '' && !/^\d+$/.test(grace))
    throw new Error(`WORKER_SHUTDOWN_GRACE_MS must be a whole number of milliseconds, got ${JSON.stringify(grace)}`);
  return { leaseMs, heartbeatMs, shutdownGraceMs: grace ? Number(grace) : defaults.shutdownGraceMs };
}

/** Fills what main.ts did not pass to createApiApp: disk media under `<repo>/.data/media`, the local engines. */
export function withTaskDefaults(publicUrl: string, given: { media?: MediaStore; engines?: EngineRegistry }): { media: MediaStore; engines: EngineRegistry } {
  return {
    media: given.media ?? mediaStoreFromEnv(publicUrl, {}),
    engines: given.engines ?? createEngineRegistry(localEngines()),
  };
}
