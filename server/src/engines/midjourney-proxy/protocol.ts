/**
 * @module The wire shapes of a midjourney-proxy-compatible upstream (novicezk v2.6 and the
 * trueai-org superset; see upstream-protocols.md C1) and their mapping onto the Engine port.
 */
import { type EngineStage, EngineError } from '../engine.ts';

/** `SubmitResultVO`: the answer of every /submit/* call. */
export interface SubmitResult {
  code: number;
  description?: string;
  result?: string | number | null;
  properties?: Record<string, unknown>;
}

interface UpstreamButton {
  customId: string;
  label?: string;
  emoji?: string;
}

/** The Task object of /task/{id}/fetch (novicezk fields plus the trueai additions we read). */
export interface UpstreamTask {
  id: string;
  action?: string;
  status?: string;
  progress?: string | number | null;
  prompt?: string | null;
  promptEn?: string | null;
  /** A shorten's analysis (trueai), or the command as sent (`/imagine cat`). */
  description?: string | null;
  /** `finalPrompt`: a describe's four prompts or a shorten's analysis, as the bot wrote them. */
  properties?: { finalPrompt?: string | null } | null;
  imageUrl?: string | null;
  imageUrls?: Array<string | { url?: string }> | null;
  failReason?: string | null;
  seed?: string | number | null;
  width?: number | null;
  height?: number | null;
  buttons?: UpstreamButton[] | null;
}

const SUBMIT_CODES = {
  success: 1,
  notFound: 3,
  validationError: 4,
  failure: 9,
  existed: 21,
  inQueue: 22,
  queueFull: 23,
  bannedPrompt: 24,
} as const;

/**
 * Reads the upstream's progress string ("0%" … "100%", "" after a failure) leniently:
 * spaces, a missing % sign, decimals and bare numbers are accepted; anything else is
 * unknown (undefined), never a reason to fail the task.
 */
export function parseProgress(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? clampPercentage(value) : undefined;
  if (typeof value !== 'string') return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(value);
  return match ? clampPercentage(Number(match[1])) : undefined;
}

function clampPercentage(value: number): number {
  return Math.min(100, Math.max(0, Math.floor(value)));
}

export type UpstreamState = { kind: 'active'; stage: EngineStage } | { kind: 'success' } | { kind: 'failure' } | { kind: 'cancelled' };

/** NOT_START → SUBMITTED → IN_PROGRESS → SUCCESS | FAILURE, plus trueai's MODAL and CANCEL. */
export function mapStatus(status: string | undefined): UpstreamState {
  switch ((status ?? '').toUpperCase()) {
    case 'SUCCESS':
      return { kind: 'success' };
    case 'FAILURE':
      return { kind: 'failure' };
    case 'CANCEL':
      return { kind: 'cancelled' };
    case 'NOT_START':
      return { kind: 'active', stage: 'queued' };
    case 'SUBMITTED':
      return { kind: 'active', stage: 'submitted' };
    default:
      // IN_PROGRESS, MODAL and statuses this adapter does not know yet: keep waiting
      return { kind: 'active', stage: 'processing' };
  }
}

/** The upstream task id of an accepted submit, or the EngineError its code stands for. */
export function readSubmitResult(body: SubmitResult): string {
  const detail = `code ${body.code}: ${body.description ?? ''}`.trim();
  switch (body.code) {
    case SUBMIT_CODES.success:
    case SUBMIT_CODES.existed:
    case SUBMIT_CODES.inQueue: {
      if (body.result === undefined || body.result === null || String(body.result) === '') {
        throw new EngineError('upstream_unavailable', 'The generation service did not accept the task, please try again.', {
          retryable: true,
          detail: `${detail} without a task id`,
        });
      }
      return String(body.result);
    }
    case SUBMIT_CODES.bannedPrompt: {
      const word = typeof body.properties?.bannedWord === 'string' ? body.properties.bannedWord : undefined;
      throw new EngineError('banned_prompt', word ? `Your prompt contains a banned word: ${word}` : 'Your prompt contains a banned word.', {
        detail,
      });
    }
    case SUBMIT_CODES.queueFull:
      throw new EngineError('upstream_busy', 'The generation queue is full, please try again shortly.', { retryable: true, detail });
    case SUBMIT_CODES.notFound:
      throw new EngineError('upstream_rejected', 'The task this action applies to is no longer available.', { detail });
    case SUBMIT_CODES.validationError:
      throw new EngineError('invalid_input', body.description ? `The request was refused: ${body.description}` : 'The request was refused.', {
        detail,
      });
    default:
      throw new EngineError('upstream_unavailable', 'The generation service failed, please try again.', { retryable: true, detail });
  }
}

export function readImageUrls(task: UpstreamTask): string[] {
  return (task.imageUrls ?? [])
    .map((entry) => (typeof entry === 'string' ? entry : entry?.url))
    .filter((url): url is string => typeof url === 'string' && url.length > 0);
}

export function readSeed(value: unknown): number | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  const seed = Number(value);
  return Number.isSafeInteger(seed) && seed >= 0 ? seed : undefined;
}

/** Button ids of the enlargements offered on an upscaled (U) image, by our upscale type. */
export const UPSCALE_BUTTONS = {
  subtle: /::upsample_v[0-9a-z]*_2x_subtle::/i,
  creative: /::upsample_v[0-9a-z]*_2x_creative::/i,
  '2x': /::upsample_v[0-9a-z]*_2x::/i,
  '4x': /::upsample_v[0-9a-z]*_4x::/i,
} as const;

/** The buttons of an upscaled image that start the actions beyond upscaling (trueai /submit/action customIds). */
export const ACTION_BUTTONS = {
  pan: { up: /^MJ::JOB::pan_up::/, down: /^MJ::JOB::pan_down::/, left: /^MJ::JOB::pan_left::/, right: /^MJ::JOB::pan_right::/ },
  /** Zoom Out 2x (the canvas twice the size: the picture at 50 %) and 1.5x (at 75 %). */
  zoomOut2x: /^MJ::Outpaint::50::/,
  zoomOut15x: /^MJ::Outpaint::75::/,
  /** Custom Zoom: opens a prompt (`--zoom 1–2 --ar w:h`) to confirm with /submit/modal. */
  customZoom: /^MJ::CustomZoom::/,
  /** Vary (Region): opens the mask editor, confirmed with /submit/modal { maskBase64, prompt }. */
  inpaint: /^MJ::Inpaint::/,
  varyStrong: /^MJ::JOB::high_variation::/,
  varySubtle: /^MJ::JOB::low_variation::/,
} as const;

/**
 * The prompts of a describe or shorten answer: the lines the bot numbered with keycaps
 * (1️⃣ … 5️⃣), without the keycap; else every non-empty paragraph.
 */
export function readPromptList(text: string | null | undefined): string[] {
  if (!text) return [];
  const numbered = [...text.matchAll(/^\s*[1-9]\uFE0F?\u20E3\s*(.+?)\s*$/gmu)].map((m) => m[1]);
  if (numbered.length > 0) return numbered;
  return text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);
}
