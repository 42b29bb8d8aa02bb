import { describe, expect, it } from 'vitest';
import { MESSAGES, captchaErrorKind, digitsOnly, isValidEmail, validateTriggerWord, validateWebhookScheme, validateWebhookUrl } from '../src/validate.ts';

describe('isValidEmail', () => {
  it.each([
    ['user@example.com', true],
    [' user@example.com ', true],
    ['user@example', false],
    ['user example.com', false],
    ['', false],
  ])('%s -> %s', (value, expected) => expect(isValidEmail(value)).toBe(expected));
});

describe('validateWebhookUrl (settings reading)', () => {
  it.each([
    ['', true],
    ['https://hooks.example.com/x', true],
    ['http://localhost:9000/cb', true],
    ['ftp://example.com', false],
    ['not a url', false],
  ])('%s -> ok=%s', (value, ok) => {
    const result = validateWebhookUrl(value);
    expect(result.ok).toBe(ok);
    if (!result.ok) expect(result.message).toBe(MESSAGES.webhookUrl);
  });
});

describe('validateWebhookScheme (API Keys reading)', () => {
  it.each([
    ['', true],
    ['HTTPS://EXAMPLE.COM', true],
    ['http://x', true],
    ['example.com', false],
    ['ws://example.com', false],
  ])('%s -> ok=%s', (value, ok) => {
    const result = validateWebhookScheme(value);
    expect(result.ok).toBe(ok);
    if (!result.ok) expect(result.message).toBe(MESSAGES.webhookScheme);
  });
});

describe('custom top-up', () => {
  it.each([
    ['$1,230', '1230'],
    ['abc', ''],
    ['40', '40'],
  ])('digitsOnly(%s) -> %s', (value, expected) => expect(digitsOnly(value)).toBe(expected));
});

describe('validateTriggerWord', () => {
  it.each([
    ['abcde', false],
    ['abcdef', true],
    ['abcdefghijkl', true],
    ['abcdefghijklm', false],
  ])('%s -> ok=%s', (value, ok) => expect(validateTriggerWord(value).ok).toBe(ok));
});

describe('captchaErrorKind', () => {
  it.each([
    ['Please complete the security check', 'missing'],
    ['Security check failed', 'failed'],
    ['Security check expired', 'expired'],
    ['Email rate limit exceeded', null],
  ])('%s -> %s', (message, kind) => expect(captchaErrorKind(message)).toBe(kind));
});
