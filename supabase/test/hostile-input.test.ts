import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSupabase, testDatabaseKinds, type RunningLocalSupabase } from './support/index.ts';

// Text Postgres cannot take (NUL) or that PGlite used to mis-encode (a lone surrogate after a
// multi-byte character) answers 4xx the way PostgREST and GoTrue do, never a 500.
const NUL = 'a\u0000b';
const LONE_SURROGATE = '氟\udd74';

describe.each(testDatabaseKinds())('hostile text in the local services on %s', (kind) => {
  let sb: RunningLocalSupabase;
  beforeAll(async () => {
    sb = await startLocalSupabase(kind);
  });
  afterAll(async () => {
    await sb?.stop();
  });

  const get = (path: string) => fetch(`${sb.url}${path}`, { headers: { apikey: sb.config.anonKey }, redirect: 'manual' });
  const post = (path: string, body: unknown) =>
    fetch(`${sb.url}${path}`, { method: 'POST', headers: { apikey: sb.config.anonKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('answers a NUL in a PostgREST filter value with 400 and the database error, as PostgREST does', async () => {
    const res = await get(`/rest/v1/mdusers?select=id&email=eq.${encodeURIComponent(NUL)}`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: '22021', details: null, hint: null });
  });

  it.each([
    ['an email', '/auth/v1/otp', { email: `${NUL}@example.com` }, 'email'],
    ['a token hash', '/auth/v1/verify', { type: 'magiclink', token_hash: NUL }, 'token_hash'],
    ['a code and email', '/auth/v1/verify', { type: 'email', email: 'nul@example.com', token: NUL }, 'token'],
    ['an auth code', '/auth/v1/token?grant_type=pkce', { auth_code: NUL, code_verifier: 'v'.repeat(43) }, 'auth_code'],
    ['a refresh token', '/auth/v1/token?grant_type=refresh_token', { refresh_token: NUL }, 'refresh_token'],
  ])('answers a NUL in %s with GoTrue’s 400 validation_failed naming the field', async (_name, path, body, field) => {
    const res = await post(path, body);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ code: 'validation_failed', message: `${field}: must not contain the NUL character (\\u0000)` });
  });

  it.each([
    ['the magic link', `/auth/v1/verify?type=magiclink&token=${encodeURIComponent(NUL)}`, 'token'],
    ['a redirect', `/auth/v1/authorize?provider=github&redirect_to=${encodeURIComponent(`http://localhost:3000/${NUL}`)}`, 'redirect_to'],
  ])('answers a NUL in the query of %s with 400 validation_failed', async (_name, path, field) => {
    const res = await get(path);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ code: 'validation_failed', message: `${field}: must not contain the NUL character (\\u0000)` });
  });

  it('treats a token hash with a lone surrogate as an unknown token (403), not a server error', async () => {
    const res = await post('/auth/v1/verify', { type: 'magiclink', token_hash: LONE_SURROGATE });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ code: 'otp_expired', message: 'Token has expired or is invalid' });
  });
});
