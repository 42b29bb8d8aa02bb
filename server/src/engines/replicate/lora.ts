/**
 * @module Engine adapter for AI photos on Replicate (upstream-protocols.md C2, "Flux LoRA
 * recipe"): ai-photo-train trains a LoRA, ai-photo-generate runs predictions on it.
 *
 * Training: the photos the worker read (the upload's kept photos) are zipped (stored, not
 * deflated) and uploaded through the Files API (POST /v1/files, multipart `content`); the
 * file's `urls.get` is the trainer's `input_images`. Then POST
 * /v1/models/{owner}/{name}/versions/{version}/trainings {destination, input: {input_images,
 * trigger_word, …}} on the configured trainer (default DEFAULT_LORA_TRAINER) into the
 * configured destination model (which must exist), and GET /v1/trainings/{id} is polled to
 * the end. Success records `output.version` (the destination's new version) and
 * `output.weights` in the result data (`upstream_version`, `weights`) and the training id as
 * upstreamId; the uploaded zip is deleted (best effort: Replicate expires files anyway).
 *
 * Generation: POST /v1/predictions {version: <the trained version id>, input: {prompt,
 * num_outputs, aspect_ratio (custom with width and height), seed, …}}, run by the predictions
 * engine (predictions.ts) like every hosted model; the output URLs come back as a `set` the
 * worker copies into the media store (Replicate deletes outputs after about an hour). The prompt gets the trigger word
 * (and the person's gender word) in front unless it already names the trigger word.
 *
 * Both report the upstream id as soon as it exists, so a retry after a crash resumes the same
 * training or prediction instead of paying twice.
 */
import { defineEngine } from '../define-engine.ts';
import { type Engine, type EngineImage, type EngineJob, type EngineResult, EngineError, type ImageInput, type ProgressListener } from '../engine.ts';
import { type CallOptions, createReplicateClient, pollUntilDone, type ReplicateClientOptions } from './client.ts';
import { jsonObjectFromEnv } from './env.ts';
import { createReplicatePredictionsEngine, type FamilyResult, type PredictionFamily } from './predictions.ts';
import { lastErrorLine, mapStatus, parseModelRef, progressFromLogs, type ReplicateFile, readOutputUrls, type Training, versionIdOf } from './protocol.ts';
import { zipStored } from './zip.ts';

/**
 * ostris/flux-dev-lora-trainer, the version Replicate's "Fine-tune FLUX.1 with an API" guide
 * trains with. Pinned so a new trainer release changes nothing until someone chooses it
 * (REPLICATE_LORA_TRAINER).
 */
export const DEFAULT_LORA_TRAINER = 'ostris/flux-dev-lora-trainer:e440909d3512c31646ee2e0c7d6f6f4923224863a6a10c494606e79fb5844497';

export interface ReplicateLoraOptions extends ReplicateClientOptions {
  /** `owner/name` of an existing model of the account that receives the trained versions. */
  destination: string;
  /** `owner/name:<version id>` of the trainer. Default DEFAULT_LORA_TRAINER. */
  trainer?: string;
  /** More trainer inputs (steps, lora_rank, …); input_images and trigger_word are set here. */
  trainingInput?: Record<string, unknown>;
  /** More prediction inputs (num_inference_steps, lora_scale, output_format, …). */
  generationInput?: Record<string, unknown>;
  /** First delay between polls, growing by half each time. Default 2 s. */
  pollIntervalMs?: number;
  /** Longest delay between polls. Default 15 s. */
  maxPollIntervalMs?: number;
  /** Cancel a training and fail after this long. Default 2 hours. */
  trainingTimeoutMs?: number;
  /** Cancel a prediction and fail after this long. Default 10 minutes. */
  generationTimeoutMs?: number;
  /** For the zip upload. Default 5 minutes. */
  uploadTimeoutMs?: number;
  /** Consecutive failed polls tolerated before the run fails (retryably, resumable). Default 5. */
  maxPollFailures?: number;
}

const NAME = 'replicate-lora';
const UNAVAILABLE = 'The AI photo service is unavailable right now, please try again.';
const BUSY = 'The AI photo service is busy, please try again shortly.';
const EXTENSIONS: Readonly<Record<string, string>> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp', 'image/gif': 'gif' };

