import { describe, expect, it } from 'vitest';
import { ApiError } from '@aim/shared-kit/api';
import { maskApiKey } from '@aim/shared-kit/format';
import { validateWebhookScheme } from '@aim/shared-kit/validate';
import { describeFailure, displayKey, preferLocal, recordChange, webhookRequestBody } from '../src/features/api-keys/key-rules.ts';

const SCHEME = 'Webhook must start with http:// or https://';

describe('the webhook rule of the API Keys page (spec §5)', () => {
  it.each([
    ['', null],
    ['   ', null],
    ['https://example.com/hooks', null],
    ['http://localhost:9000/hook', null],
    ['HTTPS://EXAMPLE.COM', null],
    ['Http://example.com', null],
    ['  https://example.com  ', null],
    ['ftp://x', SCHEME],
    ['example.com', SCHEME],
    ['https:/example.com', SCHEME],
    ['//example.com', SCHEME],
    ['mailto:a@b.c', SCHEME],
    ['javascript:alert(1)', SCHEME],
  ])('%j -> %s', (input, message) => {
    const result = validateWebhookScheme(input);
    expect(result.ok ? null : result.message).toBe(message);
  });

  it.each([
    ['', {}],
    ['  ', {}],
    [' https://example.com/h ', { url: 'https://example.com/h' }],
  ])('%j is sent as %j (blank removes)', (input, body) => {
    expect(webhookRequestBody(input)).toEqual(body);
  });
});

describe('the key on screen (spec §9: first 4 and last 4 visible)', () => {
  const key = 'ab12cdef3456789012345678wxyz9876';

  it('masks all but the first 4 and the last 4 characters, keeping the length', () => {
    const shown = displayKey(key, false);
    expect(shown.slice(0, 4)).toBe('ab12');
    expect(shown.slice(-4)).toBe('9876');
    expect(shown.slice(4, -4)).toBe('•'.repeat(key.length - 8));
    expect(shown).toHaveLength(key.length);
  });

  it('shows the whole key once revealed', () => {
    expect(displayKey(key, true)).toBe(key);
  });

  it.each([
    ['', ''],
    ['abcd', '••••'],
    ['abcdefgh', '••••••••'],
    ['abcdefghi', 'abcd•fghi'],
  ])('a short key %j shows as %j (nothing leaks)', (input, shown) => {
    expect(maskApiKey(input)).toBe(shown);
  });
});

describe("the page's own change over the live user row", () => {
  it('wins while the row still holds the value from before, then the row counts again', () => {
    const first = recordChange(null, 'old', 'new');
    expect(preferLocal('old', first)).toBe('new');
    expect(preferLocal('new', first)).toBe('new');
    // Newer than ours (another tab rotated again): the row wins.
    expect(preferLocal('other', first)).toBe('other');
  });

  it('a second rotation before the row caught up makes both earlier keys stale', () => {
    const second = recordChange(recordChange(null, 'k0', 'k1'), 'k0', 'k2');
    expect(preferLocal('k0', second)).toBe('k2');
    expect(preferLocal('k1', second)).toBe('k2');
    expect(preferLocal('k2', second)).toBe('k2');
  });

  it('works for a removed webhook (null)', () => {
    const removed = recordChange<string | null>(null, 'https://a.example', null);
    expect(preferLocal('https://a.example', removed)).toBeNull();
    expect(preferLocal(null, null)).toBeNull();
  });
});

describe('how a failed account call is reported', () => {
  it.each([
    [
      new ApiError('Enter a valid webhook URL or leave blank to remove the webhook URL', 400),
      { reason: 'Enter a valid webhook URL or leave blank to remove the webhook URL', unexpected: false },
    ],
    [new ApiError('Invalid API key', 401), { reason: 'Invalid API key', unexpected: false }],
    [new ApiError('An unexpected error occured, Please refresh and try again!', 500), { reason: null, unexpected: true }],
    [new ApiError('An unexpected error occured, Please refresh and try again!', 0), { reason: null, unexpected: true }],
    [new TypeError('Failed to fetch'), { reason: null, unexpected: true }],
  ])('%s -> %j', (error, expected) => {
    expect(describeFailure(error)).toEqual(expected);
  });
});
