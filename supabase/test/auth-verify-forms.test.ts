import { createHash } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClient, startLocalSupabase, testDatabaseKinds, type RunningLocalSupabase } from './support/index.ts';
import { captchaToken, fastCaptcha, uniqueEmail } from './auth-helpers.ts';

const LIMITED = { code: 'over_request_rate_limit', message: 'Request rate limit reached' };
const WRONG = { code: 'otp_expired', message: 'Token has expired or is invalid' };

interface Answer {
  status: number;
  body: Record<string, unknown>;
  location?: string;
}

/** GoTrue's link hash, which an attacker who knows the email can compute for every code. */
const gotrueHash = (email: string, otp: string) =>
  createHash('sha224')
    .update(email + otp)
    .digest('hex');
const wrongCode = (otp: string, n: number) => String((Number(otp) + n) % 1_000_000).padStart(6, '0');

// Brute force of a mailed sign-in through each form of /verify (docs/decisions/0015-verify-brute-force.md):
// six wrong tries, then the one an attacker would compute as right, must not sign in.
describe.each(testDatabaseKinds())('/auth/v1/verify brute force through every form on %s', (kind) => {
  let sb: RunningLocalSupabase;

  beforeAll(async () => {
    sb = await startLocalSupabase(kind, { captcha: fastCaptcha(), verifyLimits: { perToken: 5, perAddress: 100, windowSeconds: 300 } });
  });
  afterAll(async () => {
    await sb?.stop();
  });

  function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
    const { port } = new URL(sb.url);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          localAddress: '127.0.0.31',
          method,
          path,
          headers: { apikey: sb.config.anonKey, 'x-supabase-api-version': '2024-01-01', ...(payload ? { 'content-type': 'application/json' } : {}) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {}, location: res.headers.location }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  async function mail(email: string, flowType: 'implicit' | 'pkce' = 'implicit') {
    const c = makeClient(sb.url, sb.config.anonKey, { flowType });
    const { error } = await c.auth.signInWithOtp({ email, options: { captchaToken: await captchaToken(sb.url), emailRedirectTo: 'http://localhost:3000/cb' } });
    expect(error).toBeNull();
    const m = sb.services.mailbox.latest(email);
    if (!m?.otp || !m.link) throw new Error(`nothing mailed to ${email}`);
    return { otp: m.otp, link: new URL(m.link) };
  }

  const openLink = (token: string) =>
    call('GET', `/auth/v1/verify?${new URLSearchParams({ token, type: 'magiclink', redirect_to: 'http://localhost:3000/cb' })}`);
  const postHash = (tokenHash: string) => call('POST', '/auth/v1/verify', { token_hash: tokenHash, type: 'magiclink' });
  const postCode = (email: string, token: string) => call('POST', '/auth/v1/verify', { email, token, type: 'email' });

  it('mails a link whose token is random, not derived from the email and the code', async () => {
    const email = uniqueEmail('shape');
    const first = await mail(email);
    const token = first.link.searchParams.get('token');
    expect(token).toMatch(/^[0-9a-f]{56}$/);
    expect(token).not.toBe(gotrueHash(email, first.otp));
  });

  it.each([
    ['GET /verify?token=', 'implicit', (email: string, otp: string) => openLink(gotrueHash(email, otp))],
    ['GET /verify?token=pkce_', 'pkce', (email: string, otp: string) => openLink(`pkce_${gotrueHash(email, otp)}`)],
    ['POST /verify {token_hash}', 'implicit', (email: string, otp: string) => postHash(gotrueHash(email, otp))],
  ] as const)('%s: six computed guesses, then the computed right one, do not sign in', async (_form, flow, guess) => {
    const email = uniqueEmail('guess');
    const { otp, link } = await mail(email, flow);
    const refused = (a: Answer) => (a.status === 303 ? a.location?.includes('error_code=otp_expired') : a.status === 403 && a.body.code === 'otp_expired');
    for (let i = 1; i <= 6; i++) expect(refused(await guess(email, wrongCode(otp, i))), `wrong guess ${i}`).toBe(true);
    expect(refused(await guess(email, otp)), 'the right code as a link hash').toBe(true);
    // the guesses never named the user's link: the mailed one still signs in, once
    const clicked = await openLink(link.searchParams.get('token')!);
    expect(clicked.status).toBe(303);
    expect(clicked.location).toMatch(flow === 'pkce' ? /[?&]code=/ : /#access_token=/);
    expect((await openLink(link.searchParams.get('token')!)).location).toContain('error_code=otp_expired');
  });

  it('POST /verify {email, token}: five wrong codes burn the code and the link; the right code is then refused', async () => {
    const email = uniqueEmail('code');
    const { otp, link } = await mail(email);
    for (let i = 1; i <= 5; i++) expect(await postCode(email, wrongCode(otp, i)), `wrong code ${i}`).toEqual({ status: 403, body: WRONG });
    expect(await postCode(email, wrongCode(otp, 6))).toEqual({ status: 429, body: LIMITED });
    expect(await postCode(email, otp)).toEqual({ status: 429, body: LIMITED });
    expect((await openLink(link.searchParams.get('token')!)).location).toContain('error_code=otp_expired');
    expect(await postHash(link.searchParams.get('token')!)).toEqual({ status: 403, body: WRONG });
  });

  it('still signs in with the right code through supabase-js, and with the link as token_hash', async () => {
    const email = uniqueEmail('ok');
    const { otp } = await mail(email);
    const viaCode = await makeClient(sb.url, sb.config.anonKey).auth.verifyOtp({ email, token: otp, type: 'email' });
    expect(viaCode.error).toBeNull();
    expect(viaCode.data.user?.email).toBe(email);
    // a code once used is gone, and so is its link
    expect(await postCode(email, otp)).toEqual({ status: 403, body: WRONG });

    await new Promise((r) => setTimeout(r, 1_100));
    const again = await mail(email);
    const viaHash = await makeClient(sb.url, sb.config.anonKey).auth.verifyOtp({ token_hash: again.link.searchParams.get('token')!, type: 'magiclink' });
    expect(viaHash.error).toBeNull();
    expect(viaHash.data.user?.email).toBe(email);
    expect(await postCode(email, again.otp)).toEqual({ status: 403, body: WRONG });
  });
});
