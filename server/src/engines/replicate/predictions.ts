/**
 * @module A generic engine for models run through Replicate's predictions API
 * (upstream-protocols.md C2), configured per family (flux, ideogram, video, audio: see
 * families/): the job kinds it runs, the model each job runs on (`owner/name` creates with
 * POST /v1/models/{owner}/{name}/predictions, `owner/name:<version id>` with POST
 * /v1/predictions), a typed mapper from the job to the model's documented input names, and one
 * from the prediction's output to the result (pictures, videos, songs or texts).
 *
 * The HTTP client, bearer auth, 429 `retry-after`, problem details and the poll loop are
 * client.ts's. This adds what every family does the same way (faceswap, index.ts, and the AI
 * photo generation of lora.ts are families too): file inputs (the user's public https URL as
 * is, small bytes as a data URI, larger ones through the Files API, deleted once the
 * prediction is over), the prediction id
 * reported before any waiting (a retry watches it again instead of paying twice; an `aborted`
 * one, or a success whose output Replicate already deleted, starts a new one), progress from
 * the logs' progress bar or creeping with time, cancel on timeout, and failures a user can
 * read. Output URLs are returned as they are; the worker copies them into the media store
 * (Replicate deletes API outputs after about an hour).
 */
import { checkImageUrl } from '../../storage/image-url.ts';
import { defineEngine } from '../define-engine.ts';
import { type Engine, type EngineJob, type EngineResult, EngineError, type ImageInput, type ProgressListener } from '../engine.ts';
import { type CallOptions, createReplicateClient, pollUntilDone, type ReplicateClientOptions } from './client.ts';
import { createRequest, lastErrorLine, mapStatus, type Prediction, parseModelRef, progressFromLogs, type ReplicateFile } from './protocol.ts';

/** What a family asks for one job: the model (`owner/name` or `owner/name:<version id>`) and its input. */
export interface PredictionRequest {
  model: string;
  input: Record<string, unknown>;
}

/** Turns the files a job names into values a model's file input takes. */
export interface FileInputs {
  /** The user's public https URL, else a data URI of small bytes, else an uploaded file's URL. */
  value(file: ImageInput): Promise<string>;
}

/** The result a family makes of a prediction's output; `engine` and `upstreamId` are added here. */
export type FamilyResult = Omit<EngineResult, 'engine' | 'upstreamId'>;

/** How the user is told about this family's service: `{ service: 'The Flux service', work: 'The image generation' }`. */
interface FamilyWords {
  service: string;
  work: string;
  /** A success without a usable output. Default `<work> finished without a result.` */
  empty?: string;
}

export interface PredictionFamily<J extends EngineJob = EngineJob> {
  /** The engine's (and its job queue's) name, e.g. `replicate-flux`. */
  name: string;
  kinds: readonly J['kind'][];
  words: FamilyWords;
  /**
   * The model and its input for a job. Throws EngineError('unsupported') for a job the
   * configured model cannot do (said plainly, refunded), 'invalid_input' for one nobody could.
   */
  request(job: J, files: FileInputs): Promise<PredictionRequest>;
  /** The result of a succeeded prediction, or undefined when its output holds nothing usable. */
  result(output: unknown, job: J, prediction: Prediction, model: string): FamilyResult | undefined;
  /** How long a run usually takes: progress creeps towards 90 % over about this long when the logs show no bar. */
  typicalMs: number;
  /** What to tell the user about a failed prediction's error; default: a safety refusal said plainly, else the error's last line. */
  failureMessage?(error: unknown): string;
}

export interface ReplicatePredictionsOptions<J extends EngineJob> extends ReplicateClientOptions {
  family: PredictionFamily<J>;
  /** First delay between polls, growing by half each time. Default 1 s. */
  pollIntervalMs?: number;
  /** Longest delay between polls. Default 5 s. */
  maxPollIntervalMs?: number;
  /** Cancel the prediction and fail after this long. Default 10 minutes (Replicate's own limit is 30). */
  timeoutMs?: number;
  /** Consecutive failed polls tolerated before the run fails (retryably, resumable). Default 5. */
  maxPollFailures?: number;
  /** Files up to this many bytes go as data URIs (Replicate recommends them under 1 MB); larger ones through the Files API. Default 750 000. */
  maxDataUriBytes?: number;
  /** For a Files API upload. Default 5 minutes. */
  uploadTimeoutMs?: number;
}

const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
  'audio/ogg': 'ogg',
  'audio/mp4': 'm4a',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
};

/** A model's error that says the content was refused by its safety checker. */
const NSFW = /nsfw|not safe for work|flagged as sensitive|content (was )?(moderated|flagged)|safety (check|filter)/i;

