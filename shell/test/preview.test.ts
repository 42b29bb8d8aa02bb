import { describe, expect, it } from 'vitest';
import { remoteForPath } from '../src/mf/federation.ts';
import { isOriginAllowed, parsePreviewParams, resolvePreviews, stripPreviewParams } from '../src/mf/preview.ts';

const allowList = ['http://localhost:*', 'http://127.0.0.1:*', 'https://preview.example.com'];

describe('isOriginAllowed', () => {
  it.each([
    ['http://localhost:4001/mf-manifest.json', true],
    ['http://127.0.0.1:9/x/mf-manifest.json', true],
    ['https://preview.example.com/mf-manifest.json', true],
    ['https://preview.example.com:8443/mf-manifest.json', false],
    ['https://localhost:4001/mf-manifest.json', false],
    ['http://localhost.evil.com/mf-manifest.json', false],
    ['http://evil.example.com/mf-manifest.json', false],
    ['javascript:alert(1)', false],
    ['not a url', false],
  ])('%s -> %s', (url, allowed) => expect(isOriginAllowed(url, allowList)).toBe(allowed));
});

describe('isOriginAllowed with subdomain wildcards', () => {
  const wild = ['https://*.preview.example.com', 'http://*.dev.example.org:*'];
  it.each([
    // what must match: any subdomain depth, case-insensitively, on the default port
    ['https://pr-12.preview.example.com/mfe-tools/mf-manifest.json', true],
    ['https://a.b.preview.example.com/mf-manifest.json', true],
    ['HTTPS://PR-12.Preview.Example.COM/mf-manifest.json', true],
    ['https://pr-12.preview.example.com:443/mf-manifest.json', true],
    ['http://x.dev.example.org:4100/mf-manifest.json', true],
    ['http://x.dev.example.org/mf-manifest.json', true],
    // the bare apex is not a subdomain
    ['https://preview.example.com/mf-manifest.json', false],
    // suffix tricks
    ['https://pr-12.preview.example.com.evil.test/mf-manifest.json', false],
    ['https://evilpreview.example.com/mf-manifest.json', false],
    ['https://preview.example.com.evil.test/mf-manifest.json', false],
    ['https://x.preview.example.com./mf-manifest.json', false],
    ['https://x..preview.example.com/mf-manifest.json', false],
    ['https://x.preview.example.co/mf-manifest.json', false],
    // no scheme downgrade, and no other scheme
    ['http://pr-12.preview.example.com/mf-manifest.json', false],
    ['ws://pr-12.preview.example.com/mf-manifest.json', false],
    ['https://x.dev.example.org/mf-manifest.json', false],
    // userinfo: refused, and the real host is what counts
    ['https://pr-12.preview.example.com@evil.test/mf-manifest.json', false],
    ['https://user:secret@pr-12.preview.example.com/mf-manifest.json', false],
    ['https://evil.test%2F.preview.example.com/mf-manifest.json', false],
    // a port the pattern does not name
    ['https://pr-12.preview.example.com:8443/mf-manifest.json', false],
  ])('%s -> %s', (url, allowed) => expect(isOriginAllowed(url, wild)).toBe(allowed));

  it.each([
    ['https://*', 'https://x.com/m.json'],
    ['*', 'https://x.com/m.json'],
    ['https://*.com', 'https://evil.com/m.json'],
    ['https://a*.example.com', 'https://ab.example.com/m.json'],
    ['https://*.example.com/path', 'https://x.example.com/path/m.json'],
    ['https://user@*.example.com', 'https://x.example.com/m.json'],
    ['*.example.com', 'https://x.example.com/m.json'],
  ])('the malformed pattern %s matches nothing (%s)', (pattern, url) => expect(isOriginAllowed(url, [pattern])).toBe(false));

  it('keeps exact origins and any-port patterns working next to wildcards', () => {
    const list = ['http://localhost:*', 'https://*.preview.example.com', 'https://cdn.example.com'];
    expect(isOriginAllowed('http://localhost:4101/mf-manifest.json', list)).toBe(true);
    expect(isOriginAllowed('https://cdn.example.com/mfe-tools/1.2.0/mf-manifest.json', list)).toBe(true);
    expect(isOriginAllowed('https://x.cdn.example.com/mf-manifest.json', list)).toBe(false);
    expect(isOriginAllowed('https://localhost:4101/mf-manifest.json', list)).toBe(false);
  });
});

describe('parsePreviewParams', () => {
  it.each([
    ['?mf-preview=mfe_tools=http://localhost:4001/mf-manifest.json', [{ name: 'mfe_tools', url: 'http://localhost:4001/mf-manifest.json' }]],
    ['?mf-preview=mfe_tools%3Dhttp%3A%2F%2Flocalhost%3A4001%2Fm.json', [{ name: 'mfe_tools', url: 'http://localhost:4001/m.json' }]],
    ['?mf-preview=garbage', []],
    ['?other=1', []],
  ])('%s', (search, expected) => expect(parsePreviewParams(search)).toEqual(expected));
});

describe('resolvePreviews', () => {
  const remotes = { mfe_tools: 'http://localhost:3001/mf-manifest.json', mfe_assets: 'http://localhost:3002/mf-manifest.json' };

  it.each([
    ['allowed query override', '?mf-preview=mfe_tools=http://localhost:4001/mf-manifest.json', {}, ['mfe_tools'], []],
    ['refused origin', '?mf-preview=mfe_tools=http://evil.com/mf-manifest.json', {}, [], ['mfe_tools']],
    ['unknown module', '?mf-preview=mfe_nope=http://localhost:4001/mf-manifest.json', {}, [], ['mfe_nope']],
    ['kept from the tab', '', { mfe_assets: 'http://localhost:4002/mf-manifest.json' }, ['mfe_assets'], []],
    ['stored one turned bad is dropped', '', { mfe_assets: 'http://evil.com/m.json' }, [], ['mfe_assets']],
  ])('%s', (_label, search, stored, active, refused) => {
    const result = resolvePreviews({ remotes, allowList, search, stored });
    expect(result.active.map((o) => o.name)).toEqual(active);
    expect(result.refused.map((o) => o.name)).toEqual(refused);
    expect(Object.keys(result.stored)).toEqual(active);
    for (const o of result.active) expect(result.remotes[o.name]).toBe(o.url);
    for (const o of result.refused) if (o.name in remotes) expect(result.remotes[o.name as keyof typeof remotes]).toBe(remotes[o.name as keyof typeof remotes]);
  });

  it('strips only the preview parameters from a URL', () => {
    expect(stripPreviewParams('http://localhost:3000/dashboard?taskId=1&mf-preview=a=b')).toBe('http://localhost:3000/dashboard?taskId=1');
  });
});

describe('remoteForPath (deep-link preload)', () => {
  it.each([
    ['/dashboard', 'mfe_tools'],
    ['/dashboard/tools/faceswap', 'mfe_tools'],
    ['/dashboard/assets/videos', 'mfe_assets'],
    ['/dashboard/billing/invoices', 'mfe_billing'],
    ['/payment-success', 'mfe_billing'],
    ['/dashboard/task-logs', 'mfe_developer'],
    ['/welcome', 'mfe_onboarding'],
    ['/auth', null],
  ])('%s -> %s', (path, remote) => expect(remoteForPath(path)).toBe(remote));
});
