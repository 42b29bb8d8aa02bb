/**
 * @module The production MediaStore: objects in an S3-compatible bucket (AWS S3, MinIO,
 * Cloudflare R2, ...), one object per key at the bucket root, requests signed with SigV4
 * (aws4fetch). URLs point at S3_PUBLIC_URL (a public bucket or CDN) when set, else at the
 * API's own GET /media/<key>, which reads through `get()`; either way they never expire.
 *
 * Environment (see `s3MediaStoreOptionsFromEnv`): S3_BUCKET, S3_ACCESS_KEY_ID,
 * S3_SECRET_ACCESS_KEY (required), S3_REGION (default us-east-1; `auto` for R2),
 * S3_ENDPOINT (default AWS), S3_FORCE_PATH_STYLE (default true with S3_ENDPOINT, else false),
 * S3_PUBLIC_URL.
 */
import { createHash } from 'node:crypto';
import { AwsClient } from 'aws4fetch';
import { type ByteRange, cacheControlOf, contentTypeOfKey, isMediaKey, type MediaStore } from './media-store.ts';

export interface S3MediaStoreOptions {
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Origin (optionally with a path) of an S3-compatible service; default `https://s3.<region>.amazonaws.com`. */
  endpoint?: string;
  /** `<endpoint>/<bucket>/<key>` instead of `<bucket>.<endpoint host>/<key>`. */
  forcePathStyle?: boolean;
  /** Base where the objects are publicly readable (public bucket, CDN); the URLs handed out start with it. */
  publicBaseUrl?: string;
  /** Origin of the API serving GET /media/<key>; the URLs' base when `publicBaseUrl` is unset. */
  apiPublicUrl: string;
  /** Per-attempt timeout; default 60 s (objects are at most a few tens of MB). */
  timeoutMs?: number;
  /** The fetch to send signed requests with (tests route virtual-host names to loopback). */
  fetch?: typeof fetch;
}

const ATTEMPTS = 3;
const RETRY_BASE_MS = 200;

function assertKey(key: string): void {
  if (!isMediaKey(key)) throw new Error(`invalid media key: ${JSON.stringify(key)}`);
}

function trimSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}

/** `Code (Message)` from an S3 error document; only these two fields (the rest may echo request details). */
function describeS3Error(status: number, body: string): { code: string | undefined; text: string } {
  const code = /<Code>([^<]{1,100})<\/Code>/.exec(body)?.[1];
  const message = /<Message>([^<]{1,300})<\/Message>/.exec(body)?.[1];
  return { code, text: [String(status), code, message && `(${message})`].filter(Boolean).join(' ') };
}

/** fetch's own message is a bare "fetch failed"; the socket error code (ECONNREFUSED, ...) sits in its cause. */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? `${error.message} (${code})` : error.message;
}

const retryable = (status: number) => status >= 500 || status === 429;

/** The object's size from a 206's `Content-Range: bytes a-b/size` or, for a whole object, its Content-Length. */
function sizeOf(response: Response): number | undefined {
  const total = /\/(\d+)\s*$/.exec(response.headers.get('content-range') ?? '')?.[1];
  const size = Number(response.status === 206 ? total : response.headers.get('content-length'));
  return Number.isSafeInteger(size) && size >= 0 ? size : undefined;
}