/** The user's URL when Replicate can fetch it itself: https on a public host. */
const isPublicHttps = (url: string) => /^https:\/\//i.test(url) && 'url' in checkImageUrl(url, { embedded: false });

export function createReplicatePredictionsEngine<J extends EngineJob>(options: ReplicatePredictionsOptions<J>): Engine {
  const { family } = options;
  const { service, work } = family.words;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const maxPollIntervalMs = options.maxPollIntervalMs ?? 5000;
  const timeoutMs = options.timeoutMs ?? 10 * 60_000;
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const maxPollFailures = options.maxPollFailures ?? 5;
  const maxDataUriBytes = options.maxDataUriBytes ?? 750_000;
  const uploadTimeoutMs = options.uploadTimeoutMs ?? 5 * 60_000;
  const unavailable = `${service} is unavailable right now, please try again.`;
  const busy = `${service} is busy, please try again shortly.`;
  const client = createReplicateClient(options, { unavailable, busy, rejected: `${service} refused the request.` });
  const { call } = client;
  const filesPrefix = `${client.baseUrl}/v1/files/`;

  /** Best effort, never failing the run: a cancel or a delete that does not go through changes nothing for the user. */
  const quietly = (method: 'POST' | 'DELETE', path: string, callOptions: CallOptions = {}) =>
    call(method, path, AbortSignal.timeout(requestTimeoutMs), undefined, callOptions).then(
      () => undefined,
      () => undefined,
    );

  const getPrediction = (id: string, signal: AbortSignal, missingOk = false) =>
    call<Prediction>('GET', `/v1/predictions/${encodeURIComponent(id)}`, signal, undefined, { missingOk });

  async function upload(file: ImageInput, signal: AbortSignal): Promise<string> {
    const form = new FormData();
    const name = `input.${EXTENSIONS[file.contentType] ?? 'bin'}`;
    form.append('content', new Blob([new Uint8Array(file.data)], { type: file.contentType }), name);
    const uploaded = await call<ReplicateFile>('POST', '/v1/files', signal, form, { timeoutMs: uploadTimeoutMs });
    const url = uploaded?.urls?.get;
    if (!uploaded?.id || typeof url !== 'string' || !url.startsWith(filesPrefix)) {
      throw new EngineError('upstream_unavailable', unavailable, { retryable: true, detail: `POST /v1/files: no file URL in the answer` });
    }
    return url;
  }

  /** Our own uploads a prediction's input names (Files API URLs), deleted once it no longer needs them. */
  function uploadedFiles(input: unknown): string[] {
    const found: string[] = [];
    const visit = (value: unknown) => {
      if (typeof value === 'string' && value.startsWith(filesPrefix)) found.push(value.slice(filesPrefix.length));
      else if (Array.isArray(value)) value.forEach(visit);
      else if (value && typeof value === 'object') Object.values(value).forEach(visit);
    };
    visit(input);
    return found.filter((id) => /^[A-Za-z0-9_-]+$/.test(id));
  }

  const deleteFiles = (ids: readonly string[]) => Promise.all(ids.map((id) => quietly('DELETE', `/v1/files/${id}`, { missingOk: true })));

  async function create(job: J, signal: AbortSignal): Promise<Prediction> {
    const uploads: string[] = [];
    const files: FileInputs = {
      async value(file) {
        if (isPublicHttps(file.url)) return file.url;
        if (file.data.length <= maxDataUriBytes) return `data:${file.contentType};base64,${file.data.toString('base64')}`;
        const url = await upload(file, signal);
        uploads.push(url.slice(filesPrefix.length));
        return url;
      },
    };
    try {
      const { model: modelText, input } = await family.request(job, files);
      const model = parseModelRef(modelText);
      if (!model) throw new EngineError('internal', unavailable, { detail: `not a model reference: ${JSON.stringify(modelText)}` });
      const request = createRequest(model, input);
      const prediction = await call<Prediction>('POST', request.path, signal, request.body);
      if (!prediction || typeof prediction.id !== 'string' || !prediction.id) {
        throw new EngineError('upstream_unavailable', unavailable, { retryable: true, detail: `POST ${request.path}: no prediction id in the answer` });
      }
      return prediction;
    } catch (error) {
      // nothing will read these: the prediction was never created
      await deleteFiles(uploads);
      throw error;
    }
  }

  /** A previous attempt's prediction worth watching again, or undefined to start a new one. */
  async function resumable(id: string, signal: AbortSignal): Promise<Prediction | undefined> {
    const prediction = await getPrediction(id, signal, true);
    if (!prediction) return undefined;
    const state = mapStatus(prediction.status);
    // aborted never ran (not charged); a success whose output Replicate already deleted is of no use
    if (state.kind === 'aborted') return undefined;
    if (state.kind === 'succeeded' && (prediction.data_removed || prediction.output === null || prediction.output === undefined)) return undefined;
    return prediction;
  }

  function progressOf(prediction: Prediction, stage: string, elapsedMs: number): number {
    if (stage === 'starting') return 5;
    const logged = progressFromLogs(prediction.logs);
    if (logged !== undefined) return 10 + Math.floor(logged * 0.85);
    // no progress bar in the logs: creep towards 90 % over the time the work usually takes
    return 10 + Math.floor(80 * (1 - Math.exp(-elapsedMs / family.typicalMs)));
  }

  /** The model's own name for the note: what the prediction says it ran, else what was asked. */
  const modelOf = (prediction: Prediction) =>
    typeof prediction.model === 'string' && prediction.model ? prediction.model : typeof prediction.version === 'string' ? prediction.version : 'unknown';

  function failureMessage(error: unknown): string {
    if (family.failureMessage) return family.failureMessage(error);
    const line = lastErrorLine(error);
    if (typeof error === 'string' && NSFW.test(error)) return `${work} was refused: the content was flagged as not safe for work; try another prompt.`;
    return line ? `${work} failed: ${line}` : `${work} failed.`;
  }

  function failure(prediction: Prediction): EngineError {
    const text = typeof prediction.error === 'string' ? prediction.error : '';
    const message = failureMessage(prediction.error);
    return new EngineError('upstream_failed', message, { upstreamId: prediction.id, detail: `prediction ${prediction.id} failed: ${text.slice(0, 500)}` });
  }

  async function watch(job: J, first: Prediction, report: ProgressListener, signal: AbortSignal): Promise<EngineResult> {
    const { id } = first;
    const { job: prediction, state } = await pollUntilDone(
      first,
      {
        get: async (pid, s) => (await getPrediction(pid, s)) as Prediction,
        cancel: (pid) => quietly('POST', `/v1/predictions/${encodeURIComponent(pid)}/cancel`),
        onActive: (p, stage, elapsedMs) => report({ percentage: progressOf(p, stage, elapsedMs), status: stage }),
        timedOut: (pid) =>
          new EngineError('timeout', `${work} took too long.`, { upstreamId: pid, detail: `prediction ${pid} cancelled after ${timeoutMs} ms` }),
        intervalMs: pollIntervalMs,
        maxIntervalMs: maxPollIntervalMs,
        timeoutMs,
        maxFailures: maxPollFailures,
      },
      signal,
    );
    // over, whatever the outcome: a retry of an aborted one uploads again
    await deleteFiles(uploadedFiles(prediction.input ?? first.input));
    switch (state.kind) {
      case 'succeeded': {
        const model = modelOf(prediction);
        const result = family.result(prediction.output, job, prediction, model);
        if (!result) {
          throw new EngineError('upstream_failed', family.words.empty ?? `${work} finished without a result.`, {
            upstreamId: id,
            detail: `prediction ${id} output ${JSON.stringify(prediction.output ?? null).slice(0, 200)}`,
          });
        }
        return { ...result, engine: family.name, upstreamId: id };
      }
      case 'failed':
        throw failure(prediction);
      case 'canceled':
        throw new EngineError('upstream_failed', `${work} was cancelled by ${service.replace(/^The /, 'the ')}.`, { upstreamId: id });
      default:
        // aborted: never started, not charged; another attempt starts a new prediction (see resumable)
        throw new EngineError('upstream_busy', busy, { retryable: true, upstreamId: id, detail: `prediction ${id} aborted` });
    }
  }

  const supports = (kind: string) => (family.kinds as readonly string[]).includes(kind);

  return defineEngine({
    name: family.name,
    kinds: family.kinds,
    async execute(job, report, signal) {
      if (!supports(job.kind)) throw new EngineError('unsupported', `This engine cannot run ${job.kind} tasks.`);
      const own = job as J;
      let prediction = job.resumeUpstreamId ? await resumable(job.resumeUpstreamId, signal) : undefined;
      if (!prediction) {
        report({ percentage: 0, status: 'starting' });
        prediction = await create(own, signal);
      }
      report({ percentage: 2, status: 'submitted', upstreamId: prediction.id });
      return watch(own, prediction, report, signal);
    },
    // a cancelled task whose worker died: the API process stops paying for its prediction
    cancelUpstream: (id) => quietly('POST', `/v1/predictions/${encodeURIComponent(id)}/cancel`),
  });
}
