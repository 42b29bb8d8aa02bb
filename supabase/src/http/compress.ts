/**
 * @module Compression of JSON answers (the API's and /rest/v1's): brotli or gzip, as the client
 * accepts, for bodies of at least `threshold` bytes. Only JSON is touched, so streams go out as
 * they are written: server-sent events, CSV exports, media and their ranges (hono/compress would
 * compress any text/* stream without a Content-Length, SSE included, and has no brotli).
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { MiddlewareHandler } from 'hono';

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;
const NO_TRANSFORM = /(?:^|,)\s*no-transform\s*(?:,|$)/i;

/** The coding to use for an Accept-Encoding header: br before gzip at equal weight, none for q=0 or no header. */
export function pickEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | undefined {
  if (!acceptEncoding) return undefined;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
    if (name) weights.set(name.trim(), q ? Number(q[1]) : 1);
  }
  const weight = (coding: string) => weights.get(coding) ?? weights.get('*') ?? 0;
  const best = (['br', 'gzip'] as const).filter((c) => weight(c) > 0).sort((a, b) => weight(b) - weight(a))[0];
  return best;
}

/**
 * @example
 * app.use(compressJson())          // JSON of 1 KiB or more: br or gzip; everything else untouched
 */
export function compressJson(options: { threshold?: number } = {}): MiddlewareHandler {
  const threshold = options.threshold ?? 1024;
  return async (c, next) => {
    await next();
    const res = c.res;
    if (c.req.method === 'HEAD' || !res.body || res.status === 204 || res.status === 304) return;
    // a byte range is of the identity body; PostgREST's 206 (Content-Range: 0-19/*, rows) is whole JSON
    if (res.status === 206 && /^bytes\b/i.test(res.headers.get('content-range') ?? 'bytes')) return;
    if (!JSON_TYPE.test(res.headers.get('content-type') ?? '') || res.headers.has('content-encoding')) return;
    if (NO_TRANSFORM.test(res.headers.get('cache-control') ?? '')) return;
    // the answer depends on Accept-Encoding for any size (the next one may be bigger): caches must know
    const vary = res.headers.get('vary');
    if (vary !== '*' && !/(?:^|,)\s*accept-encoding\s*(?:,|$)/i.test(vary ?? '')) {
      res.headers.set('vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
    }
    const encoding = pickEncoding(c.req.header('accept-encoding'));
    const declared = Number(res.headers.get('content-length') ?? Number.NaN);
    if (!encoding || declared < threshold) return;
    const body = Buffer.from(await res.arrayBuffer());
    let out: Buffer = body;
    if (body.length >= threshold) {
      // brotli 5 / gzip 6: most of the ratio for a fraction of the top levels' time on a request path
      out =
        encoding === 'br'
          ? await brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
          : await gz(body, { level: 6 });
    }
    const headers = new Headers(res.headers);
    headers.set('content-length', String(out.length));
    if (out !== body) {
      headers.set('content-encoding', encoding);
      const etag = headers.get('etag');
      if (etag && !etag.startsWith('W/')) headers.set('etag', `W/${etag}`);
    }
    // c.res = ... would lay the old headers (content-length among them) over these: replace it whole
    c.res = undefined;
    c.res = new Response(new Uint8Array(out), { status: res.status, statusText: res.statusText, headers });
  };
}
