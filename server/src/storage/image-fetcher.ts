/**
 * @module The one way we read a picture a user names by URL (faceswap's source and target;
 * `readVideo` does the same for a video, e.g. runway's video2video input, and `readAudio` for a
 * song, suno-upload's audio_url, each with its own size and time limits):
 * this platform's own media URLs straight from the media store; any other URL over HTTP,
 * https only outside embedded mode, with the webhook SSRF guard on the address the socket
 * actually connects to (webhooks/target-guard.ts: a DNS answer that changes between a check
 * and the connect cannot slip through), redirects followed by hand (a few hops, each checked
 * like the first), a size and a time limit, and the type read from the bytes, never from
 * the server's headers. node:http rather than fetch for the reason send-webhook.ts gives:
 * its per-request `lookup` is where the guard sees the address.
 */
import http from 'node:http';
import https from 'node:https';
import { guardedLookup, resolveWithDns, TargetRefusedError, type ResolveHost } from '../webhooks/target-guard.ts';
import { inspectImage, MAX_IMAGE_PIXELS } from './image-type.ts';
import { bareHost, checkImageUrl, type ImageUrlPolicy } from './image-url.ts';
import type { MediaStore } from './media-store.ts';
import { detectMediaType } from './media-type.ts';

/** Like POST /upload: the largest picture read. */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 20_000;
/** The largest video read (a video2video input). */
export const MAX_VIDEO_BYTES = 50 * 1024 * 1024;
const DEFAULT_VIDEO_TIMEOUT_MS = 60_000;
/** Like POST /upload-audio: the largest audio file read (suno-upload). */
export const MAX_AUDIO_BYTES = 50 * 1024 * 1024;
const DEFAULT_MAX_REDIRECTS = 3;

const ACCEPT = 'image/jpeg, image/png, image/gif, image/webp;q=0.9, */*;q=0.1';
const VIDEO_ACCEPT = 'video/mp4, video/webm;q=0.9, */*;q=0.1';
const AUDIO_ACCEPT = 'audio/mpeg, audio/wav, audio/ogg, audio/mp4;q=0.9, */*;q=0.1';
const USER_AGENT = 'AIM-ImageFetcher/1.0';

interface FetchedVideo {
  /** The URL as given. */
  url: string;
  data: Buffer;
  /** video/mp4 or video/webm, read from the bytes. */
  contentType: string;
}

/** A song read by readAudio: audio/mpeg, audio/wav, audio/ogg or audio/mp4, read from the bytes. */
type FetchedAudio = FetchedVideo;

interface FetchedImage {
  /** The URL as given (not the one a redirect ended at). */
  url: string;
  data: Buffer;
  /** image/jpeg, image/png, image/gif or image/webp, read from the bytes. */
  contentType: string;
  width: number;
  height: number;
}

/**
 * Why a picture could not be read. `message` completes a sentence such as "The source image
 * could not be read: …" and is safe to show the user; `retryable` when another try may
 * succeed (a network failure, a server error), not when the answer will stay the same.
 */
export class ImageReadError extends Error {
  readonly retryable: boolean;

  constructor(message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'ImageReadError';
    this.retryable = options.retryable ?? false;
  }
}

export interface ImageFetcherOptions extends ImageUrlPolicy {
  media: MediaStore;
  /** Default 10 MB. */
  maxBytes?: number;
  /** Default 40 megapixels. */
  maxPixels?: number;
  /** For the whole read, redirects included. Default 20 s. */
  timeoutMs?: number;
  /** Default 3. */
  maxRedirects?: number;
  /** Default the system resolver (tests map names to addresses). */
  resolveHost?: ResolveHost;
  /** readVideo: default 50 MB. */
  maxVideoBytes?: number;
  /** readVideo, for the whole read: default 60 s. */
  videoTimeoutMs?: number;
  /** readAudio: default 50 MB (its time limit is readVideo's). */
  maxAudioBytes?: number;
}

