import { describe, expect, it } from 'vitest';
import { callbackError } from '../src/features/login/callback-error.ts';

describe('callbackError', () => {
  it.each([
    ['a PKCE code', { search: '?code=abc', hash: '' }, null],
    ['an implicit session', { search: '', hash: '#access_token=x&refresh_token=y' }, null],
    ['nothing', { search: '', hash: '' }, null],
    [
      'a cancelled GitHub consent (query and fragment)',
      { search: '?error=access_denied&error_description=The+user+has+denied+your+application+access.', hash: '#error=access_denied' },
      'The user has denied your application access.',
    ],
    [
      'an expired link in the fragment',
      { search: '', hash: '#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired' },
      'Email link is invalid or has expired',
    ],
    ['an error without a description', { search: '?error=server_error', hash: '' }, 'server_error'],
  ])('reads %s', (_name, location, expected) => {
    expect(callbackError(location)).toBe(expected);
  });
});
