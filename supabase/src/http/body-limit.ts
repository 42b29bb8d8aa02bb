/**
 * @module A request body size limit whose 413 ordinary clients can read. Python's
 * http.client, Node's http and many SDKs write the whole body before they read the answer;
 * answering and closing while they still write resets the connection, and they report a
 * broken pipe instead of the message. So a body over the limit is read and discarded (up to
 * a bound) before the 413 is answered; only past that bound is the connection given up.
 *
 * Reading costs CPU, so a process drains at most MAX_CONCURRENT_DRAINS bodies at once (here
 * and after a refusal: `drainOrClose`); past that a refusal is answered with `Connection:
 * close` and the rest of the body is not read. A flood of large hostile bodies then costs one
 * read of its headers each, while an ordinary client's occasional oversized body still gets a
 * readable answer.
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';

const MiB = 1024 * 1024;
// Reading a few times the limit costs little (nothing is kept); past that, closing is cheaper.
const DRAIN_FACTOR = 4;
const MIN_DRAIN_BYTES = 16 * MiB;

/** Bodies one process reads and discards at once; more are refused with Connection: close. */
const MAX_CONCURRENT_DRAINS = 4;
/** Longest a drain after the answer holds its slot. */
const DRAIN_SLOT_MS = 1_000;
let draining = 0;

/** Takes a drain slot: its release, or undefined when MAX_CONCURRENT_DRAINS are taken. */
function drainSlot(): (() => void) | undefined {
  if (draining >= MAX_CONCURRENT_DRAINS) return undefined;
  draining += 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    draining -= 1;
  };
}

/** Bodies being drained now (tests). */
export function drainsInProgress(): number {
  return draining;
}

interface NodeIncoming {
  readableEnded: boolean;
  destroyed: boolean;
  once(event: 'close' | 'end', listener: () => void): unknown;
}

/**
 * After the answer of a request whose body was not read to its end (a refusal from the
 * headers: 401, 402, 413, 429...): @hono/node-server then reads and discards what is left (up
 * to 64 MB or 500 ms) so the client can read the answer. That read takes a drain slot; with
 * none free the answer carries `Connection: close` and nothing more is read. Only under
 * @hono/node-server (c.env.incoming); a no-op in-process.
 *
 * @example
 * app.use(drainOrClose())
 */
export function drainOrClose() {
  return createMiddleware(async (c, next) => {
    await next();
    const incoming = (c.env as { incoming?: Partial<NodeIncoming> } | undefined)?.incoming;
    // a real IncomingMessage only (an in-process call may pass a stand-in without one)
    if (typeof incoming?.once !== 'function' || incoming.readableEnded !== false || incoming.destroyed) return;
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return;
    const release = drainSlot();
    if (!release) {
      c.res.headers.set('Connection', 'close');
      return;
    }
    // @hono/node-server gives up a drain after 500 ms; a slot never outlives a second, whatever
    // the events (a keep-alive socket whose request never reports its end keeps none)
    const expiry = setTimeout(release, DRAIN_SLOT_MS);
    expiry.unref?.();
    const done = () => {
      clearTimeout(expiry);
      release();
    };
    incoming.once('end', done);
    incoming.once('close', done);
  });
}

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

/** `discard` in a drain slot, or, with none free, the answer closes the connection. */
async function discardOrClose(c: Context, reader: ReadableStreamDefaultReader<Uint8Array>, seen: number, limit: number): Promise<void> {
  const release = drainSlot();
  if (!release) {
    c.header('Connection', 'close');
    await reader.cancel().catch(() => {});
    return;
  }
  try {
    await discard(reader, seen, limit);
  } finally {
    release();
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
      // past the drain bound: answered at once (drainOrClose decides about what still comes)
      if (length <= limit) await discardOrClose(c, body.getReader(), 0, limit);
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
        await discardOrClose(c, reader, size, limit);
        return tooLarge(c);
      }
      chunks.push(value);
    }
    c.req.raw = new Request(c.req.raw, { body: Buffer.concat(chunks, size) });
    return next();
  });
}
