import { describe, expect, it } from 'vitest';
import { DEFAULT_ANON_KEY, DEFAULT_JWT_SECRET, DEFAULT_SERVICE_ROLE_KEY, verifyJwt, signJwt, JwtError } from '../src/keys.ts';

describe('local API keys', () => {
  it.each([
    ['anon', DEFAULT_ANON_KEY],
    ['service_role', DEFAULT_SERVICE_ROLE_KEY],
  ])('the CLI default %s key verifies with the CLI default secret', async (role, key) => {
    expect(await verifyJwt(key, DEFAULT_JWT_SECRET)).toMatchObject({ role, iss: 'supabase-demo' });
  });

  it.each([
    ['not a jwt', 'abc', 'malformed'],
    ['a bad signature', `${DEFAULT_ANON_KEY.slice(0, -2)}xx`, 'invalid'],
  ])('rejects %s', async (_name, token, reason) => {
    await expect(verifyJwt(token, DEFAULT_JWT_SECRET)).rejects.toMatchObject({ reason });
  });

  it('rejects an expired token past the 30 s skew', async () => {
    const t = await signJwt({ role: 'authenticated', exp: Math.floor(Date.now() / 1000) - 60 }, DEFAULT_JWT_SECRET);
    await expect(verifyJwt(t, DEFAULT_JWT_SECRET)).rejects.toBeInstanceOf(JwtError);
    await expect(verifyJwt(t, DEFAULT_JWT_SECRET)).rejects.toMatchObject({ reason: 'expired' });
  });
});
