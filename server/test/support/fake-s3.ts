/**
 * @module A test-only S3 on 127.0.0.1: PutObject and GetObject on one bucket, objects in
 * memory, every request's SigV4 Authorization header recomputed here with node:crypto
 * (independently of the client's signer) and refused with S3's error documents when wrong.
 * Path-style (`/<bucket>/<key>`) and virtual-host (`Host: <bucket>.<host>`) addressing.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface FakeS3Object {
  data: Buffer;
  contentType: string | undefined;
  cacheControl: string | undefined;
}

interface FakeS3Request {
  method: string;
  host: string;
  path: string;
  status: number;
}

export interface FakeS3 {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  port: number;
  objects: Map<string, FakeS3Object>;
  requests: FakeS3Request[];
  /** Answers the next `count` requests with 503 SlowDown. */
  failNext(count: number): void;
  close(): Promise<void>;
}

export interface FakeS3Options {
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

function errorXml(code: string, message: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>fake</RequestId></Error>`;
}

/** The signature problem of a request, or undefined when it is correctly signed. */
function signatureProblem(req: IncomingMessage, body: Buffer, options: FakeS3Options): { code: string; message: string } | undefined {
  const auth = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(
    req.headers.authorization ?? '',
  );
  if (!auth) return { code: 'AccessDenied', message: 'Missing or malformed Authorization header' };
  const [, accessKeyId, date, region, signedHeaders, signature] = auth;
  if (accessKeyId !== options.accessKeyId) return { code: 'InvalidAccessKeyId', message: 'The AWS Access Key Id you provided does not exist in our records.' };
  if (region !== options.region) return { code: 'AuthorizationHeaderMalformed', message: `the region '${region}' is wrong; expecting '${options.region}'` };
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const headerNames = signedHeaders.split(';');
  if (!amzDate.startsWith(date) || !headerNames.includes('host') || !headerNames.includes('x-amz-date')) {
    return { code: 'AccessDenied', message: 'host and x-amz-date must be signed' };
  }
  const skew = Math.abs(Date.parse(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z')) - Date.now());
  if (!(skew < 15 * 60_000)) return { code: 'RequestTimeTooSkewed', message: 'The difference between the request time and the current time is too large.' };
  const payloadHash = String(req.headers['x-amz-content-sha256'] ?? '');
  if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== sha256(body)) {
    return { code: 'XAmzContentSHA256Mismatch', message: "The provided 'x-amz-content-sha256' header does not match what was computed." };
  }

  const url = new URL(req.url ?? '/', 'http://fake');
  const query = [...url.searchParams]
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .sort()
    .join('&');
  const canonicalHeaders = headerNames
    .map(
      (name) =>
        `${name}:${String(req.headers[name] ?? '')
          .trim()
          .replace(/\s+/g, ' ')}\n`,
    )
    .join('');
  const canonicalRequest = [req.method, url.pathname, query, canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const scope = `${date}/${region}/s3/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${options.secretAccessKey}`, date), region), 's3'), 'aws4_request');
  const expected = createHmac('sha256', signingKey).update(stringToSign).digest();
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) {
    return { code: 'SignatureDoesNotMatch', message: 'The request signature we calculated does not match the signature you provided.' };
  }
  return undefined;
}

/** Bucket and key from a virtual-host `Host` or, failing that, the path. */
function locate(req: IncomingMessage): { bucket: string; key: string } {
  const host = (req.headers.host ?? '').replace(/:\d+$/, '');
  const path = decodeURIComponent(new URL(req.url ?? '/', 'http://fake').pathname).slice(1);
  if (!/^\d+\.\d+\.\d+\.\d+$/.test(host) && host.includes('.')) return { bucket: host.slice(0, host.indexOf('.')), key: path };
  const slash = path.indexOf('/');
  return slash < 0 ? { bucket: path, key: '' } : { bucket: path.slice(0, slash), key: path.slice(slash + 1) };
}

export async function startFakeS3(options: FakeS3Options): Promise<FakeS3> {
  const objects = new Map<string, FakeS3Object>();
  const requests: FakeS3Request[] = [];
  let failures = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const reply = (status: number, xml?: string) => {
      requests.push({ method: req.method ?? '', host: req.headers.host ?? '', path: req.url ?? '', status });
      res.writeHead(status, xml ? { 'content-type': 'application/xml' } : {}).end(xml);
    };

    if (failures > 0) {
      failures--;
      return reply(503, errorXml('SlowDown', 'Please reduce your request rate.'));
    }
    const problem = signatureProblem(req, body, options);
    if (problem) return reply(403, errorXml(problem.code, problem.message));
    const { bucket, key } = locate(req);
    if (bucket !== options.bucket) return reply(404, errorXml('NoSuchBucket', 'The specified bucket does not exist'));

    if (req.method === 'PUT' && key) {
      objects.set(key, { data: body, contentType: req.headers['content-type'], cacheControl: req.headers['cache-control'] });
      requests.push({ method: 'PUT', host: req.headers.host ?? '', path: req.url ?? '', status: 200 });
      res.writeHead(200, { etag: `"${createHash('md5').update(body).digest('hex')}"` }).end();
      return;
    }
    if (req.method === 'GET' && key) {
      const object = objects.get(key);
      if (!object) return reply(404, errorXml('NoSuchKey', 'The specified key does not exist.'));
      requests.push({ method: 'GET', host: req.headers.host ?? '', path: req.url ?? '', status: 200 });
      res.writeHead(200, {
        ...(object.contentType ? { 'content-type': object.contentType } : {}),
        ...(object.cacheControl ? { 'cache-control': object.cacheControl } : {}),
        'content-length': object.data.length,
      });
      res.end(object.data);
      return;
    }
    if (req.method === 'HEAD' && key) {
      // S3 answers HEAD with the status and headers only, never an error body
      const object = objects.get(key);
      requests.push({ method: 'HEAD', host: req.headers.host ?? '', path: req.url ?? '', status: object ? 200 : 404 });
      res.writeHead(object ? 200 : 404, object ? { 'content-length': object.data.length } : {}).end();
      return;
    }
    reply(405, errorXml('MethodNotAllowed', 'The specified method is not allowed against this resource.'));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => res.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    objects,
    requests,
    failNext(count) {
      failures = count;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
