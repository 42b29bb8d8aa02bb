// A refusal's unread body over a real socket: @hono/node-server reads and discards what the
// client still sends so the client can read the answer, but a process does that for at most a
// few requests at once; the others are answered with Connection: close and read no further, so a
// flood of big hostile bodies costs the process their headers, not their megabytes.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainOrClose, drainsInProgress } from '../src/http/body-limit.ts';

const MB = 1024 * 1024;

/** Writes up to `total` bytes chunked; resolves with what was written and the answer's head once the server closes. */
function floodPost(port: number, total: number): Promise<{ sent: number; head: string }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write('POST /refuse HTTP/1.1\r\nHost: local\r\nTransfer-Encoding: chunked\r\n\r\n');
      const chunk = `${(64 * 1024).toString(16)}\r\n${'a'.repeat(64 * 1024)}\r\n`;
      let sent = 0;
      const pump = () => {
        while (sent < total && !socket.destroyed) {
          sent += 64 * 1024;
          if (!socket.write(chunk)) {
            socket.once('drain', pump);
            return;
          }
        }
        if (!socket.destroyed) socket.end('0\r\n\r\n');
      };
      let got = '';
      socket.on('data', (d: Buffer) => (got += d.toString('latin1')));
      socket.on('error', () => {});
      socket.on('close', () => resolve({ sent, head: got.split('\r\n\r\n')[0] }));
      // a keep-alive answer leaves the socket open: the client ends it after a while
      setTimeout(() => socket.destroy(), 4_000);
      pump();
    });
  });
}

describe('drainOrClose', () => {
  let server: ServerType;
  let port: number;

  beforeAll(async () => {
    const app = new Hono();
    app.use(drainOrClose());
    app.post('/refuse', (c) => c.json({ message: 'no key' }, 401));
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('drains at most four refused bodies at once and closes the others unread', async () => {
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => floodPost(port, 24 * MB)));
    for (const o of outcomes) expect(o.head).toMatch(/^HTTP\/1\.1 401 /);
    const closed = outcomes.filter((o) => /\r\nconnection: close/i.test(o.head));
    const drained = outcomes.filter((o) => /\r\nconnection: keep-alive/i.test(o.head));
    expect(drained.length).toBeLessThanOrEqual(4);
    expect(closed.length).toBeGreaterThanOrEqual(4);
    expect(drained.length + closed.length).toBe(8);
    // what a closed one wrote fits the loopback connection's socket buffers, not its 24 MB
    for (const o of closed) expect(o.sent).toBeLessThan(24 * MB);
    // the slots are given back
    for (let i = 0; i < 50 && drainsInProgress() > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(drainsInProgress()).toBe(0);
  });
});
