/**
 * @module One HTTP attempt of a webhook: POST the body, never follow a redirect, give up
 * after a timeout, and report what happened (never throws).
 *
 * node:http rather than fetch: its per-request `lookup` hook is where the SSRF guard
 * checks the addresses the socket actually connects to, and it ignores proxy settings.
 */
import http from 'node:http';
import https from 'node:https';
import { checkLiteralHost, guardedLookup, TargetRefusedError, type ResolveHost } from './target-guard.ts';

export const MAX_SNIPPET_CHARS = 500;
// Enough bytes for 500 characters of any UTF-8; the rest of a large answer is not read.
const MAX_READ_BYTES = MAX_SNIPPET_CHARS * 4;

export interface SendOptions {
  timeoutMs: number;
  allowPrivateTargets: boolean;
  resolveHost: ResolveHost;
}

export interface SendResult {
  outcome: 'delivered' | 'retry' | 'refused';
  statusCode?: number;
  latencyMs: number;
  snippet?: string;
  error?: string;
}

// Postgres text cannot hold NUL; a receiver may send anything.
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this removes
const clean = (s: string) => s.replace(/\u0000/g, '');

export function sendWebhook(url: string, body: string, headers: Record<string, string>, opts: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const latencyMs = () => Math.round(performance.now() - started);

  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve({ outcome: 'refused', latencyMs: latencyMs(), error: 'refused: not a valid URL' });
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return Promise.resolve({ outcome: 'refused', latencyMs: latencyMs(), error: `refused: unsupported scheme ${target.protocol}` });
  }
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!opts.allowPrivateTargets) {
    try {
      checkLiteralHost(host);
    } catch (e) {
      return Promise.resolve({ outcome: 'refused', latencyMs: latencyMs(), error: `refused: ${(e as Error).message}` });
    }
  }

  return new Promise((resolve) => {
    let settled = false;
    let statusCode: number | undefined;
    const chunks: Buffer[] = [];
    let read = 0;

    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const snippet = chunks.length ? clean(Buffer.concat(chunks).toString('utf8').slice(0, MAX_SNIPPET_CHARS)) : undefined;
      if (statusCode === undefined) {
        const refused = err instanceof TargetRefusedError;
        resolve({
          outcome: refused ? 'refused' : 'retry',
          latencyMs: latencyMs(),
          error: clean(refused ? `refused: ${err.message}` : describeError(err)),
        });
        return;
      }
      if (statusCode >= 200 && statusCode < 300) {
        resolve({ outcome: 'delivered', statusCode, latencyMs: latencyMs(), snippet });
      } else {
        const error = statusCode >= 300 && statusCode < 400 ? `redirect not followed (HTTP ${statusCode})` : `HTTP ${statusCode}`;
        resolve({ outcome: 'retry', statusCode, latencyMs: latencyMs(), snippet, error });
      }
    };

    const client = target.protocol === 'https:' ? https : http;
    const req = client.request(
      {
        protocol: target.protocol,
        hostname: host,
        port: target.port || undefined,
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        auth: target.username ? `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}` : undefined,
        // A fresh connection per attempt: a pooled socket would skip the guarded lookup.
        agent: false,
        lookup: opts.allowPrivateTargets ? undefined : guardedLookup(opts.resolveHost),
      },
      (res) => {
        statusCode = res.statusCode;
        res.on('data', (chunk: Buffer) => {
          if (read < MAX_READ_BYTES) chunks.push(chunk.subarray(0, MAX_READ_BYTES - read));
          read += chunk.length;
          if (read >= MAX_READ_BYTES) {
            finish();
            res.destroy();
          }
        });
        res.on('end', () => finish());
        res.on('error', () => finish());
        res.on('close', () => finish());
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`timed out after ${opts.timeoutMs} ms`)), opts.timeoutMs);
    req.on('error', (err) => finish(err));
    req.end(body);
  });
}

function describeError(err: Error | undefined): string {
  if (!err) return 'connection closed without an answer';
  const code = (err as NodeJS.ErrnoException).code;
  return code && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
}