export interface ImageFetcher {
  /** The checked picture at `url`, or an ImageReadError. `signal` cancels the read. */
  read(url: string, signal?: AbortSignal): Promise<FetchedImage>;
  /** The checked video (MP4 or WebM, by its bytes) at `url`, or an ImageReadError. */
  readVideo(url: string, signal?: AbortSignal): Promise<FetchedVideo>;
  /** The checked audio file (MP3, WAV, Ogg or M4A, by its bytes) at `url`, or an ImageReadError. */
  readAudio(url: string, signal?: AbortSignal): Promise<FetchedAudio>;
}

/** What one kind of read accepts: its size and time limits and the Accept header sent. */
interface ReadLimits {
  maxBytes: number;
  timeoutMs: number;
  accept: string;
}

type Hop = { redirect: string } | { data: Buffer };

const TLS_CODES = /^(CERT_|ERR_TLS_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(VERIFY_LEAF_SIGNATURE|GET_ISSUER_CERT))/;

function sizeText(bytes: number): string {
  const mb = 1024 * 1024;
  return bytes >= mb ? `${Number((bytes / mb).toFixed(1))} MB` : `${bytes} bytes`;
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

export function createImageFetcher(options: ImageFetcherOptions): ImageFetcher {
  const { media } = options;
  const maxBytes = options.maxBytes ?? MAX_IMAGE_BYTES;
  const maxPixels = options.maxPixels ?? MAX_IMAGE_PIXELS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const lookup = guardedLookup(options.resolveHost ?? resolveWithDns);
  const imageLimits: ReadLimits = { maxBytes, timeoutMs, accept: ACCEPT };
  const videoLimits: ReadLimits = {
    maxBytes: options.maxVideoBytes ?? MAX_VIDEO_BYTES,
    timeoutMs: options.videoTimeoutMs ?? DEFAULT_VIDEO_TIMEOUT_MS,
    accept: VIDEO_ACCEPT,
  };
  const audioLimits: ReadLimits = { maxBytes: options.maxAudioBytes ?? MAX_AUDIO_BYTES, timeoutMs: videoLimits.timeoutMs, accept: AUDIO_ACCEPT };
  const tooLarge = (limit = maxBytes) => new ImageReadError(`it is larger than ${sizeText(limit)}`);

  async function fromStore(key: string): Promise<Buffer> {
    let stored: Awaited<ReturnType<MediaStore['get']>>;
    try {
      stored = await media.get(key);
    } catch (error) {
      throw new ImageReadError('our media store could not be read, please try again', { retryable: true, cause: error });
    }
    if (!stored) throw new ImageReadError('it no longer exists on this server');
    return stored.data;
  }

  /** One GET without following anything; rejects with an ImageReadError or the socket's error. */
  function getOnce(url: URL, guarded: boolean, signal: AbortSignal, limits: ReadLimits): Promise<Hop> {
    return new Promise<Hop>((resolve, reject) => {
      const client = url.protocol === 'https:' ? https : http;
      const req = client.request(
        {
          protocol: url.protocol,
          hostname: bareHost(url),
          port: url.port || undefined,
          path: `${url.pathname}${url.search}`,
          method: 'GET',
          headers: { accept: limits.accept, 'user-agent': USER_AGENT },
          auth: url.username ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined,
          // a fresh connection per hop: a pooled socket would skip the guarded lookup
          agent: false,
          lookup: guarded ? lookup : undefined,
          signal,
        },
        (res) => {
          const status = res.statusCode ?? 0;
          const stop = (error: Error) => {
            reject(error);
            res.destroy();
          };
          if (status >= 300 && status < 400) {
            const location = res.headers.location;
            if (!location) return stop(new ImageReadError(`the server answered HTTP ${status} without a location`));
            resolve({ redirect: location });
            return res.destroy();
          }
          if (status < 200 || status >= 300) {
            return stop(new ImageReadError(`the server answered HTTP ${status}`, { retryable: status >= 500 || status === 408 || status === 429 }));
          }
          if (Number(res.headers['content-length']) > limits.maxBytes) return stop(tooLarge(limits.maxBytes));
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > limits.maxBytes) return stop(tooLarge(limits.maxBytes));
            chunks.push(chunk);
          });
          res.on('end', () => resolve({ data: Buffer.concat(chunks) }));
          res.on('error', reject);
          res.on('close', () => {
            if (!res.complete) reject(new ImageReadError('the connection closed before the whole image arrived', { retryable: true }));
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  /** An ImageReadError for whatever a hop threw. */
  function describe(error: unknown, url: URL, deadline: AbortSignal, limits: ReadLimits, outer?: AbortSignal): ImageReadError {
    if (error instanceof ImageReadError) return error;
    if (outer?.aborted) return new ImageReadError('reading it was cancelled', { retryable: true, cause: error });
    if (deadline.aborted) return new ImageReadError(`the server did not send it within ${limits.timeoutMs / 1000} s`, { retryable: true, cause: error });
    if (error instanceof TargetRefusedError) return new ImageReadError(`it is on a private network address (${error.message})`, { cause: error });
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'ENOTFOUND') return new ImageReadError(`the host name ${bareHost(url)} could not be found`, { cause: error });
    if (TLS_CODES.test(code)) return new ImageReadError(`the server's TLS certificate is not valid (${code})`, { cause: error });
    const reason = code || (error instanceof Error ? error.message : String(error));
    return new ImageReadError(`the server could not be reached (${reason})`, { retryable: true, cause: error });
  }

  async function fromHttp(text: string, limits: ReadLimits, outer?: AbortSignal): Promise<Buffer> {
    const deadline = AbortSignal.timeout(limits.timeoutMs);
    const signal = outer ? AbortSignal.any([outer, deadline]) : deadline;
    let current = text;
    for (let hop = 0; ; hop++) {
      const checked = checkImageUrl(current, options);
      if ('problem' in checked) {
        const problem = lowerFirst(checked.problem);
        throw new ImageReadError(hop === 0 ? `its URL is not allowed (${problem})` : `it redirects to a URL that is not allowed (${problem})`);
      }
      const { url } = checked;
      const trusted = options.embedded || options.trustedHosts?.includes(bareHost(url)) === true;
      let result: Hop;
      try {
        result = await getOnce(url, !trusted, signal, limits);
      } catch (error) {
        throw describe(error, url, deadline, limits, outer);
      }
      if ('data' in result) return result.data;
      if (hop >= maxRedirects) throw new ImageReadError(`it redirects more than ${maxRedirects} times`);
      if (!URL.canParse(result.redirect, url)) throw new ImageReadError('it redirects to an invalid URL');
      current = new URL(result.redirect, url).href;
    }
  }

  return {
    async read(url, signal) {
      const key = media.keyOf(url);
      const data = key ? await fromStore(key) : await fromHttp(url, imageLimits, signal);
      if (data.length > maxBytes) throw tooLarge();
      const image = await inspectImage(data);
      if (!image.ok && image.problem === 'type') throw new ImageReadError('it is not a jpeg, png, gif or webp image');
      if (!image.ok) throw new ImageReadError('it could not be decoded as an image');
      if (image.width * image.height > maxPixels) throw new ImageReadError(`it has more than ${maxPixels / 1_000_000} megapixels`);
      return { url, data, contentType: image.type.contentType, width: image.width, height: image.height };
    },

    async readVideo(url, signal) {
      const key = media.keyOf(url);
      const data = key ? await fromStore(key) : await fromHttp(url, videoLimits, signal);
      if (data.length > videoLimits.maxBytes) throw tooLarge(videoLimits.maxBytes);
      const type = detectMediaType(data);
      if (type?.kind !== 'video') throw new ImageReadError('it is not an MP4 or WebM video');
      return { url, data, contentType: type.contentType };
    },

    async readAudio(url, signal) {
      const key = media.keyOf(url);
      const data = key ? await fromStore(key) : await fromHttp(url, audioLimits, signal);
      if (data.length > audioLimits.maxBytes) throw tooLarge(audioLimits.maxBytes);
      const type = detectMediaType(data);
      if (type?.kind !== 'audio') throw new ImageReadError('it is not an MP3, WAV, Ogg or M4A audio file');
      return { url, data, contentType: type.contentType };
    },
  };
}
