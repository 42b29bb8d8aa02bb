import net from 'node:net';

/** Request heads a listener must survive: answered with an error status, the process serving on. */
export const MALFORMED_REQUESTS: [name: string, head: string][] = [
  ['a request target WHATWG URL refuses', 'GET //[ HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'],
  ['an absolute target with a broken host', 'GET http://[ HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'],
  ['garbage bytes', '\u0000\u0001\u00ff not http at all\r\n\r\n'],
  [
    'an upgrade with a bad URL',
    'GET //[ HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
  ],
];

/** Writes `head` on a fresh TCP connection and returns the first response line ('' when the peer just closed). */
export function rawRequest(port: number, head: string | Buffer, host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, host, () => socket.write(head));
    let data = '';
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(data.split('\r\n')[0] ?? '');
    };
    const timer = setTimeout(done, 3000);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      data += chunk;
      if (data.includes('\r\n')) done();
    });
    socket.on('end', done);
    socket.on('close', done);
    socket.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' ? done() : reject(e)));
  });
}
