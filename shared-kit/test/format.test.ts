import { describe, expect, it } from 'vitest';
import { formatCredits, formatLocalDateTime, formatUtcDate, formatUtcDateTime, maskApiKey, relativeTime, shortName, userInitial } from '../src/format.ts';

describe('shortName', () => {
  it.each([
    ['john.doe@example.com', 'john'],
    ['jane_roe@example.com', 'jane'],
    ['max-power@example.com', 'max'],
    ['bob+tag@example.com', 'bob'],
    ['alexanderthegreat@example.com', 'alexanderth'],
    ['a.b_c-d+e@example.com', 'a'],
    ['plain@example.com', 'plain'],
    ['elevenchars@example.com', 'elevenchars'],
    ['', ''],
  ])('%s -> %s', (email, expected) => {
    expect(shortName(email)).toBe(expected);
  });
});

describe('userInitial', () => {
  it.each([
    ['john@example.com', 'J'],
    ['  zed@x.io', 'Z'],
    ['', ''],
  ])('%s -> %s', (email, expected) => expect(userInitial(email)).toBe(expected));
});

describe('maskApiKey', () => {
  it.each([
    ['abcd1234efgh5678', 'abcd********5678'],
    ['abcdefghi', 'abcd*fghi'],
    ['abcdefgh', '********'],
    ['abc', '***'],
    ['', ''],
  ])('%s -> %s', (key, expected) => expect(maskApiKey(key, '*')).toBe(expected));
});

describe('relativeTime', () => {
  const now = new Date('2026-01-31T12:00:00Z');
  const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);
  it.each([
    [-5, 'in the future'],
    [0, 'just now'],
    [9, 'just now'],
    [10, '10 seconds ago'],
    [59, '59 seconds ago'],
    [60, '1 minute ago'],
    [150, '2 minutes ago'],
    [3600, '1 hour ago'],
    [86399, '23 hours ago'],
    [86400, '1 day ago'],
    [8 * 86400, '1 week ago'],
    [45 * 86400, '1 month ago'],
    [400 * 86400, '1 year ago'],
    [3 * 365 * 86400, '3 years ago'],
  ])('%i s ago -> %s', (seconds, expected) => expect(relativeTime(ago(seconds), now)).toBe(expected));

  it('accepts ISO strings', () => expect(relativeTime('2026-01-31T11:59:00Z', now)).toBe('1 minute ago'));
});

describe('formatCredits', () => {
  it.each([
    [0, '0'],
    [1250, '1,250'],
    [null, '0'],
  ])('%s -> %s', (credits, expected) => expect(formatCredits(credits)).toBe(expected));
});

describe('formatUtcDateTime / formatUtcDate / formatLocalDateTime', () => {
  it.each<[string, Date | string | number, 'second' | 'minute' | undefined, string | null]>([
    ['to the second', '2026-11-24T07:05:09.123456+00:00', undefined, '2026-11-24 07:05:09 UTC'],
    ['an offset moves to UTC', '2026-11-22T18:05:09-05:00', 'second', '2026-11-22 23:05:09 UTC'],
    ['to the minute', '2026-11-28T09:05:00.000Z', 'minute', '2026-11-28 09:05 UTC'],
    ['a Date', new Date(Date.UTC(2026, 0, 2, 3, 4, 5)), undefined, '2026-01-02 03:04:05 UTC'],
    ['epoch milliseconds', 0, undefined, '1970-01-01 00:00:00 UTC'],
    ['not a date', 'not a date', undefined, null],
  ])('%s', (_name, value, precision, expected) => {
    expect(formatUtcDateTime(value, precision)).toBe(expected);
  });

  it.each<[Date | string, string | null]>([
    [new Date('2026-11-28T23:30:00-05:00'), '2026-11-29'],
    ['2026-02-03T00:00:00Z', '2026-02-03'],
    ['nope', null],
  ])('formatUtcDate(%s) -> %s', (value, expected) => expect(formatUtcDate(value)).toBe(expected));

  it('formatLocalDateTime uses the local time zone, padded', () => {
    const local = new Date(2026, 10, 3, 4, 5, 6);
    expect(formatLocalDateTime(local)).toBe('2026-11-03 04:05:06');
    expect(formatLocalDateTime('not a date')).toBeNull();
  });
});