export function createS3MediaStore(options: S3MediaStoreOptions): MediaStore {
  const endpoint = new URL(options.endpoint ?? `https://s3.${options.region}.amazonaws.com`);
  const endpointPath = trimSlashes(endpoint.pathname);
  const objectBase = options.forcePathStyle
    ? `${endpoint.origin}${endpointPath}/${options.bucket}/`
    : `${endpoint.protocol}//${options.bucket}.${endpoint.host}${endpointPath}/`;
  const publicBase = options.publicBaseUrl ? `${trimSlashes(options.publicBaseUrl)}/` : `${trimSlashes(options.apiPublicUrl)}/media/`;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const send = options.fetch ?? fetch;
  const signer = new AwsClient({
    accessKeyId: options.accessKeyId,
    secretAccessKey: options.secretAccessKey,
    service: 's3',
    region: options.region,
  });

  /**
   * One S3 call, re-signed per attempt; 5xx, 429 and network failures are retried (PUT and GET of a key are idempotent).
   * The timeout covers the whole exchange, or only until the headers arrive for a `streaming` call (whose body
   * is read as slowly as the client downloading it; `streamOf` guards each read).
   */
  async function call(
    operation: string,
    key: string,
    init: { method: string; headers?: Record<string, string>; body?: Uint8Array<ArrayBuffer> },
    streaming = false,
  ): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      const untilHeaders = new AbortController();
      const timer = streaming ? setTimeout(() => untilHeaders.abort(new DOMException('The operation timed out.', 'TimeoutError')), timeoutMs) : undefined;
      try {
        const signal = streaming ? untilHeaders.signal : AbortSignal.timeout(timeoutMs);
        const request = await signer.sign(objectBase + key, { ...init, signal });
        const response = await send(request);
        if (!retryable(response.status) || attempt === ATTEMPTS) return response;
        await response.body?.cancel();
      } catch (error) {
        if (attempt === ATTEMPTS) {
          throw new Error(`S3 ${operation} ${key} failed: ${reasonOf(error)}`, { cause: error });
        }
      } finally {
        clearTimeout(timer);
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_BASE_MS * 2 ** (attempt - 1) * (0.5 + Math.random() / 2)));
    }
  }

  /**
   * `length` bytes of `body` after skipping `skip` (a server that ignored the Range header sent the whole
   * object), read only as the consumer asks; a read that stalls for the timeout fails the stream, and
   * cancelling it cancels the body, which closes the connection to S3.
   */
  function streamOf(key: string, body: ReadableStream<Uint8Array>, skip: number, length: number): ReadableStream<Uint8Array> {
    const reader = body.getReader();
    let toSkip = skip;
    let left = length;
    const stop = (reason?: unknown) => reader.cancel(reason).catch(() => {});
    return new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          let timer: ReturnType<typeof setTimeout> | undefined;
          const stalled = new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`S3 GetObject ${key} stalled for ${timeoutMs} ms`)), timeoutMs);
          });
          try {
            for (;;) {
              const { done, value } = await Promise.race([reader.read(), stalled]);
              if (done) {
                if (left > 0) throw new Error(`S3 GetObject ${key} ended ${left} bytes early`);
                controller.close();
                return;
              }
              const from = Math.min(toSkip, value.length);
              toSkip -= from;
              const chunk = value.subarray(from, from + left);
              left -= chunk.length;
              if (chunk.length > 0) controller.enqueue(chunk);
              if (left === 0) {
                await stop();
                controller.close();
                return;
              }
              if (chunk.length > 0) return;
            }
          } catch (error) {
            await stop(error);
            controller.error(error);
          } finally {
            clearTimeout(timer);
          }
        },
        cancel: stop,
      },
      { highWaterMark: 0 },
    );
  }

  async function fail(operation: string, key: string, response: Response): Promise<never> {
    const { text } = describeS3Error(response.status, await response.text());
    throw new Error(`S3 ${operation} ${key} failed: ${text}`);
  }

  return {
    async delete(key) {
      assertKey(key);
      const response = await call('DeleteObject', key, { method: 'DELETE' });
      // S3 answers 204 whether or not the object existed
      if (!response.ok && response.status !== 404) await fail('DeleteObject', key, response);
      await response.body?.cancel();
    },
    async put(key, data, contentType) {
      assertKey(key);
      // a view, not a copy; Buffers from fs, fetch and sharp sit on plain (not shared) ArrayBuffers
      const body = new Uint8Array(data.buffer as ArrayBuffer, data.byteOffset, data.byteLength);
      const response = await call('PutObject', key, {
        method: 'PUT',
        headers: {
          'Content-Type': contentType,
          'Cache-Control': cacheControlOf(key),
          // a signed payload hash lets S3 reject a body damaged in transit
          'X-Amz-Content-Sha256': createHash('sha256').update(body).digest('hex'),
        },
        body,
      });
      if (!response.ok) await fail('PutObject', key, response);
      await response.body?.cancel();
      return publicBase + key;
    },
    async get(key) {
      const keyType = isMediaKey(key) ? contentTypeOfKey(key) : undefined;
      if (!keyType) return undefined;
      const response = await call('GetObject', key, { method: 'GET' });
      if (response.status === 404) {
        const error = describeS3Error(404, await response.text());
        // a missing bucket is a configuration error, not a missing image
        if (error.code === 'NoSuchBucket') throw new Error(`S3 GetObject ${key} failed: ${error.text}`);
        return undefined;
      }
      if (!response.ok) await fail('GetObject', key, response);
      return {
        data: Buffer.from(await response.arrayBuffer()),
        contentType: response.headers.get('content-type') ?? keyType,
      };
    },
    async stat(key) {
      const keyType = isMediaKey(key) ? contentTypeOfKey(key) : undefined;
      if (!keyType) return undefined;
      const response = await call('HeadObject', key, { method: 'HEAD' });
      await response.body?.cancel();
      if (response.status === 404) return undefined;
      if (!response.ok) throw new Error(`S3 HeadObject ${key} failed: ${response.status}`);
      const size = sizeOf(response);
      if (size === undefined) throw new Error(`S3 HeadObject ${key} answered no Content-Length`);
      return { size, contentType: response.headers.get('content-type') ?? keyType };
    },
    async open(key, range?: ByteRange) {
      if (!isMediaKey(key) || !contentTypeOfKey(key)) return undefined;
      const headers: Record<string, string> = range ? { Range: `bytes=${range.start}-${range.end}` } : {};
      const response = await call('GetObject', key, { method: 'GET', headers }, true);
      if (response.status === 404) {
        const error = describeS3Error(404, await response.text());
        if (error.code === 'NoSuchBucket') throw new Error(`S3 GetObject ${key} failed: ${error.text}`);
        return undefined;
      }
      if (!response.ok) await fail('GetObject', key, response);
      const size = sizeOf(response);
      if (!response.body || size === undefined) {
        await response.body?.cancel();
        throw new Error(`S3 GetObject ${key} answered ${response.status} without a body or its size`);
      }
      // 206: the range itself; 200: the whole object (a server may ignore Range), cut here
      if (!range) return streamOf(key, response.body, 0, size);
      const length = range.end - range.start + 1;
      if (response.status !== 206) return streamOf(key, response.body, range.start, length);
      const from = /^\s*bytes\s+(\d+)-/i.exec(response.headers.get('content-range') ?? '')?.[1];
      if (Number(from) !== range.start) {
        await response.body.cancel();
        throw new Error(`S3 GetObject ${key} answered ${response.headers.get('content-range')} for bytes=${range.start}-${range.end}`);
      }
      return streamOf(key, response.body, 0, length);
    },
    async has(key) {
      if (!isMediaKey(key)) return false;
      const response = await call('HeadObject', key, { method: 'HEAD' });
      await response.body?.cancel();
      if (response.status === 404) return false;
      // a HEAD answer has no body to name the problem; the status is all there is
      if (!response.ok) throw new Error(`S3 HeadObject ${key} failed: ${response.status}`);
      return true;
    },
    url(key) {
      assertKey(key);
      return publicBase + key;
    },
    keyOf(url) {
      if (!url.startsWith(publicBase)) return undefined;
      const key = url.slice(publicBase.length);
      return isMediaKey(key) ? key : undefined;
    },
  };
}

function flag(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (/^(1|true|yes)$/i.test(value)) return true;
  if (/^(0|false|no)$/i.test(value)) return false;
  throw new Error(`${name} must be true or false, got ${JSON.stringify(value)}`);
}

/** The S3 store's options from S3_* variables; throws naming the missing ones (never echoing values). */
export function s3MediaStoreOptionsFromEnv(apiPublicUrl: string, env: NodeJS.ProcessEnv): S3MediaStoreOptions {
  const missing = ['S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'].filter((name) => !env[name]);
  if (missing.length > 0) throw new Error(`S3 media store needs ${missing.join(', ')}`);
  const endpoint = env.S3_ENDPOINT || undefined;
  return {
    bucket: env.S3_BUCKET!,
    region: env.S3_REGION || 'us-east-1',
    accessKeyId: env.S3_ACCESS_KEY_ID!,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY!,
    endpoint,
    // MinIO and most self-hosted services only route path-style; AWS prefers virtual hosts
    forcePathStyle: flag('S3_FORCE_PATH_STYLE', env.S3_FORCE_PATH_STYLE) ?? endpoint !== undefined,
    publicBaseUrl: env.S3_PUBLIC_URL || undefined,
    apiPublicUrl,
  };
}