type TrainJob = Extract<EngineJob, { kind: 'ai-photo-train' }>;
type GenerateJob = Extract<EngineJob, { kind: 'ai-photo-generate' }>;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The prompt sent upstream: the trigger word (and who it is) in front unless the prompt names it already. */
export function loraPrompt(job: Pick<GenerateJob, 'identity' | 'prompt'>): string {
  const word = job.identity.triggerWord;
  if (new RegExp(`(^|[^\\p{L}\\p{N}_])${escapeRegExp(word)}($|[^\\p{L}\\p{N}_])`, 'iu').test(job.prompt)) return job.prompt;
  return `photo of ${word}, a ${job.identity.subject.gender === 'male' ? 'man' : 'woman'}, ${job.prompt}`;
}

export function createReplicateLoraEngine(options: ReplicateLoraOptions): Engine {
  const trainerText = options.trainer ?? DEFAULT_LORA_TRAINER;
  const trainer = parseModelRef(trainerText);
  if (!trainer?.version) throw new Error(`Replicate trainer must be owner/name:<64-hex version id>, got ${JSON.stringify(trainerText)}`);
  const destination = parseModelRef(options.destination);
  if (!destination || destination.version) throw new Error(`Replicate destination must be owner/name, got ${JSON.stringify(options.destination)}`);
  const trainingsPath = `/v1/models/${encodeURIComponent(trainer.owner)}/${encodeURIComponent(trainer.name)}/versions/${trainer.version}/trainings`;
  const destinationName = `${destination.owner}/${destination.name}`;
  const pollIntervalMs = options.pollIntervalMs ?? 2000;
  const maxPollIntervalMs = options.maxPollIntervalMs ?? 15_000;
  const trainingTimeoutMs = options.trainingTimeoutMs ?? 2 * 60 * 60_000;
  const generationTimeoutMs = options.generationTimeoutMs ?? 10 * 60_000;
  const uploadTimeoutMs = options.uploadTimeoutMs ?? 5 * 60_000;
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const maxPollFailures = options.maxPollFailures ?? 5;
  const client = createReplicateClient(options, { unavailable: UNAVAILABLE, busy: BUSY, rejected: 'The AI photo service refused the request.' });
  const { call } = client;

  const requireId = <T extends { id?: unknown }>(value: T | undefined, what: string): T & { id: string } => {
    if (!value || typeof value.id !== 'string' || !value.id) {
      throw new EngineError('upstream_unavailable', UNAVAILABLE, { retryable: true, detail: `${what}: no id in the answer` });
    }
    return value as T & { id: string };
  };

  /** Best effort, never failing the run: a cancel or a delete that does not go through changes nothing for the user. */
  const quietly = (method: 'POST' | 'DELETE', path: string, callOptions: CallOptions = {}) =>
    call(method, path, AbortSignal.timeout(requestTimeoutMs), undefined, callOptions).then(
      () => undefined,
      () => undefined,
    );

  const progressOf = (logs: string | null | undefined, stage: string, elapsedMs: number, typicalMs: number) => {
    if (stage === 'starting') return 5;
    const logged = progressFromLogs(logs);
    if (logged !== undefined) return 10 + Math.floor(logged * 0.85);
    // no progress bar in the logs: creep towards 90 % over the time the work usually takes
    return 10 + Math.floor(80 * (1 - Math.exp(-elapsedMs / typicalMs)));
  };

  // ---- training ------------------------------------------------------------------------

  async function uploadPhotos(images: readonly ImageInput[], signal: AbortSignal): Promise<string> {
    const zip = zipStored(
      images.map((image, i) => ({ name: `photo-${String(i + 1).padStart(2, '0')}.${EXTENSIONS[image.contentType] ?? 'jpg'}`, data: image.data })),
    );
    const form = new FormData();
    form.append('content', new Blob([new Uint8Array(zip)], { type: 'application/zip' }), 'photos.zip');
    const file = requireId(await call<ReplicateFile>('POST', '/v1/files', signal, form, { timeoutMs: uploadTimeoutMs }), 'POST /v1/files');
    const url = file.urls?.get;
    if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) {
      throw new EngineError('upstream_unavailable', UNAVAILABLE, { retryable: true, detail: `POST /v1/files: no urls.get for file ${file.id}` });
    }
    return url;
  }

  async function createTraining(job: TrainJob, signal: AbortSignal): Promise<Training> {
    const inputImages = await uploadPhotos(job.images, signal);
    const body = { destination: destinationName, input: { ...options.trainingInput, input_images: inputImages, trigger_word: job.triggerWord } };
    return requireId(await call<Training>('POST', trainingsPath, signal, body), `POST ${trainingsPath}`);
  }

  const getTraining = (id: string, signal: AbortSignal, missingOk = false) =>
    call<Training>('GET', `/v1/trainings/${encodeURIComponent(id)}`, signal, undefined, { missingOk });

  /** The zip this training read, deleted once it is over (our own upload only). */
  async function deleteInputFile(training: Training): Promise<void> {
    const url = training.input?.input_images;
    const match = typeof url === 'string' && url.startsWith(`${client.baseUrl}/v1/files/`) ? /\/v1\/files\/([^/?#]+)$/.exec(url) : null;
    if (match) await quietly('DELETE', `/v1/files/${match[1]}`, { missingOk: true });
  }

  async function train(job: TrainJob, report: ProgressListener, signal: AbortSignal): Promise<EngineResult> {
    let training = job.resumeUpstreamId ? await getTraining(job.resumeUpstreamId, signal, true) : undefined;
    // aborted: it never ran (not charged); start again
    if (training && mapStatus(training.status).kind === 'aborted') training = undefined;
    if (!training) {
      report({ percentage: 0, status: 'starting' });
      training = await createTraining(job, signal);
    }
    const { id } = training;
    report({ percentage: 3, status: 'submitted', upstreamId: id });
    const { job: done, state } = await pollUntilDone(
      training,
      {
        get: async (tid, s) => (await getTraining(tid, s)) as Training,
        cancel: (tid) => quietly('POST', `/v1/trainings/${encodeURIComponent(tid)}/cancel`),
        onActive: (t, stage, elapsedMs) => report({ percentage: progressOf(t.logs, stage, elapsedMs, 15 * 60_000), status: stage }),
        timedOut: (tid) =>
          new EngineError('timeout', 'The training took too long.', { upstreamId: tid, detail: `training ${tid} cancelled after ${trainingTimeoutMs} ms` }),
        intervalMs: pollIntervalMs,
        maxIntervalMs: maxPollIntervalMs,
        timeoutMs: trainingTimeoutMs,
        maxFailures: maxPollFailures,
      },
      signal,
    );
    if (state.kind !== 'aborted') await deleteInputFile(done);
    switch (state.kind) {
      case 'succeeded': {
        const version = done.output?.version;
        if (!versionIdOf(version)) {
          throw new EngineError('upstream_failed', 'The training finished without a model.', {
            upstreamId: id,
            detail: `training ${id} output ${JSON.stringify(done.output ?? null).slice(0, 200)}`,
          });
        }
        return {
          engine: NAME,
          method: 'flux-lora-training',
          simulated: false,
          note: `A LoRA trained on ${job.images.length} photos with ${trainerText} on Replicate, as a version of ${destinationName}.`,
          layout: 'none',
          images: [],
          upstreamId: id,
          data: { upstream_version: version, weights: typeof done.output?.weights === 'string' ? done.output.weights : null },
        };
      }
      case 'failed': {
        const line = lastErrorLine(done.error);
        throw new EngineError('upstream_failed', line ? `The training failed: ${line}` : 'The training failed.', {
          upstreamId: id,
          detail: `training ${id} failed: ${String(done.error ?? '').slice(0, 500)}`,
        });
      }
      case 'canceled':
        throw new EngineError('upstream_failed', 'The training was cancelled by the AI photo service.', { upstreamId: id });
      default:
        throw new EngineError('upstream_busy', BUSY, { retryable: true, upstreamId: id, detail: `training ${id} aborted` });
    }
  }

  // ---- generation: a prediction on the trained version, run by the predictions engine ----

  function generationInput(job: GenerateJob): Record<string, unknown> {
    const input: Record<string, unknown> = { ...options.generationInput, prompt: loraPrompt(job), num_outputs: job.count };
    if (job.aspectRatio) input.aspect_ratio = job.aspectRatio;
    else if (job.width && job.height) Object.assign(input, { aspect_ratio: 'custom', width: job.width, height: job.height });
    if (job.seed !== undefined) input.seed = job.seed;
    return input;
  }

  const generation: PredictionFamily<GenerateJob> = {
    name: NAME,
    kinds: ['ai-photo-generate'],
    words: { service: 'The AI photo service', work: 'The photo generation', empty: 'The photo generation finished without photos.' },
    typicalMs: 20_000,
    failureMessage(error) {
      const line = lastErrorLine(error);
      if (typeof error === 'string' && /nsfw/i.test(error)) return 'The photos were flagged as not safe for work; try another prompt.';
      return line ? `The photo generation failed: ${line}` : 'The photo generation failed.';
    },
    async request(job) {
      const { identity } = job;
      if (identity.engine !== NAME) throw new EngineError('unsupported', `This model was trained by another engine (${identity.engine}); train it again.`);
      const version = versionIdOf(identity.data.upstream_version);
      if (!version) throw new EngineError('invalid_input', 'This model has no trained version to generate from; train it again.');
      return { model: `${destinationName}:${version}`, input: generationInput(job) };
    },
    result(output, job): FamilyResult | undefined {
      const urls = readOutputUrls(output).slice(0, job.count);
      if (urls.length === 0) return undefined;
      return {
        method: 'flux-lora',
        simulated: false,
        note: `Generated on Replicate with the LoRA trained as ${String(job.identity.data.upstream_version)}.`,
        layout: 'set',
        images: urls.map((url): EngineImage => ({ source: 'url', url })),
      };
    },
  };
  const generator = createReplicatePredictionsEngine({
    ...options,
    family: generation,
    pollIntervalMs: Math.min(pollIntervalMs, 1000),
    maxPollIntervalMs: Math.min(maxPollIntervalMs, 5000),
    timeoutMs: generationTimeoutMs,
    maxPollFailures,
  });

  return defineEngine({
    name: NAME,
    kinds: ['ai-photo-train', 'ai-photo-generate'],
    async execute(job, report, signal) {
      if (job.kind === 'ai-photo-train') return train(job, report, signal);
      if (job.kind === 'ai-photo-generate') return generator.run(job, report, signal);
      throw new EngineError('unsupported', `This engine cannot run ${job.kind} tasks.`);
    },
    // the id is a training's or a generation's prediction's: the other cancel answers 404 (ignored)
    async cancelUpstream(id) {
      await Promise.all([quietly('POST', `/v1/trainings/${encodeURIComponent(id)}/cancel`, { missingOk: true }), generator.cancelUpstream?.(id)]);
    },
  });
}

/**
 * The adapter's options from REPLICATE_LORA_DESTINATION (unset: no hosted AI photos),
 * REPLICATE_API_TOKEN (then required), REPLICATE_LORA_TRAINER, REPLICATE_LORA_TRAINING_INPUT
 * and REPLICATE_LORA_GENERATION_INPUT (JSON objects) and REPLICATE_API_BASE. Throws naming
 * the variable that is wrong.
 */
export function replicateLoraOptionsFromEnv(env: NodeJS.ProcessEnv): ReplicateLoraOptions | undefined {
  const destination = env.REPLICATE_LORA_DESTINATION?.trim();
  if (!destination) return undefined;
  const apiToken = env.REPLICATE_API_TOKEN?.trim();
  if (!apiToken) throw new Error('REPLICATE_LORA_DESTINATION is set but REPLICATE_API_TOKEN is not');
  const model = parseModelRef(destination);
  if (!model || model.version) throw new Error(`REPLICATE_LORA_DESTINATION must be owner/name (an existing model), got ${JSON.stringify(destination)}`);
  const trainer = env.REPLICATE_LORA_TRAINER?.trim() || undefined;
  if (trainer && !parseModelRef(trainer)?.version) {
    throw new Error(`REPLICATE_LORA_TRAINER must be owner/name:<64-hex version id>, got ${JSON.stringify(trainer)}`);
  }
  return {
    apiToken,
    destination,
    trainer,
    trainingInput: jsonObjectFromEnv(env, 'REPLICATE_LORA_TRAINING_INPUT'),
    generationInput: jsonObjectFromEnv(env, 'REPLICATE_LORA_GENERATION_INPUT'),
    baseUrl: env.REPLICATE_API_BASE?.trim() || undefined,
  };
}
