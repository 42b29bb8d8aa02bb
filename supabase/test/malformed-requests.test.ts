import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSupabase, type RunningLocalSupabase } from './support/index.ts';

/** Writes `head` on a fresh TCP connection and returns the first response line ('' when the peer just closed). */
function rawRequest(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(head));
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
    socket.on('close', done);
    socket.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' ? done() : reject(e)));
  });
}

const UPGRADE = 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';

// One malformed request line used to throw `TypeError: Invalid URL` in the upgrade listener and
// stop the process that hosts the services (the launcher). Answered now, and the port serves on.
describe('the local services port given malformed requests', () => {
  let sb: RunningLocalSupabase;
  beforeAll(async () => {
    sb = await startLocalSupabase('pglite');
  });
  afterAll(async () => {
    await sb?.stop();
  });

  it.each([
    // node-server reads `//[` as a path of the Host's origin: its 404 is an answer
    ['a request target WHATWG URL refuses', 'GET //[ HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n', /^HTTP\/1\.1 (400|404) /],
    ['an absolute target with a broken host', 'GET http://[ HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n', /^HTTP\/1\.1 400 /],
    ['garbage bytes', '\u0000\u0001\u00ff not http at all\r\n\r\n', /^HTTP\/1\.1 400 /],
    ['an upgrade with a bad URL', `GET //[ HTTP/1.1\r\nHost: localhost\r\n${UPGRADE}\r\n`, /^HTTP\/1\.1 400 /],
    ['an upgrade with a bad absolute URL', `GET http://[/realtime/v1/websocket HTTP/1.1\r\nHost: localhost\r\n${UPGRADE}\r\n`, /^HTTP\/1\.1 400 /],
  ])('answers %s, then serves a normal request', async (_what, head, expected) => {
    const { port } = new URL(sb.url);
    expect(await rawRequest(Number(port), head)).toMatch(expected);
    const res = await fetch(`${sb.url}/`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ auth: '/auth/v1' });
  });
});
