/**
 * The hostile suite's HTTP client: node:http with a chosen loopback source address per caller
 * (each tenant and each attacker is its own client address, as on the internet, so per-address
 * limits are tested as they apply), and a sender of huge chunked bodies that counts the bytes it
 * got out before the answer came.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** From the request's start to the end of the answer's body. */
  ms: number;
}

const agents = new Map<string, http.Agent>();

/** One keep-alive agent per source address, so a probe's latency is not a TCP handshake. */
function agentFor(from: string): http.Agent {
  let agent = agents.get(from);
  if (!agent) {
    agent = new http.Agent({ keepAlive: true, maxSockets: 32, localAddress: from } as http.AgentOptions);
    agents.set(from, agent);
  }
  return agent;
}

export function closeAgents(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

/** Never anything but loopback: the suite attacks this machine's platform only. */
function loopbackUrl(url: string): URL {
  const u = new URL(url);
  if (!/^127\.\d+\.\d+\.\d+$/.test(u.hostname)) throw new Error(`the hostile suite only talks to 127.0.0.0/8, not ${u.hostname}`);
  return u;
}

export function request(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer; from?: string; timeoutMs?: number } = {},
): Promise<Answer> {
  const u = loopbackUrl(url);
  const from = opts.from ?? '127.0.0.1';
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: `${u.pathname}${u.search}`,
        method: opts.method ?? 'GET',
        headers: { ...opts.headers, ...(opts.body !== undefined ? { 'content-length': String(Buffer.byteLength(opts.body)) } : {}) },
        agent: agentFor(from),
        timeout: opts.timeoutMs ?? 15_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${opts.method ?? 'GET'} ${u.pathname}: no answer in ${opts.timeoutMs ?? 15_000} ms`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}

export const json = <T>(a: Answer): T => JSON.parse(a.text) as T;

export interface BigBodyOutcome {
  /** The answer's status, or 0: the server closed the connection before the client parsed an answer. */
  status: number;
  ms: number;
  /** Bytes of the body written into the socket before the answer's head arrived. */
  sentBeforeAnswer: number;
}

/**
 * POSTs `total` bytes chunked (`head` first, filler after) on a fresh connection, writing only
 * as fast as the socket drains, and stops at the answer. What was written includes what the
 * kernel buffers on both ends of the loopback connection (a few MB), not only what the server read.
 */
export function sendBigBody(
  url: string,
  opts: { from: string; headers: Record<string, string>; head: Buffer; total: number; timeoutMs?: number },
): Promise<BigBodyOutcome> {
  const u = loopbackUrl(url);
  const started = performance.now();
  const CHUNK = 64 * 1024;
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = http.request({
      host: u.hostname,
      port: u.port,
      path: u.pathname,
      method: 'POST',
      headers: { ...opts.headers, 'transfer-encoding': 'chunked' },
      localAddress: opts.from,
      agent: false,
    });
    const timer = setTimeout(
      () => req.destroy(new Error(`${u.pathname}: no answer to a big body in ${opts.timeoutMs ?? 20_000} ms`)),
      opts.timeoutMs ?? 20_000,
    );
    const filler = Buffer.alloc(CHUNK, 0x61);
    const pump = () => {
      while (!answered && sent < opts.total) {
        const chunk = sent < opts.head.length ? opts.head.subarray(sent) : filler.subarray(0, Math.min(CHUNK, opts.total - sent));
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    req.on('response', (res) => {
      answered = true;
      const sentBeforeAnswer = sent;
      const status = res.statusCode ?? 0;
      res.resume();
      const done = () => {
        clearTimeout(timer);
        req.destroy();
        resolve({ status, ms: performance.now() - started, sentBeforeAnswer });
      };
      res.on('end', done);
      res.on('error', done);
      res.on('close', done);
    });
    // a server that answers and closes may reset the rest of the upload: fine once answered.
    // The reset can also reach the writer before the answer is parsed (EPIPE, ECONNRESET):
    // then the answer gets a moment to arrive, else the outcome is `closed` (status 0) with
    // what was written by then.
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (answered) return;
      if (e.code !== 'EPIPE' && e.code !== 'ECONNRESET') {
        clearTimeout(timer);
        reject(e);
        return;
      }
      const sentBeforeClose = sent;
      answered = true;
      setTimeout(() => {
        clearTimeout(timer);
        resolve({ status: 0, ms: performance.now() - started, sentBeforeAnswer: sentBeforeClose });
      }, 0);
    });
    pump();
  });
}

/** A request head with a header of `bytes` bytes (over Node's 16 KiB limit: 431). */
export function hugeHeaderRequest(bytes: number): string {
  return `GET / HTTP/1.1\r\nHost: localhost\r\nX-Huge: ${'a'.repeat(bytes)}\r\nConnection: close\r\n\r\n`;
}
