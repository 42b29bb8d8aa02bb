/**
 * @module The wire shapes of Replicate's predictions, trainings and files APIs
 * (upstream-protocols.md C2) and their mapping onto the Engine port: model references,
 * statuses, errors (RFC 9457 problem details `{ title, detail, status }`), `retry-after`,
 * progress and output.
 */
import type { EngineStage } from '../engine.ts';

/** The prediction object of POST /v1/predictions and GET /v1/predictions/{id}. */
export interface Prediction {
  id: string;
  model?: string;
  version?: string;
  status?: string;
  input?: Record<string, unknown>;
  output?: unknown;
  /** A string (the model's exception) when the prediction failed. */
  error?: unknown;
  logs?: string | null;
  /** Replicate deletes API inputs and outputs about an hour after the prediction. */
  data_removed?: boolean;
  urls?: { get?: string; cancel?: string; web?: string };
}

/**
 * The training object of POST /v1/models/{owner}/{name}/versions/{version}/trainings and
 * GET /v1/trainings/{id}: the same statuses as a prediction; on success `output` names the
 * new version of the destination model and the weights.
 */
export interface Training {
  id: string;
  model?: string;
  version?: string;
  destination?: string;
  status?: string;
  input?: Record<string, unknown>;
  output?: { version?: unknown; weights?: unknown } | null;
  error?: unknown;
  logs?: string | null;
}

/** The file object of POST /v1/files: `urls.get` is what a model input takes. */
export interface ReplicateFile {
  id: string;
  name?: string;
  content_type?: string;
  size?: number;
  urls?: { get?: string };
}

/** `owner/name` runs the model's latest version; `owner/name:<version id>` pins one. */
export interface ModelRef {
  owner: string;
  name: string;
  version?: string;
}

const MODEL_PATTERN = /^([a-z0-9][a-z0-9_.-]*)\/([a-z0-9][a-z0-9_.-]*)(?::([0-9a-f]{64}))?$/i;

export function parseModelRef(text: string): ModelRef | undefined {
  const match = MODEL_PATTERN.exec(text.trim());
  if (!match) return undefined;
  return match[3] ? { owner: match[1], name: match[2], version: match[3] } : { owner: match[1], name: match[2] };
}

/**
 * The version id out of a training's `output.version`, which Replicate gives as
 * `owner/name:<version id>` (or the bare id).
 *
 * @example
 * versionIdOf('acme/me:5c7d…') // '5c7d…'
 */
export function versionIdOf(version: unknown): string | undefined {
  if (typeof version !== 'string') return undefined;
  const match = /^(?:[a-z0-9][a-z0-9_.-]*\/[a-z0-9][a-z0-9_.-]*:)?([0-9a-f]{64})$/i.exec(version.trim());
  return match?.[1];
}

/** Where a prediction of `model` is created, and its body around `input`. */
export function createRequest(model: ModelRef, input: Record<string, unknown>): { path: string; body: Record<string, unknown> } {
  if (model.version) return { path: '/v1/predictions', body: { version: model.version, input } };
  return { path: `/v1/models/${encodeURIComponent(model.owner)}/${encodeURIComponent(model.name)}/predictions`, body: { input } };
}

export type PredictionState =
  | { kind: 'active'; stage: EngineStage }
  | { kind: 'succeeded' }
  | { kind: 'failed' }
  | { kind: 'canceled' }
  /** The deadline passed before the prediction started (not charged). */
  | { kind: 'aborted' };

/** starting → processing → succeeded | failed | canceled, or aborted before it started. */
export function mapStatus(status: string | undefined): PredictionState {
  switch (status) {
    case 'succeeded':
      return { kind: 'succeeded' };
    case 'failed':
      return { kind: 'failed' };
    case 'canceled':
      return { kind: 'canceled' };
    case 'aborted':
      return { kind: 'aborted' };
    case 'starting':
      return { kind: 'active', stage: 'starting' };
    default:
      // processing, and statuses this adapter does not know yet: keep watching
      return { kind: 'active', stage: 'processing' };
  }
}

/** The last percentage a progress bar printed into the logs (tqdm's " 45%|"), if any. */
export function progressFromLogs(logs: string | null | undefined): number | undefined {
  if (!logs) return undefined;
  let last: number | undefined;
  for (const match of logs.matchAll(/(\d{1,3})%/g)) {
    const value = Number(match[1]);
    if (value <= 100) last = value;
  }
  return last;
}

/** The seed a model printed into its logs ("Using seed: 1234"), if any: the last one. */
export function seedFromLogs(logs: string | null | undefined): number | undefined {
  if (!logs) return undefined;
  let last: number | undefined;
  for (const match of logs.matchAll(/\bseed\b\s*(?:[:=]|is)?\s*(\d{1,15})\b/gi)) last = Number(match[1]);
  return last;
}

const isUrl = (value: unknown): value is string => typeof value === 'string' && /^https?:\/\//i.test(value);

/** The output picture's URL: the output itself (a file output) or the first of a list. */
export function readOutputUrl(output: unknown): string | undefined {
  const first = Array.isArray(output) ? output[0] : output;
  return isUrl(first) ? first : undefined;
}

/** Every output picture's URL: a list of file outputs, or the one file output. */
export function readOutputUrls(output: unknown): string[] {
  return (Array.isArray(output) ? output : [output]).filter(isUrl);
}

/** One line for logs out of an error answer: `title: detail` of a problem details body, else the text. */
export function problemText(text: string): string {
  try {
    const body = JSON.parse(text) as { title?: unknown; detail?: unknown };
    const parts = [body.title, body.detail].filter((part): part is string => typeof part === 'string' && part.length > 0);
    if (parts.length > 0) return parts.join(': ').slice(0, 300);
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 300);
}

/** `retry-after` in milliseconds (delta seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const value = header.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * What to tell the user about a failed prediction. A model's error is its exception text
 * (often a Python message), so only its last line is shown, shortened; a missing face is
 * said plainly since the user can act on it.
 */
export function failureMessage(error: unknown): string {
  const text = typeof error === 'string' ? error : '';
  if (/no face|face not (found|detected)|could not (find|detect) (a |any )?face/i.test(text)) {
    return 'No face was found in the source or the target image.';
  }
  const line = lastErrorLine(error);
  return line ? `The face swap failed: ${line}` : 'The face swap failed.';
}

/** The last non-empty line of a model's error (its exception), shortened; undefined when there is none. */
export function lastErrorLine(error: unknown): string | undefined {
  const text = typeof error === 'string' ? error : '';
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .at(-1)
    ?.slice(0, 200);
}
