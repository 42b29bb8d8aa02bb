/**
 * @module The pure parts of idempotency keys: which keys are valid, and the fingerprint that
 * tells "the same request again" from "another request with the same key".
 */
import { createHash } from 'node:crypto';

/** The header a client sends to make a create or charge call safe to retry. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** Set to `true` on an answer replayed from the first request with the key. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
// printable ASCII, space included (a UUID, a hash, an order number...); header values cannot carry more anyway
const KEY_PATTERN = /^[\x20-\x7e]+$/;

/** 1 to 255 printable ASCII characters. */
export function isValidIdempotencyKey(key: string): boolean {
  return key.length > 0 && key.length <= MAX_IDEMPOTENCY_KEY_LENGTH && KEY_PATTERN.test(key);
}

// Canonical JSON for the bodies of ordinary routes (the app's JSON body limit); larger bodies
// (photos and masks as base64) are compared byte for byte rather than parsed and copied again.
const MAX_CANONICAL_BYTES = 1024 * 1024;

function sortKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The body as compared: JSON with its object keys sorted and no whitespace when it parses (so
 * a retry that orders its fields differently is the same request), else the text as sent.
 */
export function canonicalBody(text: string): string {
  if (text.length === 0 || text.length > MAX_CANONICAL_BYTES) return text;
  try {
    return JSON.stringify(JSON.parse(text), sortKeys) ?? text;
  } catch {
    // not JSON (the route answers 400 without effect), or nesting too deep to copy: the text itself
    return text;
  }
}

/** SHA-256 (hex) of the method, the path and the canonical body. */
export function requestFingerprint(method: string, path: string, body: string): string {
  return createHash('sha256').update(`${method.toUpperCase()} ${path}\n`).update(canonicalBody(body)).digest('hex');
}
