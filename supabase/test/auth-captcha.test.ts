import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSupabase, testDatabaseKinds, type RunningLocalSupabase } from './support/index.ts';
import { fastCaptcha, fetchChallenge, sleep, solve, uniqueEmail } from './auth-helpers.ts';

describe.each(testDatabaseKinds())('auth captcha (self-hosted ALTCHA) on %s', (kind) => {
  let sb: RunningLocalSupabase;

  beforeAll(async () => {
    sb = await startLocalSupabase(kind, { captcha: fastCaptcha({ expiresInSeconds: 2 }) });
  });
  afterAll(async () => {
    await sb?.stop();
  });

  /** POST /otp as supabase-js sends it, with the given captcha token (or none). */
  async function otp(token: string | undefined, email = uniqueEmail('captcha')) {
    const res = await fetch(`${sb.url}/auth/v1/otp`, {
      method: 'POST',
      headers: {
        apikey: sb.config.anonKey,
        authorization: `Bearer ${sb.config.anonKey}`,
        'content-type': 'application/json;charset=UTF-8',
        'x-supabase-api-version': '2024-01-01',
      },
      body: JSON.stringify({
        email,
        data: {},
        create_user: true,
        gotrue_meta_security: token === undefined ? {} : { captcha_token: token },
        code_challenge: null,
        code_challenge_method: null,
      }),
    });
    return { status: res.status, body: (await res.json()) as unknown };
  }

  const failed = (message: string) => ({ status: 400, body: { code: 'captcha_failed', message } });

  it('serves signed challenges without an apikey, with CORS', async () => {
    const res = await fetch(`${sb.url}/auth/v1/captcha/challenge`, { headers: { origin: 'http://localhost:3000' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const ch = (await res.json()) as { parameters: Record<string, unknown>; signature: string };
    expect(ch.signature).toMatch(/^[0-9a-f]{64}$/);
    expect(ch.parameters).toMatchObject({ algorithm: 'SHA-256', cost: 1 });
    const expiresAt = ch.parameters.expiresAt as number;
    expect(expiresAt - Date.now() / 1000).toBeGreaterThan(0);
    expect(expiresAt - Date.now() / 1000).toBeLessThanOrEqual(2);
  });

  it('asks for the check when the token is missing', async () => {
    expect(await otp(undefined)).toEqual(failed('Please complete the security check'));
    expect(await otp('')).toEqual(failed('Please complete the security check'));
  });

  it('rejects garbage and forged solutions', async () => {
    expect(await otp('not base64 json')).toEqual(failed('Security check failed'));
    const challenge = await fetchChallenge(sb.url);
    const good = JSON.parse(Buffer.from(await solve(challenge), 'base64').toString()) as {
      challenge: { parameters: Record<string, unknown>; signature: string };
      solution: { counter: number; derivedKey: string };
    };
    const wrongCounter = { ...good, solution: { ...good.solution, counter: good.solution.counter + 1 } };
    expect(await otp(Buffer.from(JSON.stringify(wrongCounter)).toString('base64'))).toEqual(failed('Security check failed'));
    // A challenge the server did not sign (made easier by the client).
    const forged = { ...good, challenge: { ...good.challenge, parameters: { ...good.challenge.parameters, keyPrefix: '0' } } };
    expect(await otp(Buffer.from(JSON.stringify(forged)).toString('base64'))).toEqual(failed('Security check failed'));
  });

  it('accepts a solved challenge once; a replay fails', async () => {
    const token = await solve(await fetchChallenge(sb.url));
    expect(await otp(token)).toEqual({ status: 200, body: {} });
    expect(await otp(token)).toEqual(failed('Security check failed'));
  });

  it('says the check expired when the challenge is too old', async () => {
    const token = await solve(await fetchChallenge(sb.url));
    await sleep(2_200);
    expect(await otp(token)).toEqual(failed('Security check expired'));
  });
});
