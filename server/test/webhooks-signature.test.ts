import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { blockedAddressReason, generateSigningSecret, MAX_ATTEMPTS, resolveWebhookTarget, signWebhook, verifyWebhookSignature } from '../src/webhooks/index.ts';
import { nextRetryDelayMs, RETRY_DELAYS_MS } from '../src/webhooks/retry-schedule.ts';
import { sendWebhook } from '../src/webhooks/send-webhook.ts';
import { resolveWithDns, type ResolveHost } from '../src/webhooks/target-guard.ts';

const body = JSON.stringify({ task_id: 'b7c5', status: 'finished', percentage: 100 });
const nowSec = () => Math.floor(Date.now() / 1000);

describe('webhook signatures', () => {
  it('verifies its own signature and rejects a changed body, id, timestamp or secret', () => {
    const headers = signWebhook('s3cret', 'msg_1', nowSec(), body);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(verifyWebhookSignature('s3cret', headers, body)).toMatchObject({ ok: true, id: 'msg_1' });
    expect(verifyWebhookSignature('s3cret', headers, Buffer.from(body))).toMatchObject({ ok: true });
    expect(verifyWebhookSignature('s3cret', headers, body.replace('100', '99'))).toEqual({ ok: false, reason: 'no matching signature' });
    expect(verifyWebhookSignature('other', headers, body).ok).toBe(false);
    expect(verifyWebhookSignature('s3cret', { ...headers, 'webhook-id': 'msg_2' }, body).ok).toBe(false);
    const ts = Number(headers['webhook-timestamp']);
    expect(verifyWebhookSignature('s3cret', { ...headers, 'webhook-timestamp': String(ts + 1) }, body).ok).toBe(false);
  });

  it('reads headers case-insensitively, from a Headers object too, and accepts any matching v1 entry', () => {
    const h = signWebhook('s3cret', 'msg_1', nowSec(), body);
    const upper = { 'Webhook-Id': h['webhook-id'], 'Webhook-Timestamp': h['webhook-timestamp'], 'Webhook-Signature': h['webhook-signature'] };
    expect(verifyWebhookSignature('s3cret', upper, body).ok).toBe(true);
    expect(verifyWebhookSignature('s3cret', new Headers(h), body).ok).toBe(true);
    const rotated = { ...h, 'webhook-signature': `v1,AAAA v2,xyz ${h['webhook-signature']}` };
    expect(verifyWebhookSignature('s3cret', rotated, body).ok).toBe(true);
    expect(verifyWebhookSignature('s3cret', { ...h, 'webhook-signature': 'v1,AAAA' }, body).ok).toBe(false);
  });

  it('refuses timestamps outside the tolerance and missing headers', () => {
    const old = signWebhook('s3cret', 'msg_1', nowSec() - 400, body);
    expect(verifyWebhookSignature('s3cret', old, body)).toEqual({ ok: false, reason: 'timestamp outside the tolerance' });
    expect(verifyWebhookSignature('s3cret', old, body, { toleranceSec: 600 }).ok).toBe(true);
    const future = signWebhook('s3cret', 'msg_1', nowSec() + 400, body);
    expect(verifyWebhookSignature('s3cret', future, body).ok).toBe(false);
    const { 'webhook-signature': _, ...unsigned } = signWebhook('s3cret', 'msg_1', nowSec(), body);
    expect(verifyWebhookSignature('s3cret', unsigned, body).ok).toBe(false);
    expect(verifyWebhookSignature('s3cret', { ...old, 'webhook-timestamp': '12abc' }, body).ok).toBe(false);
  });

  it('is verifiable by the standardwebhooks package: whsec_ account secrets and raw per-request secrets', () => {
    const accountSecret = generateSigningSecret();
    expect(accountSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const signed = signWebhook(accountSecret, 'msg_a', nowSec(), body);
    expect(new Webhook(accountSecret).verify(body, signed)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateSigningSecret()).verify(body, signed)).toThrow();

    const raw = signWebhook('my request secret', 'msg_b', nowSec(), body);
    expect(new Webhook('my request secret', { format: 'raw' }).verify(body, raw)).toEqual(JSON.parse(body));
    // and the other way round: what the reference library signs, our helper accepts
    const at = nowSec();
    const theirs = new Webhook(accountSecret).sign('msg_c', new Date(at * 1000), body);
    const headers = { 'webhook-id': 'msg_c', 'webhook-timestamp': String(at), 'webhook-signature': theirs };
    expect(verifyWebhookSignature(accountSecret, headers, body).ok).toBe(true);
  });
});

describe('blocked target addresses', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['10.20.30.40', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['::ffff:192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
  ])('%s is refused (%s)', (address, reason) => {
    expect(blockedAddressReason(address)).toBe(reason);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])('%s is allowed', (address) => {
    expect(blockedAddressReason(address)).toBeUndefined();
  });
});

