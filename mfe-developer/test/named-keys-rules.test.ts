import { describe, expect, it } from 'vitest';
import {
  EMPTY_FORM,
  formatKeyDate,
  formatUsage,
  type KeyForm,
  type KeyScope,
  keyHint,
  keyState,
  readKeyForm,
  todayUtc,
} from '../src/features/api-keys/named-keys.ts';
import { apiKeyCondition, describeTaskKey, keyFilterOptions, logSearch, parseLogQuery } from '../src/features/task-logs/log-rules.ts';

const NOW = new Date('2026-11-28T10:00:00Z');
const KEY_ID = '5a0c3f7e-2b1d-4e6f-8a9b-0c1d2e3f4a5b';

describe('the create-key form', () => {
  it.each([
    [{ name: '  CI  ' }, { ok: true, body: { name: 'CI', scopes: ['generate', 'read'] } }],
    [
      { name: 'CI', scopes: ['read'] as const },
      { ok: true, body: { name: 'CI', scopes: ['read'] } },
    ],
    [
      { name: 'CI', scopes: ['read', 'generate'] as const },
      { ok: true, body: { name: 'CI', scopes: ['generate', 'read'] } },
    ],
    [
      { name: 'CI', expiresOn: '2026-11-28' },
      { ok: true, body: { name: 'CI', scopes: ['generate', 'read'], expires_at: '2026-11-28T23:59:59.999Z' } },
    ],
    [
      { name: 'CI', monthlyLimit: ' 5000 ' },
      { ok: true, body: { name: 'CI', scopes: ['generate', 'read'], monthly_credit_limit: 5000 } },
    ],
    [{ name: ' ' }, { ok: false, errors: { name: 'Enter a name' } }],
    [{ name: 'x'.repeat(65) }, { ok: false, errors: { name: 'At most 64 characters' } }],
    [
      { name: 'CI', scopes: [] },
      { ok: false, errors: { scopes: 'Choose at least one scope' } },
    ],
    [
      { name: 'CI', expiresOn: '2026-11-27' },
      { ok: false, errors: { expiresOn: 'Choose today or a later date' } },
    ],
    [
      { name: 'CI', expiresOn: 'soon' },
      { ok: false, errors: { expiresOn: 'Enter a date' } },
    ],
    [
      { name: 'CI', monthlyLimit: '0' },
      { ok: false, errors: { monthlyLimit: 'Enter a whole number of credits, at least 1' } },
    ],
    [
      { name: 'CI', monthlyLimit: '2.5' },
      { ok: false, errors: { monthlyLimit: 'Enter a whole number of credits, at least 1' } },
    ],
    [
      { name: 'CI', monthlyLimit: '100000001' },
      { ok: false, errors: { monthlyLimit: 'At most 100,000,000 credits' } },
    ],
  ])('%j reads as %j', (over: Partial<Omit<KeyForm, 'scopes'>> & { scopes?: readonly KeyScope[] }, expected) => {
    expect(readKeyForm({ ...EMPTY_FORM, ...over, scopes: [...(over.scopes ?? EMPTY_FORM.scopes)] }, NOW)).toEqual(expected);
  });

  it('offers today (UTC) as the earliest expiry', () => {
    expect(todayUtc(new Date('2026-11-28T23:30:00-05:00'))).toBe('2026-11-29');
  });
});

describe('a key in the table', () => {
  it('reads as prefix…last4, its state, dates and use', () => {
    expect(keyHint({ prefix: 'ak_7Hq2x', last4: 'P9dZ' })).toBe('ak_7Hq2x…P9dZ');
    expect(keyState({ revoked: true, expired: true })).toBe('revoked');
    expect(keyState({ revoked: false, expired: true })).toBe('expired');
    expect(keyState({ revoked: false, expired: false })).toBe('active');
    expect(formatKeyDate('2026-11-28T09:05:00.000Z')).toBe('2026-11-28 09:05 UTC');
    expect(formatKeyDate(null, 'Never')).toBe('Never');
    expect(formatUsage({ used_this_month: 1200, monthly_credit_limit: 5000 })).toBe('1,200 / 5,000');
    expect(formatUsage({ used_this_month: 0, monthly_credit_limit: null })).toBe('0 / no limit');
  });
});

describe('the Task Logs key filter', () => {
  const q = (search: string) => parseLogQuery(new URLSearchParams(search));
  it.each([
    ['', 'all'],
    ['key=primary', 'primary'],
    [`key=${KEY_ID.toUpperCase()}`, KEY_ID],
    ['key=nonsense', 'all'],
  ])('%j reads as key %s', (search, key) => {
    expect(q(search).key).toBe(key);
  });

  it('keeps the key in the URL and turns it into the api_key_id condition', () => {
    expect(logSearch(q(`key=${KEY_ID}&status=failed`))).toBe(`status=failed&key=${KEY_ID}`);
    expect(apiKeyCondition('all')).toBeNull();
    expect(apiKeyCondition('primary')).toEqual({ is: null });
    expect(apiKeyCondition(KEY_ID)).toEqual({ eq: KEY_ID });
  });

  it('lists All keys, Primary key and each named key, and names the key of a task', () => {
    const keys = [{ id: KEY_ID, name: 'CI', prefix: 'ak_7Hq2x', last4: 'P9dZ', revoked: true }];
    expect(keyFilterOptions(keys, 'all')).toEqual([
      { value: 'all', label: 'All keys' },
      { value: 'primary', label: 'Primary key' },
      { value: KEY_ID, label: 'CI (ak_7Hq2x…P9dZ) (revoked)' },
    ]);
    expect(keyFilterOptions([], KEY_ID).at(-1)).toEqual({ value: KEY_ID, label: 'Unknown key' });
    expect(describeTaskKey(null, keys)).toBe('Primary key or dashboard');
    expect(describeTaskKey(KEY_ID, keys)).toBe('CI (ak_7Hq2x…P9dZ)');
    expect(describeTaskKey('0b6f2d1e-5c4a-4e8b-9a7d-3f2c1b0a9e8d', keys)).toBe('Named key 0b6f2d1e…');
  });
});
