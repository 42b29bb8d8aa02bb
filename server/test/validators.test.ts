import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/errors.ts';
import { parseApiKey } from '../src/services/auth/authenticate-api-key.ts';
import { normalizeWebhookUrl, WEBHOOK_INVALID_MESSAGE, WEBHOOK_SCHEME_MESSAGE } from '../src/services/account/webhook-url.ts';

describe('normalizeWebhookUrl', () => {
  it.each([
    [undefined, null],
    [null, null],
    ['', null],
    [' \t\n ', null],
    ['http://a.io', 'http://a.io'],
    ['https://a.io/x?y=1#z', 'https://a.io/x?y=1#z'],
    ['HTTP://A.IO', 'HTTP://A.IO'],
    ['hTtPs://a.io', 'hTtPs://a.io'],
    ['  https://a.io/hook  ', 'https://a.io/hook'],
    ['https://user:pass@a.io/', 'https://user:pass@a.io/'],
    ['http://[::1]:8080/cb', 'http://[::1]:8080/cb'],
  ])('should turn %j into %j', (input, expected) => {
    expect(normalizeWebhookUrl(input)).toBe(expected);
  });

  it.each([
    ['ftp://a.io', WEBHOOK_SCHEME_MESSAGE],
    ['javascript:alert(1)', WEBHOOK_SCHEME_MESSAGE],
    ['data:text/html,x', WEBHOOK_SCHEME_MESSAGE],
    ['a.io/hook', WEBHOOK_SCHEME_MESSAGE],
    ['http:/a.io', WEBHOOK_SCHEME_MESSAGE],
    ['//a.io', WEBHOOK_SCHEME_MESSAGE],
    ['http://', WEBHOOK_INVALID_MESSAGE],
    ['https:// a.io', WEBHOOK_INVALID_MESSAGE],
    ['https://a.io/a b', WEBHOOK_INVALID_MESSAGE],
    ['https://a.io/\u0000', WEBHOOK_INVALID_MESSAGE],
    ['http://a.io:70000', WEBHOOK_INVALID_MESSAGE],
    ['http://exa<mple.com', WEBHOOK_INVALID_MESSAGE],
    [`https://a.io/${'p'.repeat(2048)}`, 'Webhook URL must be at most 2048 characters'],
  ])('should refuse %j with %j', (input, msg) => {
    let caught: unknown;
    try {
      normalizeWebhookUrl(input);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ApiError);
    expect((caught as ApiError).toBody()).toEqual({ message: msg, errors: [{ msg, code: 'invalid_webhook_url' }] });
    expect((caught as ApiError).status).toBe(400);
  });

  it('should accept a URL of exactly the maximum length', () => {
    const url = `https://a.io/${'p'.repeat(2048 - 'https://a.io/'.length)}`;
    expect(url).toHaveLength(2048);
    expect(normalizeWebhookUrl(url)).toBe(url);
  });
});

describe('parseApiKey', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['   ', undefined],
    ['Bearer', undefined],
    ['bearer   ', undefined],
    ['abc123', 'abc123'],
    ['  abc123  ', 'abc123'],
    ['Bearer abc123', 'abc123'],
    ['BEARER abc123', 'abc123'],
    ['bEaReR \t abc123 ', 'abc123'],
    ['Bearerabc123', 'Bearerabc123'],
    ['Basic abc123', 'Basic abc123'],
  ])('should read %j as %j', (header, expected) => {
    expect(parseApiKey(header)).toBe(expected);
  });
});
