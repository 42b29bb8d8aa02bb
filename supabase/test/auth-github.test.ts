import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClient, startLocalSupabase, testDatabaseKinds, type RunningLocalSupabase } from './support/index.ts';
import { decodeJwt, hop, uniqueEmail } from './auth-helpers.ts';

const CALLBACK = 'http://localhost:3000/auth/callback';

describe.each(testDatabaseKinds())('auth: GitHub through the fake provider on %s', (kind) => {
  let sb: RunningLocalSupabase;

  beforeAll(async () => {
    sb = await startLocalSupabase(kind, { captcha: { enabled: false, hmacKey: 'unused-in-this-suite', maxNumber: 10, expiresInSeconds: 60 } });
  });
  afterAll(async () => {
    await sb?.stop();
  });

  /** signInWithOAuth → our /authorize → the fake GitHub's authorize URL. */
  async function startOAuth(flowType: 'pkce' | 'implicit') {
    const c = makeClient(sb.url, sb.config.anonKey, { flowType });
    const { data, error } = await c.auth.signInWithOAuth({ provider: 'github', options: { redirectTo: CALLBACK, skipBrowserRedirect: true } });
    expect(error).toBeNull();
    const toGithub = await hop(data.url!);
    expect(toGithub.status).toBe(302);
    return { c, authorizeUrl: new URL(toGithub.location) };
  }

  it('signs in with GitHub (PKCE) and opens the account', async () => {
    const { c, authorizeUrl } = await startOAuth('pkce');
    expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(`${sb.url}/_dev/github/login/oauth/authorize`);
    expect(Object.fromEntries(authorizeUrl.searchParams)).toEqual({
      client_id: sb.config.github.clientId,
      redirect_uri: `${sb.url}/auth/v1/callback`,
      response_type: 'code',
      scope: 'user:email',
      state: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });

    const email = uniqueEmail('gh');
    authorizeUrl.searchParams.set('login', 'octo-dev');
    authorizeUrl.searchParams.set('email', email);
    authorizeUrl.searchParams.set('auto', '1');
    const toCallback = await hop(authorizeUrl.toString());
    expect(toCallback.status).toBe(302);
    expect(toCallback.location.startsWith(`${sb.url}/auth/v1/callback?code=`)).toBe(true);

    const back = await hop(toCallback.location);
    expect(back.status).toBe(302);
    const u = new URL(back.location);
    expect(`${u.origin}${u.pathname}`).toBe(CALLBACK);
    const code = u.searchParams.get('code')!;

    const { data, error } = await c.auth.exchangeCodeForSession(code);
    expect(error).toBeNull();
    const session = data.session!;
    expect(session.provider_token).toMatch(/^gho_/);
    expect(session.user.email).toBe(email);
    expect(session.user.app_metadata).toEqual({ provider: 'github', providers: ['github'] });
    expect(session.user.user_metadata).toMatchObject({
      user_name: 'octo-dev',
      preferred_username: 'octo-dev',
      iss: 'https://api.github.com',
      email_verified: true,
    });
    expect(session.user.identities?.[0]).toMatchObject({ provider: 'github', user_id: session.user.id, email });
    const claims = decodeJwt(session.access_token);
    expect(claims.amr).toEqual([{ method: 'oauth', timestamp: expect.any(Number) }]);
    expect(claims.app_metadata).toEqual({ provider: 'github', providers: ['github'] });

    const acct = await sb.db.query<{ credits: number; plan: string; api_key: string }>('select * from public.mdusers where id = $1', [session.user.id]);
    expect(acct.rows[0]).toMatchObject({ credits: 0, plan: 'zero' });
    expect(acct.rows[0].api_key.length).toBeGreaterThanOrEqual(32);

    // The callback's state is single use.
    const replay = await hop(toCallback.location);
    expect(new URL(replay.location).hash).toContain('error_code=bad_oauth_state');
  });

  it('signs in with GitHub (implicit) through the authorize page form, linking an existing email user', async () => {
    const email = uniqueEmail('link');
    const otp = await makeClient(sb.url, sb.config.anonKey, { flowType: 'implicit' }).auth.signInWithOtp({ email });
    expect(otp.error).toBeNull(); // captcha is disabled in this suite

    const { c, authorizeUrl } = await startOAuth('implicit');
    const pageRes = await fetch(authorizeUrl);
    expect(pageRes.status).toBe(200);
    const html = await pageRes.text();
    expect(html).toContain('<label for="login">');
    expect(html).toContain('>Continue</button>');

    const form = new URLSearchParams({ ...Object.fromEntries(authorizeUrl.searchParams), login: 'linker', email, id: '4242' });
    const toCallback = await hop(`${sb.url}/_dev/github/login/oauth/authorize`, { method: 'POST', body: form });
    expect(toCallback.status).toBe(302);
    const back = await hop(toCallback.location);
    expect(back.location.startsWith(`${CALLBACK}#access_token=`)).toBe(true);
    const fragment = new URLSearchParams(new URL(back.location).hash.slice(1));
    expect([...fragment.keys()]).toEqual(['access_token', 'expires_at', 'expires_in', 'provider_token', 'refresh_token', 'sb', 'token_type']);

    const { data, error } = await c.auth.setSession({ access_token: fragment.get('access_token')!, refresh_token: fragment.get('refresh_token')! });
    expect(error).toBeNull();
    expect(data.user?.app_metadata).toEqual({ provider: 'email', providers: ['email', 'github'] });
    expect(data.user?.identities?.map((i) => [i.provider, i.id])).toEqual([
      ['email', data.user!.id],
      ['github', '4242'],
    ]);
  });

  it('sends a cancelled consent back to the app as an error', async () => {
    const { authorizeUrl } = await startOAuth('pkce');
    const form = new URLSearchParams({ ...Object.fromEntries(authorizeUrl.searchParams), deny: '1' });
    const toCallback = await hop(`${sb.url}/_dev/github/login/oauth/authorize`, { method: 'POST', body: form });
    const back = await hop(toCallback.location);
    const u = new URL(back.location);
    expect(`${u.origin}${u.pathname}`).toBe(CALLBACK);
    expect(u.searchParams.get('error_description')).toBe('The user has denied your application access.');
    expect(u.searchParams.get('code')).toBeNull();
  });

  it('refuses other providers and bad provider calls', async () => {
    const res = await fetch(`${sb.url}/auth/v1/authorize?provider=gitlab`);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ code: 'validation_failed', message: 'Unsupported provider: Provider gitlab could not be found' });
    const badCode = await fetch(`${sb.url}/_dev/github/login/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ client_id: sb.config.github.clientId, client_secret: sb.config.github.clientSecret, code: 'nope' }),
    });
    expect(await badCode.json()).toMatchObject({ error: 'bad_verification_code' });
    const noToken = await fetch(`${sb.url}/_dev/github/api/user`);
    expect(noToken.status).toBe(401);
  });
});
