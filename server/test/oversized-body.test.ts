/**
 * Oversized bodies over a real socket: ordinary clients (Node's http, fetch, Python's
 * http.client) that send the whole body before reading the answer must read the 413 and its
 * message, not a broken pipe or a reset connection.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { createTestDb, testDatabaseKinds } from '@aim/supabase/testing';
import { createApiApp } from '../src/app.ts';
import { captureLogger, createUser, testConfig, type TestUser } from './helpers.ts';

const MB = 1024 * 1024;
const BOUNDARY = 'aim-oversized-boundary';
const UPLOAD_TOO_LARGE = { status: 413, message: 'Image must be at most 10 MB', errors: [{ msg: 'Image must be at most 10 MB', code: 'payload_too_large' }] };
const JSON_TOO_LARGE = { status: 413, message: 'Request body is too large', errors: [{ msg: 'Request body is too large', code: 'payload_too_large' }] };

interface Answer {
  status?: number;
  message?: string;
  errors?: unknown;
  error?: string;
}

/** A multipart body with one `image` part of `size` bytes (a PNG signature, then filler). */
function multipartBody(size: number): Buffer {
  const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="image"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`;
  const file = Buffer.alloc(size, 0x61);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(file);
  return Buffer.concat([Buffer.from(head), file, Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);
}

function jsonBody(size: number): Buffer {
  return Buffer.from(JSON.stringify({ prompt: 'x'.repeat(size) }));
}

const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;

/**
 * Node's http client: write the whole body, read the answer. Done when both the upload and
 * the answer are; any error on the way (EPIPE, ECONNRESET) is the failure we look for.
 */
function nodeHttpPost(port: number, path: string, headers: Record<string, string>, body: Buffer, chunked = false): Promise<Answer> {
  return new Promise((resolve) => {
    let error: string | undefined;
    const length = chunked ? {} : { 'content-length': String(body.length) };
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers: { ...headers, ...length } });
    const sent = new Promise<void>((done) => {
      req.on('finish', done);
      req.on('error', (e) => {
        error ??= String(e);
        done();
      });
    });
    const answered = new Promise<Answer>((done) => {
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            done({ status: res.statusCode, ...JSON.parse(text) });
          } catch {
            done({ status: res.statusCode, error: `not JSON: ${text.slice(0, 200)}` });
          }
        });
        res.on('error', (e) => done({ error: String(e) }));
      });
      req.on('error', () => done({}));
    });
    if (chunked) {
      // no Content-Length: Transfer-Encoding chunked, one chunk per write
      for (let at = 0; at < body.length; at += MB) req.write(body.subarray(at, at + MB));
      req.end();
    } else req.end(body);
    void Promise.all([sent, answered]).then(([, answer]) => resolve(error ? { ...answer, error } : answer));
  });
}

async function fetchPost(port: number, path: string, headers: Record<string, string>, body: Buffer): Promise<Answer> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers, body: new Uint8Array(body) });
    return { status: res.status, ...((await res.json()) as object) };
  } catch (e) {
    return { error: `${String(e)} ${String((e as Error).cause ?? '')}` };
  }
}

// Python's http.client sends the whole body before it reads anything: the classic victim.
const PYTHON_CLIENT = `
import http.client, json, sys
port, path, content_type, key, kind, size = sys.argv[1:7]
size = int(size)
if kind == 'multipart':
    boundary = content_type.split('boundary=')[1]
    head = ('--%s\\r\\nContent-Disposition: form-data; name="image"; filename="big.png"\\r\\nContent-Type: image/png\\r\\n\\r\\n' % boundary).encode()
    body = head + b'\\x89PNG\\r\\n\\x1a\\n' + b'a' * (size - 8) + ('\\r\\n--%s--\\r\\n' % boundary).encode()
else:
    body = json.dumps({'prompt': 'x' * size}).encode()
try:
    conn = http.client.HTTPConnection('127.0.0.1', int(port), timeout=30)
    conn.request('POST', path, body=body, headers={'Content-Type': content_type, 'Authorization': key})
    res = conn.getresponse()
    answer = json.loads(res.read())
    answer['status'] = res.status
    print(json.dumps(answer))
except Exception as e:
    print(json.dumps({'error': repr(e)}))
`;

function pythonPost(port: number, path: string, contentType: string, key: string, kind: 'multipart' | 'json', size: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', PYTHON_CLIENT, String(port), path, contentType, key, kind, String(size)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
    });
    child.on('error', reject);
    child.on('close', () => {
      try {
        resolve(JSON.parse(out) as Answer);
      } catch {
        reject(new Error(`python client printed ${JSON.stringify(out)} ${err}`));
      }
    });
  });
}

describe.each(testDatabaseKinds())('oversized bodies over a real socket on %s', (kind) => {
  let db: Db;
  let server: http.Server;
  let port: number;
  let user: TestUser;

  beforeAll(async () => {
    db = await createTestDb(kind);
    user = await createUser(db);
    const app = createApiApp({ db, config: testConfig, log: captureLogger() });
    await new Promise<void>((resolve) => {
      server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve()) as http.Server;
    });
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    await db?.close();
  });

  it("should let Node's http client read 413 'Image must be at most 10 MB' for an 11 MB upload", async () => {
    const answer = await nodeHttpPost(port, '/upload', { 'content-type': MULTIPART, authorization: user.apiKey }, multipartBody(11 * MB));
    expect(answer).toEqual(UPLOAD_TOO_LARGE);
  });

  it('should read and answer 413 for an 11 MB upload sent chunked, without a length', async () => {
    const answer = await nodeHttpPost(port, '/upload', { 'content-type': MULTIPART, authorization: user.apiKey }, multipartBody(11 * MB), true);
    expect(answer).toEqual(UPLOAD_TOO_LARGE);
  });

  it("should let Python's http.client read 413 'Image must be at most 10 MB' for an 11 MB upload", async () => {
    const answer = await pythonPost(port, '/upload', MULTIPART, user.apiKey, 'multipart', 11 * MB);
    expect(answer).toEqual(UPLOAD_TOO_LARGE);
  });

  it('should let fetch read the 413 for an 11 MB upload', async () => {
    const answer = await fetchPost(port, '/upload', { 'content-type': MULTIPART, authorization: user.apiKey }, multipartBody(11 * MB));
    expect(answer).toEqual(UPLOAD_TOO_LARGE);
  });

  it("should let Node's http client and Python's http.client read 413 for an 8 MB JSON body", async () => {
    const headers = { 'content-type': 'application/json', authorization: user.apiKey };
    expect(await nodeHttpPost(port, '/pro/imagine', headers, jsonBody(8 * MB))).toEqual(JSON_TOO_LARGE);
    expect(await pythonPost(port, '/pro/imagine', 'application/json', user.apiKey, 'json', 8 * MB)).toEqual(JSON_TOO_LARGE);
  });
});