describe('sendWebhook refusals (nothing is connected to)', () => {
  let hits = 0;
  let server: http.Server;
  let port = 0;
  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      hits += 1;
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const dnsAnswers: Record<string, string[]> = {
    'internal.example.com': ['192.168.1.10'],
    'mixed.example.com': ['93.184.216.34', '10.0.0.7'],
    'v6.example.com': ['fd00::5'],
  };
  const fakeDns: ResolveHost = async (host) => {
    const answers = dnsAnswers[host];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const send = (url: string, resolveHost?: ResolveHost) =>
    sendWebhook(url, body, { 'content-type': 'application/json' }, { timeoutMs: 2000, allowPrivateTargets: false, resolveHost: resolveHost ?? fakeDns });

  it.each([
    ['http://127.0.0.1:PORT/hook', /127\.0\.0\.1 is a loopback address/],
    ['http://[::1]:PORT/hook', /::1 is a loopback address/],
    ['http://[::ffff:127.0.0.1]:PORT/hook', /::ffff:7f00:1 is a loopback address/],
    ['http://2130706433:PORT/hook', /127\.0\.0\.1 is a loopback address/],
    ['http://0.0.0.0:PORT/', /unspecified/],
    ['http://10.1.2.3/', /private/],
    ['http://169.254.169.254/latest/meta-data', /link-local/],
    ['http://[fd00::1]/', /unique-local/],
    ['http://[fe80::1]/', /link-local/],
    ['http://100.64.1.1/', /carrier-grade NAT/],
    ['http://internal.example.com/hook', /internal\.example\.com resolves to 192\.168\.1\.10, a private address/],
    ['https://mixed.example.com/hook', /resolves to 10\.0\.0\.7/],
    ['http://v6.example.com/hook', /resolves to fd00::5, a unique-local address/],
    ['ftp://example.com/hook', /unsupported scheme/],
  ])('refuses %s', async (template, reason) => {
    const r = await send(template.replace('PORT', String(port)));
    expect(r.outcome).toBe('refused');
    expect(r.error).toMatch(/^refused: /);
    expect(r.error).toMatch(reason);
    expect(r.statusCode).toBeUndefined();
  });

  it('refuses localhost through the real DNS lookup', async () => {
    const r = await send(`http://localhost:${port}/hook`, resolveWithDns);
    expect(r).toMatchObject({ outcome: 'refused' });
    expect(r.error).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    expect(hits).toBe(0);
  });

  it('retries (does not refuse) a name that does not resolve', async () => {
    const r = await send('http://nowhere.example.com/hook');
    expect(r.outcome).toBe('retry');
    expect(r.error).toMatch(/ENOTFOUND/);
  });

  it('sends to the same receiver when private targets are allowed', async () => {
    const r = await sendWebhook(`http://localhost:${port}/hook`, body, {}, { timeoutMs: 2000, allowPrivateTargets: true, resolveHost: fakeDns });
    expect(r).toMatchObject({ outcome: 'delivered', statusCode: 200, snippet: 'ok' });
    expect(hits).toBe(1);
  });
});

describe('retry schedule', () => {
  it('backs off with ±20 % jitter and stops after the last attempt', () => {
    expect(MAX_ATTEMPTS).toBe(8);
    expect(nextRetryDelayMs(1, () => 0)).toBe(8_000);
    expect(nextRetryDelayMs(1, () => 0.999999)).toBe(12_000);
    expect(nextRetryDelayMs(2, () => 0.5)).toBe(30_000);
    expect(nextRetryDelayMs(7, () => 0.5)).toBe(RETRY_DELAYS_MS[6]);
    for (let i = 1; i < RETRY_DELAYS_MS.length; i++) expect(RETRY_DELAYS_MS[i]).toBeGreaterThan(RETRY_DELAYS_MS[i - 1]);
    expect(nextRetryDelayMs(MAX_ATTEMPTS)).toBeNull();
  });
});

describe('webhook target', () => {
  it.each([
    [
      { requestUrl: 'https://a.test/h', requestSecret: 's', accountUrl: 'https://b.test/h' },
      { url: 'https://a.test/h', secret: 's' },
    ],
    [
      { requestUrl: null, accountUrl: 'https://b.test/h' },
      { url: 'https://b.test/h', secret: null },
    ],
    [
      { requestUrl: '  ', requestSecret: 's', accountUrl: 'https://b.test/h' },
      { url: 'https://b.test/h', secret: 's' },
    ],
    [{ requestUrl: null, accountUrl: null }, null],
  ])('%o → %o', (input, expected) => {
    expect(resolveWebhookTarget(input)).toEqual(expected);
  });
});
