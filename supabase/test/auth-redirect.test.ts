import { describe, expect, it } from 'vitest';
import { isRedirectUrlValid, resolveRedirect } from '../src/auth/redirect.ts';

const config = { siteUrl: 'http://localhost:3000', redirectAllowList: ['https://*.preview.example.com/**', 'myapp://callback'] };

describe('redirect_to validation (GoTrue IsRedirectURLValid)', () => {
  it.each([
    ['http://localhost:3000/auth/callback', true],
    ['http://localhost:5173/auth/callback', true], // loopback site: any port
    ['https://localhost:3000/auth/callback', false], // other scheme
    ['http://127.0.0.1:4000/x', true], // loopback IP
    ['http://[::1]:4000/x', true],
    ['https://pr-12.preview.example.com/auth/callback?x=1', true],
    ['https://a.b.preview.example.com/auth/callback', false], // * stays in one label
    ['myapp://callback', true],
    ['https://evil.example/auth/callback', false],
    ['http://localhost.evil.example:3000/', false],
    ['javascript:alert(1)', false],
    ['not a url', false],
    ['', false],
  ])('%s → %s', (url, ok) => {
    expect(isRedirectUrlValid(config, url)).toBe(ok);
  });

  it('falls back to the site URL', () => {
    expect(resolveRedirect(config, 'https://evil.example/')).toBe('http://localhost:3000');
    expect(resolveRedirect(config, undefined)).toBe('http://localhost:3000');
    expect(resolveRedirect(config, 'http://localhost:3000/maybe')).toBe('http://localhost:3000/maybe');
  });

  it('keeps the exact host for non-loopback sites', () => {
    const prod = { siteUrl: 'https://app.example.com', redirectAllowList: [] };
    expect(isRedirectUrlValid(prod, 'https://app.example.com/auth/callback')).toBe(true);
    expect(isRedirectUrlValid(prod, 'https://app.example.com:8443/auth/callback')).toBe(false);
    expect(isRedirectUrlValid(prod, 'https://evil.app.example.com/')).toBe(false);
  });
});
