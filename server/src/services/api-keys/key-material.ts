/**
 * @module What a named API key looks like and how it is stored: `ak_` + 40 base62 characters
 * (about 238 random bits), recognisable beside the primary key's 64 hex characters; stored as
 * its SHA-256 only, with the first 8 characters and the last 4 to tell keys apart on screen.
 */
import { createHash, randomBytes } from 'node:crypto';

const NAMED_KEY_PREFIX = 'ak_';
const BODY_LENGTH = 40;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
// 248 = 4 × 62: bytes at or above it are dropped so every character is equally likely
const UNBIASED_BELOW = 248;
const NAMED_KEY = /^ak_[0-9A-Za-z]{40}$/;

/** A fresh named key. */
export function generateNamedKey(): string {
  let body = '';
  while (body.length < BODY_LENGTH) {
    for (const byte of randomBytes(BODY_LENGTH)) {
      if (byte < UNBIASED_BELOW && body.length < BODY_LENGTH) body += ALPHABET[byte % ALPHABET.length];
    }
  }
  return NAMED_KEY_PREFIX + body;
}

/** Whether a presented key is meant as a named key (then only public.api_keys is asked). */
export function isNamedKeyForm(key: string): boolean {
  return key.startsWith(NAMED_KEY_PREFIX);
}

/** Whether a presented named key can exist at all (the right length and alphabet), before any query. */
export function isWellFormedNamedKey(key: string): boolean {
  return NAMED_KEY.test(key);
}

/** The SHA-256 of a key, hex: what public.api_keys.key_hash holds (as bytea). */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** What the dashboard shows of a key: its first 8 characters (`ak_` + 5) and its last 4. */
export function displayParts(key: string): { prefix: string; last4: string } {
  return { prefix: key.slice(0, 8), last4: key.slice(-4) };
}
