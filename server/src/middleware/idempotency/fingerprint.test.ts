import { describe, expect, it } from 'vitest';
import { canonicalBody, isValidIdempotencyKey, requestFingerprint } from './fingerprint.ts';

describe('isValidIdempotencyKey', () => {
  it.each([
    ['a', true],
    ['5f0c9c1e-4b7e-4d55-9a53-2d1f6c1b8e0a', true],
    ['order 42 / retry', true],
    ['k'.repeat(255), true],
    ['', false],
    ['k'.repeat(256), false],
    ['clé', false],
    ['a\tb', false],
    ['a\u007fb', false],
  ])('should judge %j valid: %s', (key, valid) => {
    expect(isValidIdempotencyKey(key)).toBe(valid);
  });
});

describe('canonicalBody', () => {
  it.each([
    ['{"b":1,"a":{"d":[2,1],"c":null}}', '{"a":{"c":null,"d":[2,1]},"b":1}'],
    [' { "a" : "x" } ', '{"a":"x"}'],
    ['', ''],
    ['not json', 'not json'],
    ['{"a":"\\ud800"}', '{"a":"\\ud800"}'],
  ])('should make %j into %j', (text, canonical) => {
    expect(canonicalBody(text)).toBe(canonical);
  });
});

describe('requestFingerprint', () => {
  it('should be the same for the same fields in another order, and differ by method, path or body', () => {
    const base = requestFingerprint('POST', '/pro/imagine', '{"prompt":"x","webhook_url":null}');
    expect(requestFingerprint('post', '/pro/imagine', '{ "webhook_url": null, "prompt": "x" }')).toBe(base);
    expect(requestFingerprint('POST', '/imagine', '{"prompt":"x","webhook_url":null}')).not.toBe(base);
    expect(requestFingerprint('POST', '/pro/imagine', '{"prompt":"y","webhook_url":null}')).not.toBe(base);
  });
});
