import { describe, expect, it } from 'vitest';
import { parseRuntimeConfig } from '../src/runtime-config.ts';
import { parseThemePreference, resolveTheme } from '../src/theme.tsx';

describe('theme preference', () => {
  it.each([
    [null, 'dark'],
    ['light', 'light'],
    ['dark', 'dark'],
    ['system', 'system'],
    ['purple', 'dark'],
  ])('stored %s -> %s', (stored, expected) => expect(parseThemePreference(stored)).toBe(expected));

  it.each([
    ['light', true, 'light'],
    ['dark', false, 'dark'],
    ['system', true, 'dark'],
    ['system', false, 'light'],
  ] as const)('%s with system dark=%s -> %s', (pref, systemDark, expected) => expect(resolveTheme(pref, systemDark)).toBe(expected));
});

describe('parseRuntimeConfig', () => {
  const base = { supabaseUrl: 'http://s', supabaseAnonKey: 'k', apiBaseUrl: 'http://a', remotes: {} };
  it('fills optional fields', () => {
    expect(parseRuntimeConfig(base)).toMatchObject({ previewAllowList: [], captcha: { provider: 'altcha' } });
  });
  it.each(['supabaseUrl', 'supabaseAnonKey', 'apiBaseUrl', 'remotes'])('rejects a config without %s', (key) => {
    expect(() => parseRuntimeConfig({ ...base, [key]: undefined })).toThrow(key);
  });
});
