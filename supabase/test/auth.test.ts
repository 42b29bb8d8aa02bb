import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SupabaseClient } from '@supabase/supabase-js';
import { makeClient, startLocalSupabase, testDatabaseKinds, type RunningLocalSupabase } from './support/index.ts';
import { captchaToken, decodeJwt, fastCaptcha, hop, sleep, uniqueEmail } from './auth-helpers.ts';

const SITE = 'http://localhost:3000';
const CALLBACK = `${SITE}/auth/callback`;

describe.each(testDatabaseKinds())('auth (GoTrue subset) with supabase-js on %s', (kind) => {
  let sb: RunningLocalSupabase;

  beforeAll(async () => {
    sb = await startLocalSupabase(kind, { captcha: fastCaptcha(), otpExp: 2, refreshReuseInterval: 1, jwtExp: 600 });
  });
  afterAll(async () => {
    await sb?.stop();
  });

  const client = (flowType: 'pkce' | 'implicit' = 'pkce') => makeClient(sb.url, sb.config.anonKey, { flowType });

  async function requestLink(c: SupabaseClient, email: string, redirectTo = CALLBACK) {
    const { data, error } = await c.auth.signInWithOtp({ email, options: { emailRedirectTo: redirectTo, captchaToken: await captchaToken(sb.url) } });
    expect(error).toBeNull();
    expect(data).toEqual({ user: null, session: null });
    const mail = sb.services.mailbox.latest(email);
    if (!mail?.link || !mail.otp) throw new Error(`no magic link mailed to ${email}`);
    return mail as typeof mail & { link: string; otp: string };
  }

  /** A signed-in client (implicit flow, via the mailed code). */
  async function signedIn(email: string) {
    const c = client('implicit');
    const mail = await requestLink(c, email);
    const { data, error } = await c.auth.verifyOtp({ email, token: mail.otp, type: 'email' });
    expect(error).toBeNull();
    return { c, session: data.session! };
  }

  it('signs in with a PKCE magic link from the mailbox and opens the account', async () => {
    const email = uniqueEmail('pkce');
    const c = client('pkce');
    const mail = await requestLink(c, email);
    expect(mail.subject).toBe('Your magic link');
    expect(mail.otp).toMatch(/^\d{6}$/);
    expect(mail.text).toContain(mail.link);
    expect(mail.text).toContain(mail.otp);
    const link = new URL(mail.link);
    expect(`${link.origin}${link.pathname}`).toBe(`${sb.url}/auth/v1/verify`);
    expect(link.searchParams.get('token')).toMatch(/^pkce_[0-9a-f]{56}$/);
    expect(link.searchParams.get('type')).toBe('magiclink');
    expect(link.searchParams.get('redirect_to')).toBe(CALLBACK);

    const click = await hop(mail.link);
    expect(click.status).toBe(303);
    const back = new URL(click.location);
    expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
    const code = back.searchParams.get('code')!;
    expect(code).toBeTruthy();

    const { data, error } = await c.auth.exchangeCodeForSession(code);
    expect(error).toBeNull();
    const session = data.session!;
    expect(session.refresh_token).toMatch(/^[a-z0-9]{12}$/);
    expect(session.token_type).toBe('bearer');
    expect(session.expires_in).toBe(600);
    expect(session.user.email).toBe(email);
    expect(session.user.app_metadata).toEqual({ provider: 'email', providers: ['email'] });
    expect(session.user.email_confirmed_at).toBeTruthy();
    expect(session.user.identities?.[0]).toMatchObject({ provider: 'email', id: session.user.id, user_id: session.user.id, email });

    const claims = decodeJwt(session.access_token);
    expect(claims).toMatchObject({
      iss: `${sb.url}/auth/v1`,
      sub: session.user.id,
      aud: 'authenticated',
      role: 'authenticated',
      email,
      phone: '',
      aal: 'aal1',
      is_anonymous: false,
      app_metadata: { provider: 'email', providers: ['email'] },
    });
    expect(claims.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect((claims.exp as number) - (claims.iat as number)).toBe(600);
    expect(claims.amr).toEqual([{ method: 'magiclink', timestamp: expect.any(Number) }]);

    // The first sign-in created the account row (trigger on auth.users).
    const acct = await sb.db.query<{ email: string; credits: number; plan: string; api_key: string }>('select * from public.mdusers where id = $1', [
      session.user.id,
    ]);
    expect(acct.rows[0]).toMatchObject({ email, credits: 0, plan: 'zero' });
    expect(acct.rows[0].api_key.length).toBeGreaterThanOrEqual(32);

    // The auth code is single use.
    const again = await fetch(`${sb.url}/auth/v1/token?grant_type=pkce`, {
      method: 'POST',
      headers: { apikey: sb.config.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ auth_code: code, code_verifier: 'x'.repeat(64) }),
    });
    expect(again.status).toBe(404);
    expect(again.headers.get('x-supabase-api-version')).toBe('2024-01-01');
    expect(await again.json()).toEqual({ code: 'flow_state_not_found', message: 'invalid flow state, no valid flow state found' });
  });

  it('signs in with an implicit magic link: the session arrives in the fragment', async () => {
    const email = uniqueEmail('implicit');
    const c = client('implicit');
    const mail = await requestLink(c, email);
    expect(new URL(mail.link).searchParams.get('token')).toMatch(/^[0-9a-f]{56}$/);
    const click = await hop(mail.link);
    expect(click.status).toBe(303);
    expect(click.location.startsWith(`${CALLBACK}#access_token=`)).toBe(true);
    const fragment = new URLSearchParams(new URL(click.location).hash.slice(1));
    expect([...fragment.keys()]).toEqual(['access_token', 'expires_at', 'expires_in', 'refresh_token', 'sb', 'token_type', 'type']);
    expect(fragment.get('type')).toBe('magiclink');
    expect(fragment.get('token_type')).toBe('bearer');
    expect(decodeJwt(fragment.get('access_token')!).amr).toEqual([{ method: 'otp', timestamp: expect.any(Number) }]);

    const { data, error } = await c.auth.setSession({ access_token: fragment.get('access_token')!, refresh_token: fragment.get('refresh_token')! });
    expect(error).toBeNull();
    expect(data.user?.email).toBe(email);
    const user = await c.auth.getUser();
    expect(user.error).toBeNull();
    expect(user.data.user?.email).toBe(email);
  });

  it('signs in with the mailed 6-digit code (verifyOtp)', async () => {
    const email = uniqueEmail('code');
    const { c, session } = await signedIn(email);
    expect(session.user.email).toBe(email);
    const { data } = await c.auth.getSession();
    expect(data.session?.access_token).toBe(session.access_token);
    const wrong = await client('implicit').auth.verifyOtp({ email, token: '000000', type: 'email' });
    expect(wrong.error?.status).toBe(403);
    expect(wrong.error?.code).toBe('otp_expired');
  });

  it('rejects a reused link and an expired link with otp_expired', async () => {
    const expected = '#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired&sb=';
    const implicit = await requestLink(client('implicit'), uniqueEmail('reuse'));
    expect((await hop(implicit.link)).location).toContain('#access_token=');
    const reused = await hop(implicit.link);
    expect(reused.status).toBe(303);
    expect(reused.location).toBe(`${CALLBACK}${expected}`);

    const pkce = await requestLink(client('pkce'), uniqueEmail('expire'));
    await sleep(2_300);
    const expired = await hop(pkce.link);
    expect(expired.status).toBe(303);
    const u = new URL(expired.location);
    expect(u.hash).toBe(expected);
    // PKCE also puts the error in the query, where detectSessionInUrl reads it.
    expect(u.searchParams.get('error_code')).toBe('otp_expired');
    expect(u.searchParams.get('code')).toBeNull();
  });

  it('limits how often one address gets mail', async () => {
    const email = uniqueEmail('rate');
    const c = client();
    await requestLink(c, email);
    const { error } = await c.auth.signInWithOtp({ email, options: { captchaToken: await captchaToken(sb.url) } });
    expect(error?.status).toBe(429);
    expect(error?.code).toBe('over_email_send_rate_limit');
    expect(error?.message).toMatch(/^For security purposes, you can only request this after \d+ seconds\.$/);
  });

  it('rotates refresh tokens and detects reuse', async () => {
    const { c, session } = await signedIn(uniqueEmail('refresh'));
    const events: string[] = [];
    c.auth.onAuthStateChange((e) => void events.push(e));
    const rt0 = session.refresh_token;
    const r1 = await c.auth.refreshSession();
    expect(r1.error).toBeNull();
    const rt1 = r1.data.session!.refresh_token;
    expect(rt1).toMatch(/^[a-z0-9]{12}$/);
    expect(rt1).not.toBe(rt0);
    expect(decodeJwt(r1.data.session!.access_token).session_id).toBe(decodeJwt(session.access_token).session_id);
    await sleep(0);
    expect(events).toContain('TOKEN_REFRESHED');

    const raw = async (token: string) => {
      const res = await fetch(`${sb.url}/auth/v1/token?grant_type=refresh_token`, {
        method: 'POST',
        headers: { apikey: sb.config.anonKey, 'content-type': 'application/json' },
        body: JSON.stringify({ refresh_token: token }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, string> };
    };
    // The parent of the active token gets the active token back (a lost response).
    expect((await raw(rt0)).body.refresh_token).toBe(rt1);
    const rt2 = (await raw(rt1)).body.refresh_token;
    expect(rt2).not.toBe(rt1);
    // Older revoked tokens: forgiven within the reuse interval...
    const forked = await raw(rt0);
    expect(forked.status).toBe(200);
    expect([rt1, rt2]).not.toContain(forked.body.refresh_token);
    // (rt0 is now the parent of the newest token, so it keeps getting that one back.)
    expect((await raw(rt0)).body.refresh_token).toBe(forked.body.refresh_token);
    await sleep(1_200);
    // ...and beyond it the session is treated as stolen: no token of it refreshes any more.
    const stolen = await raw(rt1);
    expect(stolen).toEqual({ status: 400, body: { code: 'refresh_token_already_used', message: 'Invalid Refresh Token: Already Used' } });
    expect(await raw(rt2)).toMatchObject({ status: 400, body: { code: 'session_expired' } });
    expect(await raw(forked.body.refresh_token)).toMatchObject({ status: 400, body: { code: 'session_expired' } });
    expect((await raw('abcdefghijkl')).body.code).toBe('refresh_token_not_found');
    expect((await raw('short')).body.code).toBe('validation_failed');
  });

  it('getUser returns the user; a global sign-out from client A signs out client B', async () => {
    const email = uniqueEmail('signout');
    const a = await signedIn(email);
    await sleep(1_100); // one mail per second per address
    const b = await signedIn(email);
    expect(b.session.user.id).toBe(a.session.user.id);
    expect(decodeJwt(b.session.access_token).session_id).not.toBe(decodeJwt(a.session.access_token).session_id);

    const got = await b.c.auth.getUser();
    expect(got.error).toBeNull();
    expect(got.data.user).toMatchObject({ id: a.session.user.id, email, aud: 'authenticated', role: 'authenticated', is_anonymous: false });

    const events: string[] = [];
    b.c.auth.onAuthStateChange((e) => void events.push(e));
    expect((await a.c.auth.signOut()).error).toBeNull();

    const raw = await fetch(`${sb.url}/auth/v1/user`, { headers: { apikey: sb.config.anonKey, authorization: `Bearer ${b.session.access_token}` } });
    expect(raw.status).toBe(403);
    expect(await raw.json()).toEqual({ code: 'session_not_found', message: 'Session from session_id claim in JWT does not exist' });

    const after = await b.c.auth.getUser();
    expect(after.data.user).toBeNull();
    expect(after.error?.name).toBe('AuthSessionMissingError');
    await sleep(0);
    expect(events).toContain('SIGNED_OUT');
    expect((await b.c.auth.getSession()).data.session).toBeNull();
  });

  it('answers bad input with GoTrue errors, never a 500', async () => {
    const h = { apikey: sb.config.anonKey, 'content-type': 'application/json' };
    const call = async (path: string, init: RequestInit) => {
      const res = await fetch(`${sb.url}/auth/v1${path}`, init);
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect(await call('/otp', { method: 'POST', headers: h, body: '{"email":' })).toMatchObject({ status: 400, body: { code: 'bad_json' } });
    expect(await call('/otp', { method: 'POST', headers: h, body: '[1]' })).toMatchObject({ status: 400, body: { code: 'bad_json' } });
    const token = await captchaToken(sb.url);
    expect(
      await call('/otp', { method: 'POST', headers: h, body: JSON.stringify({ email: 'not-an-email', gotrue_meta_security: { captcha_token: token } }) }),
    ).toEqual({
      status: 400,
      body: { code: 'validation_failed', message: 'Unable to validate email address: invalid format' },
    });
    const typed = JSON.stringify({ email: 42, gotrue_meta_security: { captcha_token: await captchaToken(sb.url) } });
    expect(await call('/otp', { method: 'POST', headers: h, body: typed })).toMatchObject({ status: 400, body: { code: 'bad_json' } });
    expect(await call('/token?grant_type=pkce', { method: 'POST', headers: h, body: '{}' })).toEqual({
      status: 400,
      body: { code: 'validation_failed', message: 'invalid request: both auth code and code verifier should be non-empty' },
    });
    expect(await call('/token?grant_type=pkce', { method: 'POST', headers: h, body: 'nope' })).toMatchObject({ status: 400, body: { code: 'bad_json' } });
    expect(await call('/user', { headers: { authorization: 'Bearer x' } })).toEqual({ status: 401, body: { message: 'No API key found in request' } });
    expect(await call('/user', { headers: { apikey: sb.config.anonKey } })).toMatchObject({
      status: 403,
      body: { code: 'bad_jwt', message: 'invalid claim: missing sub claim' },
    });
    expect(await call('/user', { headers: { apikey: sb.config.anonKey, authorization: 'Bearer a.b.c' } })).toMatchObject({
      status: 403,
      body: { code: 'bad_jwt' },
    });
    expect(await call('/logout?scope=everyone', { method: 'POST', headers: h })).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
    expect(await call('/verify', { method: 'POST', headers: h, body: JSON.stringify({ type: 'email', email: 'a@example.com', token: '123456' }) })).toEqual({
      status: 403,
      body: { code: 'otp_expired', message: 'Token has expired or is invalid' },
    });
    const badLink = await hop(`${sb.url}/auth/v1/verify?token=&type=magiclink&redirect_to=https%3A%2F%2Fevil.example%2F`);
    expect(badLink.status).toBe(303);
    expect(badLink.location.startsWith(`${SITE}/#error=invalid_request&error_code=validation_failed`)).toBe(true);
  });
});
