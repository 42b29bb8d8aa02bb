/**
 * @module Standard Webhooks signing (https://www.standardwebhooks.com): what we put on every
 * delivery and the helper a receiver (or a test) uses to check it.
 *
 * Signed content: `${webhook-id}.${webhook-timestamp}.${raw body}`, HMAC-SHA256, base64,
 * sent as `webhook-signature: v1,<sig>` (several space-separated `v1,` entries while a rotated
 * account secret still signs beside the new one). The key is derived from the secret string in
 * one way: `whsec_<base64>` is the Standard Webhooks form (the base64 part decoded); any other
 * string (a per-request `webhook_secret` such as `s3cret`) is used as its UTF-8 bytes, whose
 * Standard Webhooks form is `whsec_` + base64(UTF-8 bytes) (`toStandardSecret`), what the
 * official libraries take.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The default accepted clock skew, as in the Standard Webhooks reference libraries. */
const DEFAULT_TOLERANCE_SEC = 5 * 60;

/** A fresh account signing secret: `whsec_` + 32 random bytes in base64. */
export function generateSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

function keyBytes(secret: string): Buffer {
  if (secret.startsWith(SECRET_PREFIX)) {
    const b64 = secret.slice(SECRET_PREFIX.length);
    if (b64 && STRICT_BASE64.test(b64)) return Buffer.from(b64, 'base64');
  }
  return Buffer.from(secret, 'utf8');
}

/**
 * The secret as the official Standard Webhooks libraries take it: a `whsec_…` secret as is,
 * any other string as `whsec_` + base64 of its UTF-8 bytes (the key it signs with).
 */
export function toStandardSecret(secret: string): string {
  return SECRET_PREFIX + keyBytes(secret).toString('base64');
}

function hmac(secret: string, id: string, timestampSec: number, body: string | Uint8Array): string {
  return createHmac('sha256', keyBytes(secret)).update(`${id}.${timestampSec}.`).update(body).digest('base64');
}

/**
 * The three Standard Webhooks headers for one send of a message, signed with each secret
 * (the current one first; a rotated one during its overlap after it), space-separated.
 */
export function signWebhook(secrets: string | readonly string[], id: string, timestampSec: number, body: string) {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSec),
    'webhook-signature': list.map((secret) => `v1,${hmac(secret, id, timestampSec, body)}`).join(' '),
  };
}

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

export type VerifyResult = { ok: true; id: string; timestamp: number } | { ok: false; reason: string };

/**
 * Checks a received webhook: the headers are present, the timestamp is within
 * `toleranceSec` of `now` (replay window), and one of the space-separated `v1,` signatures
 * matches `body` (the raw request body, exactly as received, not re-serialised JSON).
 * Never throws; use `webhook-id` to drop duplicates (it is the same on every retry).
 */
export function verifyWebhookSignature(
  secret: string,
  headers: WebhookHeaders,
  body: string | Uint8Array,
  opts: { toleranceSec?: number; now?: Date } = {},
): VerifyResult {
  const id = header(headers, 'webhook-id');
  const ts = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !ts || !signatures) return { ok: false, reason: 'missing webhook-id, webhook-timestamp or webhook-signature' };
  if (!/^\d{1,12}$/.test(ts)) return { ok: false, reason: 'invalid webhook-timestamp' };
  const timestamp = Number(ts);
  const nowSec = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSec - timestamp) > (opts.toleranceSec ?? DEFAULT_TOLERANCE_SEC)) {
    return { ok: false, reason: 'timestamp outside the tolerance' };
  }
  const expected = Buffer.from(hmac(secret, id, timestamp, body));
  for (const entry of signatures.split(' ')) {
    const [version, signature] = entry.split(',');
    if (version !== 'v1' || !signature) continue;
    const given = Buffer.from(signature);
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true, id, timestamp };
  }
  return { ok: false, reason: 'no matching signature' };
}
