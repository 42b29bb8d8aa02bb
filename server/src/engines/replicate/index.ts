/**
 * @module Engine adapter for a face-swap model hosted on Replicate (upstream-protocols.md C2):
 * create a prediction, then poll GET /v1/predictions/{id} with a growing interval until it is
 * terminal. Polling rather than `Prefer: wait`: the prediction id is known (and reported, so
 * a retry after a crash watches it instead of paying twice) before any waiting starts.
 * Pictures go as the user's URL when it is public https (Replicate fetches it), else as a
 * data URI of the bytes the worker read (through the Files API when large). The output URL is returned as is; the worker copies
 * it into our media store, since Replicate deletes API outputs after about an hour.
 *
 * Default model `cdingram/face-swap` (inputs `swap_image`: the face to use, `input_image`:
 * the picture to put it on; output one image URL). Another model works when its input names
 * are configured and its output is a URL or a list of URLs. The create, poll, resume and
 * cancel are the predictions engine's (predictions.ts); this is its one-model family.
 */
import type { Engine, EngineImage, EngineJob } from '../engine.ts';
import type { ReplicateClientOptions } from './client.ts';
import { createReplicatePredictionsEngine, type FamilyResult, type PredictionFamily } from './predictions.ts';
import { failureMessage, parseModelRef, readOutputUrl } from './protocol.ts';

export const DEFAULT_FACESWAP_MODEL = 'cdingram/face-swap:d1d6ea8c8be89d664a07a457526f7128109dee7030fdac424788d762c71ed111';

/** The client's options (token, base URL, timeouts, 429 handling) and the model's. */
export interface ReplicateFaceswapOptions extends ReplicateClientOptions {
  /** `owner/name` (latest version) or `owner/name:<version id>`. Default DEFAULT_FACESWAP_MODEL. */
  model?: string;
  /** The model's input field for the face to use. Default `swap_image`. */
  sourceInput?: string;
  /** The model's input field for the picture whose face is replaced. Default `input_image`. */
  targetInput?: string;
  /** First delay between polls, growing by half each time. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Longest delay between polls. Default 5000 ms. */
  maxPollIntervalMs?: number;
  /** Cancel the prediction and fail after this long. Default 10 minutes (Replicate's own limit is 30). */
  timeoutMs?: number;
  /** Consecutive failed polls tolerated before the run fails (retryably, resumable). Default 5. */
  maxPollFailures?: number;
}

type FaceswapJob = Extract<EngineJob, { kind: 'faceswap' }>;

/** The face swap as a family of the predictions engine: one model, its two picture inputs, one picture out. */
function faceswapFamily(modelText: string, sourceInput: string, targetInput: string): PredictionFamily<FaceswapJob> {
  return {
    name: 'replicate-faceswap',
    kinds: ['faceswap'],
    words: { service: 'The face swap service', work: 'The face swap', empty: 'The face swap finished without an image.' },
    typicalMs: 15_000,
    failureMessage,
    async request(job, files) {
      return { model: modelText, input: { [sourceInput]: await files.value(job.source), [targetInput]: await files.value(job.target) } };
    },
    result(output): FamilyResult | undefined {
      const url = readOutputUrl(output);
      if (!url) return undefined;
      const image: EngineImage = { source: 'url', url };
      return { method: 'faceswap', simulated: false, note: `${modelText} on Replicate`, layout: 'single', image, images: [image] };
    },
  };
}

export function createReplicateFaceswapEngine(options: ReplicateFaceswapOptions): Engine {
  const modelText = options.model ?? DEFAULT_FACESWAP_MODEL;
  if (!parseModelRef(modelText)) throw new Error(`Replicate model must be owner/name or owner/name:<64-hex version id>, got ${JSON.stringify(modelText)}`);
  const family = faceswapFamily(modelText, options.sourceInput ?? 'swap_image', options.targetInput ?? 'input_image');
  return createReplicatePredictionsEngine({ ...options, family });
}

/**
 * The adapter's options from REPLICATE_API_TOKEN (unset: no hosted face swap),
 * REPLICATE_FACESWAP_MODEL, REPLICATE_FACESWAP_SOURCE_INPUT, REPLICATE_FACESWAP_TARGET_INPUT
 * and REPLICATE_API_BASE. Throws naming the variable when the model is not a model reference.
 */
export function replicateFaceswapOptionsFromEnv(env: NodeJS.ProcessEnv): ReplicateFaceswapOptions | undefined {
  const apiToken = env.REPLICATE_API_TOKEN?.trim();
  if (!apiToken) return undefined;
  const model = env.REPLICATE_FACESWAP_MODEL?.trim() || undefined;
  if (model && !parseModelRef(model)) {
    throw new Error(`REPLICATE_FACESWAP_MODEL must be owner/name or owner/name:<64-hex version id>, got ${JSON.stringify(model)}`);
  }
  return {
    apiToken,
    model,
    sourceInput: env.REPLICATE_FACESWAP_SOURCE_INPUT?.trim() || undefined,
    targetInput: env.REPLICATE_FACESWAP_TARGET_INPUT?.trim() || undefined,
    baseUrl: env.REPLICATE_API_BASE?.trim() || undefined,
  };
}
