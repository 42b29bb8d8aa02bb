/**
 * @module A request body size limit whose 413 ordinary clients can read. Python's
 * http.client, Node's http and many SDKs write the whole body before they read the answer;
 * answering and closing while they still write resets the connection, and they report a
 * broken pipe instead of the message. So a body over the limit is read and discarded (up to
 * a bound) before the 413 is answered; only past that bound is the connection given up.
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';

const MiB = 1024 * 1024;
// Reading a few times the limit costs little (nothing is kept); past that, closing is cheaper.
const DRAIN_FACTOR = 4;
const MIN_DRAIN_BYTES = 16 * MiB;

/** How many bytes of an oversized body are read and discarded before answering 413. */
function drainLimit(maxSize: number): number {
  return Math.max(DRAIN_FACTOR * maxSize, MIN_DRAIN_BYTES);
}

/** Reads and drops the rest of a body, `seen` bytes in; stops (cancelling it) past `limit`. */
async function discard(reader: ReadableStreamDefaultReader<Uint8Array>, seen: number, limit: number): Promise<void> {
  let size = seen;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      size += value.length;
      if (size > limit) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    // the client went away: nothing left to read, the answer goes nowhere
  }
}

/**
 * Bodies over `maxSize` bytes are answered by `tooLarge` (which may also throw, for an app's
 * error handler) once the rest of the body has been read, so the client is listening when the
 * 413 arrives. A body of unknown length (chunked) is buffered up to the limit, as hono's
 * bodyLimit does.
 *
 * @example
 * app.use(readableBodyLimit({ maxSize: 1024 * 1024, tooLarge: (c) => c.json({ message: 'Payload Too Large' }, 413) }))
 */
export function readableBodyLimit(options: { maxSize: number; tooLarge: (c: Context) => Response | Promise<Response> }) {
  const { maxSize, tooLarge } = options;
  const limit = drainLimit(maxSize);
  return createMiddleware(async (c, next) => {
    const body = c.req.raw.body;
    if (!body) return next();
    const declared = c.req.header('content-length');
    if (declared !== undefined && !c.req.raw.headers.has('transfer-encoding')) {
      const length = Number(declared);
      if (!(length > maxSize)) return next();
      if (length <= limit) await discard(body.getReader(), 0, limit);
      return tooLarge(c);
    }
    const reader = body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > maxSize) {
        await discard(reader, size, limit);
        return tooLarge(c);
      }
      chunks.push(value);
    }
    c.req.raw = new Request(c.req.raw, { body: Buffer.concat(chunks, size) });
    return next();
  });
}
