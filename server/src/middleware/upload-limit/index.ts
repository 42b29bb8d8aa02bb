/**
 * @module Body limits for the upload routes, which authenticate (and check the balance) from
 * the headers first and then read the body counted: a declared Content-Length over the limit
 * is answered 413 before a byte is read; a chunked body is counted as it arrives and cut at
 * the limit (its reader cancelled, nothing more pulled). A declared 413 is answered without
 * `Connection: close`: @hono/node-server then drains what the client still sends (at most
 * 64 MB or 500 ms, discarded at the socket, never parsed) so a client that writes its whole
 * body before reading (Python's http.client) reads the 413 instead of a broken pipe.
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv, AuthedEnv } from '../../context.ts';
import type { ApiError } from '../../errors.ts';
import { policyOf, type UploadDeps } from '../../services/uploads/store-upload.ts';
import { assertUploadQuota } from '../../services/uploads/upload-quota.ts';

interface LimitOptions {
  maxSize: number;
  tooLarge: () => ApiError;
}

/** Whether the request declares a length over `maxSize` (without Transfer-Encoding, which overrides it). */
function declaresTooMuch(headers: Headers, maxSize: number): boolean {
  const declared = headers.get('content-length');
  return declared !== null && !headers.has('transfer-encoding') && Number(declared) > maxSize;
}

/**
 * The body's chunks, counted: throws `tooLarge()` as soon as more than `maxSize` bytes arrived
 * (cancelling the body, so no more is read). Leaving the loop early cancels it too.
 */
export async function* limitedChunks(body: ReadableStream<Uint8Array> | null, options: LimitOptions): AsyncGenerator<Uint8Array> {
  if (!body) return;
  const reader = body.getReader();
  let size = 0;
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        return;
      }
      size += next.value.length;
      if (size > options.maxSize) throw options.tooLarge();
      yield next.value;
    }
  } finally {
    if (!done) reader.cancel().catch(() => {});
  }
}

/** 413 for a declared Content-Length over `maxSize`, before anything is read; the handler counts the rest (limitedChunks). */
export function declaredLengthLimit(options: LimitOptions) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (declaresTooMuch(c.req.raw.headers, options.maxSize)) return declaredTooLarge(c, options);
    await next();
  });
}

/** The 413 of a declared length, answered without closing (see the module's note). */
function declaredTooLarge(c: Context, options: LimitOptions): Response {
  const error = options.tooLarge();
  return c.json(error.toBody(), 413);
}

/**
 * For JSON upload routes: 413 for a declared length over `maxSize` before reading, else the
 * body buffered while counted and cut at `maxSize` (at most the limit is ever held).
 */
export function countedBodyLimit(options: LimitOptions) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!c.req.raw.body) return next();
    if (declaresTooMuch(c.req.raw.headers, options.maxSize)) return declaredTooLarge(c, options);
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of limitedChunks(c.req.raw.body, options)) {
      chunks.push(chunk);
      size += chunk.length;
    }
    c.req.raw = new Request(c.req.raw, { body: Buffer.concat(chunks, size) });
    await next();
  });
}

/**
 * After authentication, before the body: a free account already at its daily upload quota
 * (or without room for the file the Content-Length announces, less `framing` bytes) is
 * refused at once (services/uploads/upload-quota.ts).
 */
export function uploadQuotaGate(deps: UploadDeps, framing: number) {
  return createMiddleware<AuthedEnv>(async (c, next) => {
    const declared = Number(c.req.header('content-length') ?? 0);
    const fileBytes = Number.isFinite(declared) && !c.req.raw.headers.has('transfer-encoding') ? Math.max(0, declared - framing) : 0;
    await assertUploadQuota(deps.db, policyOf(deps), c.var.account.id, fileBytes);
    await next();
  });
}
