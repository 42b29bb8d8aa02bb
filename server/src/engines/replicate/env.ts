/**
 * @module The hosted prediction engines the environment asks for, one per family, all on
 * REPLICATE_API_TOKEN (and REPLICATE_API_BASE, tests only). A family runs on Replicate only
 * when its own variable names a model; the rest stay on the local engines:
 *
 * - REPLICATE_FLUX_MODEL: the model of flux tasks that name none (`owner/name` or
 *   `owner/name:<version>`); REPLICATE_FLUX_MODELS: JSON `{ "<v1 model>": "<model>" }` over
 *   the defaults of families/flux.ts (flux-schnell, flux-dev, flux-pro, flux-pro-1.1,
 *   flux-pro-1.1-ultra). Either turns hosted Flux on.
 * - REPLICATE_IDEOGRAM_MODEL: the model of ideogram-imagine; REPLICATE_IDEOGRAM_MODELS: JSON
 *   `{ imagine, upscale, describe }` (families/ideogram.ts; its `imagine` wins over the single
 *   variable).
 * - REPLICATE_VIDEO_MODELS: JSON `{ luma, kling, kling-pro, kling-tryon, runway }` (families/video.ts).
 * - REPLICATE_AUDIO_MODELS: JSON `{ instrumental, vocals }` (families/audio.ts).
 *
 * Faceswap (REPLICATE_FACESWAP_*, on by the token alone) and AI photos
 * (REPLICATE_LORA_DESTINATION) are read by their own adapters (index.ts, lora.ts).
 */
import type { Engine, FluxModel } from '../engine.ts';
import { type AudioModels, audioFamily, AUDIO_MODEL_KEYS } from './families/audio.ts';
import { DEFAULT_FLUX_MODELS, type FluxFamilyOptions, fluxFamily } from './families/flux.ts';
import { IDEOGRAM_MODEL_KEYS, type IdeogramModels, ideogramFamily } from './families/ideogram.ts';
import { VIDEO_MODEL_KEYS, type VideoModels, videoFamily } from './families/video.ts';
import { createReplicatePredictionsEngine, type ReplicatePredictionsOptions } from './predictions.ts';
import { parseModelRef } from './protocol.ts';

/** A JSON object from the environment, or undefined when the variable is unset or blank; throws naming it when it is not an object. */
export function jsonObjectFromEnv(env: NodeJS.ProcessEnv, name: string): Record<string, unknown> | undefined {
  const text = env[name]?.trim();
  if (!text) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${name} must be a JSON object, got ${JSON.stringify(text)}`);
  return value as Record<string, unknown>;
}

const MODEL_FORMAT = 'owner/name or owner/name:<64-hex version id>';

function modelFromEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const text = env[name]?.trim();
  if (!text) return undefined;
  if (!parseModelRef(text)) throw new Error(`${name} must be ${MODEL_FORMAT}, got ${JSON.stringify(text)}`);
  return text;
}

/** A JSON map of model references whose keys must be among `keys`. */
function modelMapFromEnv<K extends string>(env: NodeJS.ProcessEnv, name: string, keys: readonly K[]): Partial<Record<K, string>> | undefined {
  const map = jsonObjectFromEnv(env, name);
  if (!map) return undefined;
  const models: Partial<Record<K, string>> = {};
  for (const [key, value] of Object.entries(map)) {
    if (!(keys as readonly string[]).includes(key)) throw new Error(`${name}: unknown key ${JSON.stringify(key)} (known: ${keys.join(', ')})`);
    if (typeof value !== 'string' || !parseModelRef(value)) throw new Error(`${name}.${key} must be ${MODEL_FORMAT}, got ${JSON.stringify(value)}`);
    models[key as K] = value.trim();
  }
  return models;
}

export interface HostedPredictionsConfig {
  apiToken: string;
  baseUrl?: string;
  flux?: FluxFamilyOptions;
  ideogram?: IdeogramModels;
  video?: VideoModels;
  audio?: AudioModels;
}

/** The families the environment turns on, or undefined when none is. Throws naming the variable that is wrong. */
export function replicatePredictionsConfigFromEnv(env: NodeJS.ProcessEnv): HostedPredictionsConfig | undefined {
  const fluxModel = modelFromEnv(env, 'REPLICATE_FLUX_MODEL');
  const fluxModels = modelMapFromEnv(env, 'REPLICATE_FLUX_MODELS', Object.keys(DEFAULT_FLUX_MODELS) as FluxModel[]);
  const ideogramModel = modelFromEnv(env, 'REPLICATE_IDEOGRAM_MODEL');
  const ideogramModels = modelMapFromEnv(env, 'REPLICATE_IDEOGRAM_MODELS', IDEOGRAM_MODEL_KEYS);
  const video = modelMapFromEnv(env, 'REPLICATE_VIDEO_MODELS', VIDEO_MODEL_KEYS);
  const audio = modelMapFromEnv(env, 'REPLICATE_AUDIO_MODELS', AUDIO_MODEL_KEYS);
  const config: Omit<HostedPredictionsConfig, 'apiToken'> = {};
  if (fluxModel || fluxModels) config.flux = { model: fluxModel, models: fluxModels };
  if (ideogramModel || ideogramModels) config.ideogram = { ...(ideogramModel ? { imagine: ideogramModel } : {}), ...ideogramModels };
  if (video && Object.keys(video).length) config.video = video;
  if (audio && Object.keys(audio).length) config.audio = audio;
  if (Object.keys(config).length === 0) return undefined;
  const apiToken = env.REPLICATE_API_TOKEN?.trim();
  if (!apiToken)
    throw new Error(
      'Hosted Replicate models are configured (REPLICATE_FLUX_*, _IDEOGRAM_*, _VIDEO_MODELS or _AUDIO_MODELS) but REPLICATE_API_TOKEN is not set',
    );
  return { apiToken, baseUrl: env.REPLICATE_API_BASE?.trim() || undefined, ...config };
}

/** Polling per family: pictures take seconds, videos and songs minutes. */
const PICTURES = { pollIntervalMs: 1000, maxPollIntervalMs: 5000, timeoutMs: 10 * 60_000 };
const MEDIA = { pollIntervalMs: 2000, maxPollIntervalMs: 10_000, timeoutMs: 20 * 60_000 };

type Timings = Pick<ReplicatePredictionsOptions<never>, 'pollIntervalMs' | 'maxPollIntervalMs' | 'timeoutMs' | 'maxPollFailures'>;

/** One engine per configured family, to be routed ahead of the local engines; `timings` (tests) replace each family's. */
export function createReplicatePredictionEngines(config: HostedPredictionsConfig, timings: Timings = {}): Engine[] {
  const client = { apiToken: config.apiToken, baseUrl: config.baseUrl };
  const engines: Engine[] = [];
  if (config.flux) engines.push(createReplicatePredictionsEngine({ ...client, ...PICTURES, ...timings, family: fluxFamily(config.flux) }));
  if (config.ideogram) engines.push(createReplicatePredictionsEngine({ ...client, ...PICTURES, ...timings, family: ideogramFamily(config.ideogram) }));
  if (config.video) engines.push(createReplicatePredictionsEngine({ ...client, ...MEDIA, ...timings, family: videoFamily(config.video) }));
  if (config.audio) engines.push(createReplicatePredictionsEngine({ ...client, ...MEDIA, ...timings, family: audioFamily(config.audio) }));
  // a family whose keys named no kind it can run (e.g. only kling-pro) takes nothing over
  return engines.filter((engine) => engine.kinds.length > 0);
}
