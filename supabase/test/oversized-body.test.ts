// The local services' 1 MiB body limit over a real socket: a client that writes the whole
// body before reading (Node's http, Python's http.client) reads PostgREST's 413, not a
// broken pipe.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSupabase, type RunningLocalSupabase } from './support/local-server.ts';

const MB = 1024 * 1024;
const TOO_LARGE = { code: 'PGRST413', message: 'Payload Too Large', details: null, hint: null };

/** Node's http client: the whole body written, then the answer read; an EPIPE/ECONNRESET on the way is the failure. */
function nodePost(url: URL, body: Buffer, headers: Record<string, string>): Promise<{ status?: number; body?: unknown; error?: string }> {
  return new Promise((resolve) => {
    let error: string | undefined;
    const req = http.request({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: { ...headers, 'content-length': String(body.length) },
    });
    req.on('error', (e) => {
      error ??= String(e);
      resolve({ error });
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(error ? { error } : { status: res.statusCode, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    // written in pieces, as a client streaming a file does
    for (let at = 0; at < body.length; at += 64 * 1024) req.write(body.subarray(at, at + 64 * 1024));
    req.end();
  });
}

/** Python's http.client: sends all of the body, then reads the status and the JSON. */
function pythonPost(url: URL, size: number, apikey: string): Promise<string> {
  const script = `
import http.client, json, sys
c = http.client.HTTPConnection(${JSON.stringify(url.hostname)}, ${url.port}, timeout=30)
body = b'{"name":"' + b'x' * ${size} + b'"}'
try:
    c.request('POST', ${JSON.stringify(url.pathname)}, body=body, headers={'Content-Type': 'application/json', 'apikey': ${JSON.stringify(apikey)}})
    r = c.getresponse()
    print(r.status, json.loads(r.read())['code'])
except Exception as e:
    print('error', type(e).__name__, e)
`;
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', script]);
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.on('error', reject);
    child.on('close', () => resolve(out.trim()));
  });
}

describe('oversized bodies sent to the local services', () => {
  let sb: RunningLocalSupabase;
  beforeAll(async () => {
    sb = await startLocalSupabase('pglite');
  });
  afterAll(async () => {
    await sb?.stop();
  });

  it('should let Node http read the 413 of an 8 MB body', async () => {
    const url = new URL('/rest/v1/mdusers', sb.url);
    const body = Buffer.from(JSON.stringify({ name: 'x'.repeat(8 * MB) }));
    const answer = await nodePost(url, body, { 'content-type': 'application/json', apikey: sb.config.anonKey });
    expect(answer).toEqual({ status: 413, body: TOO_LARGE });
  });

  it("should let Python's http.client read the 413 of an 8 MB body", async () => {
    expect(await pythonPost(new URL('/auth/v1/otp', sb.url), 8 * MB, sb.config.anonKey)).toBe('413 PGRST413');
  });
});
