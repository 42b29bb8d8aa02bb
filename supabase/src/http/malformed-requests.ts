/**
 * @module What a plain Node listener does with a request it cannot understand: answer 400 and
 * go on serving. `new URL(req.url, base)` throws on a request target such as `//[` (the
 * parser accepts it, WHATWG URL does not), and a throw in a listener or an `upgrade` handler
 * is an uncaught exception: one bad line from anyone would stop the process.
 */
import { STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** The URL of a request target, or undefined when it is not one (answer 400). */
export function requestUrl(target: string | undefined, base = 'http://localhost'): URL | undefined {
  try {
    return new URL(target ?? '/', base);
  } catch {
    return undefined;
  }
}

/** Ends a raw socket (an upgrade, a client error) with a short plain response and closes it. */
export function endSocket(socket: Duplex, status: number, message = STATUS_CODES[status] ?? 'Error') {
  if (socket.destroyed) return;
  if (!socket.writable) return void socket.destroy();
  const body = `${message}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  // a peer that never reads must not keep the socket open
  setTimeout(() => socket.destroy(), 1000).unref();
}

/**
 * Makes explicit what a listener does with bytes that are not HTTP (Node's parser refuses
 * them before any handler runs): 431 for oversized headers, 408 for a request too slow to
 * arrive, 400 otherwise; a reset connection is just closed. Nothing is logged: scanners send
 * such bytes all day. Also swallows socket errors of upgrade sockets no handler took.
 */
export function guardHttpServer<S extends Server>(server: S): S {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // as Node's default: an answer only on a connection nothing was written to yet (a
    // response half-sent must not get a 400 in its middle)
    if (err.code === 'ECONNRESET' || !socket.writable || ((socket as Socket).bytesWritten ?? 0) > 0) return void socket.destroy();
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    endSocket(socket, status);
  });
  return server;
}
