/**
 * @module The one way we read a picture a user names by URL (faceswap's source and target):
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

/** Like POST /upload: the largest picture read. */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 20_000;
const DEFAULT_MAX_REDIRECTS = 3;

const ACCEPT = 'image/jpeg, image/png, image/gif, image/webp;q=0.9, */*;q=0.1';
const USER_AGENT = 'AIM-ImageFetcher/1.0';

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
}

export interface ImageFetcher {
  /** The checked picture at `url`, or an ImageReadError. `signal` cancels the read. */
  read(url: string, signal?: AbortSignal): Promise<FetchedImage>;
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
  const tooLarge = () => new ImageReadError(`it is larger than ${sizeText(maxBytes)}`);

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
  function getOnce(url: URL, guarded: boolean, signal: AbortSignal): Promise<Hop> {
    return new Promise<Hop>((resolve, reject) => {
      const client = url.protocol === 'https:' ? https : http;
      const req = client.request(
        {
          protocol: url.protocol,
          hostname: bareHost(url),
          port: url.port || undefined,
          path: `${url.pathname}${url.search}`,
          method: 'GET',
          headers: { accept: ACCEPT, 'user-agent': USER_AGENT },
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
          if (Number(res.headers['content-length']) > maxBytes) return stop(tooLarge());
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxBytes) return stop(tooLarge());
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
  function describe(error: unknown, url: URL, deadline: AbortSignal, outer?: AbortSignal): ImageReadError {
    if (error instanceof ImageReadError) return error;
    if (outer?.aborted) return new ImageReadError('reading it was cancelled', { retryable: true, cause: error });
    if (deadline.aborted) return new ImageReadError(`the server did not send it within ${timeoutMs / 1000} s`, { retryable: true, cause: error });
    if (error instanceof TargetRefusedError) return new ImageReadError(`it is on a private network address (${error.message})`, { cause: error });
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'ENOTFOUND') return new ImageReadError(`the host name ${bareHost(url)} could not be found`, { cause: error });
    if (TLS_CODES.test(code)) return new ImageReadError(`the server's TLS certificate is not valid (${code})`, { cause: error });
    const reason = code || (error instanceof Error ? error.message : String(error));
    return new ImageReadError(`the server could not be reached (${reason})`, { retryable: true, cause: error });
  }

  async function fromHttp(text: string, outer?: AbortSignal): Promise<Buffer> {
    const deadline = AbortSignal.timeout(timeoutMs);
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
        result = await getOnce(url, !trusted, signal);
      } catch (error) {
        throw describe(error, url, deadline, outer);
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
      const data = key ? await fromStore(key) : await fromHttp(url, signal);
      if (data.length > maxBytes) throw tooLarge();
      const image = await inspectImage(data);
      if (!image.ok && image.problem === 'type') throw new ImageReadError('it is not a jpeg, png, gif or webp image');
      if (!image.ok) throw new ImageReadError('it could not be decoded as an image');
      if (image.width * image.height > maxPixels) throw new ImageReadError(`it has more than ${maxPixels / 1_000_000} megapixels`);
      return { url, data, contentType: image.type.contentType, width: image.width, height: image.height };
    },
  };
}
