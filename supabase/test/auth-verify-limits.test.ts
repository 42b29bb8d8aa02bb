import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClient, startLocalSupabase, testDatabaseKinds, type RunningLocalSupabase } from './support/index.ts';
import { captchaToken, fastCaptcha, sleep, uniqueEmail } from './auth-helpers.ts';

const LIMITED = { code: 'over_request_rate_limit', message: 'Request rate limit reached' };
const WRONG = { code: 'otp_expired', message: 'Token has expired or is invalid' };

interface Answer {
  status: number;
  body: Record<string, unknown>;
  location?: string;
}

// Brute force of the mailed 6-digit code: five wrong tries burn a code, eight failures lock an
// address for the window. Each test speaks from its own loopback address (127.0.0.x).
describe.each(testDatabaseKinds())('/auth/v1/verify brute-force limits on %s', (kind) => {
  let sb: RunningLocalSupabase;

  beforeAll(async () => {
    sb = await startLocalSupabase(kind, { captcha: fastCaptcha(), verifyLimits: { perToken: 5, perAddress: 8, windowSeconds: 300 } });
  });
  afterAll(async () => {
    await sb?.stop();
  });

  /** One request to the services from `from` (a loopback address of this machine). */
  function call(from: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
    const { port } = new URL(sb.url);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          localAddress: from,
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

  const verifyCode = (from: string, email: string, token: string) => call(from, 'POST', '/auth/v1/verify', { email, token, type: 'email' });
  const openLink = (from: string, link: string) => call(from, 'GET', new URL(link).pathname + new URL(link).search);

  /** Requests a code for `email` (as supabase-js does) and returns the mail. */
  async function mailCode(email: string) {
    const c = makeClient(sb.url, sb.config.anonKey, { flowType: 'implicit' });
    const { error } = await c.auth.signInWithOtp({ email, options: { captchaToken: await captchaToken(sb.url) } });
    expect(error).toBeNull();
    const mail = sb.services.mailbox.latest(email);
    if (!mail?.otp || !mail.link) throw new Error(`no code mailed to ${email}`);
    return { otp: mail.otp, link: mail.link };
  }

  const wrongCode = (otp: string, n: number) => String((Number(otp) + n) % 1_000_000).padStart(6, '0');

  it('answers 429 after five wrong codes, and the burned code then fails even with the right digits', async () => {
    const from = '127.0.0.2';
    const email = uniqueEmail('burn');
    const { otp, link } = await mailCode(email);
    for (let i = 1; i <= 5; i++) {
      expect(await verifyCode(from, email, wrongCode(otp, i)), `wrong try ${i}`).toEqual({ status: 403, body: WRONG });
    }
    expect(await verifyCode(from, email, wrongCode(otp, 6))).toEqual({ status: 429, body: LIMITED });
    expect(await verifyCode(from, email, otp)).toEqual({ status: 429, body: LIMITED });
    // from another address too: the limit is the code's, and the code is gone
    expect(await verifyCode('127.0.0.12', email, otp)).toEqual({ status: 429, body: LIMITED });
    const clicked = await openLink('127.0.0.12', link);
    expect(clicked.status).toBe(303);
    expect(clicked.location).toContain('error_code=otp_expired');

    // supabase-js reads the 429 as GoTrue's
    const viaClient = await makeClient(sb.url, sb.config.anonKey).auth.verifyOtp({ email, token: otp, type: 'email' });
    expect(viaClient.error).toMatchObject({ status: 429, code: 'over_request_rate_limit', message: 'Request rate limit reached' });

    // a new code starts again
    await sleep(1_100);
    const fresh = await mailCode(email);
    const ok = await verifyCode(from, email, fresh.otp);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ token_type: 'bearer', user: { email } });
  });

  it('accepts the right code after four wrong ones', async () => {
    const from = '127.0.0.3';
    const email = uniqueEmail('within');
    const { otp } = await mailCode(email);
    for (let i = 1; i <= 4; i++) expect((await verifyCode(from, email, wrongCode(otp, i))).status).toBe(403);
    const ok = await verifyCode(from, email, otp);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ user: { email } });
  });

  it('limits each client address on its own, whatever the form of verification', async () => {
    const from = '127.0.0.4';
    // eight failures from one address, each against a different email (no code is at its limit)
    for (let i = 0; i < 7; i++) expect((await verifyCode(from, uniqueEmail('spray'), '123456')).status).toBe(403);
    expect((await call(from, 'POST', '/auth/v1/verify', { token_hash: 'f'.repeat(56), type: 'email' })).status).toBe(403);

    const email = uniqueEmail('victim');
    const { otp, link } = await mailCode(email);
    expect(await verifyCode(from, email, otp)).toEqual({ status: 429, body: LIMITED });
    expect(await call(from, 'POST', '/auth/v1/verify', { token_hash: 'e'.repeat(56), type: 'email' })).toEqual({ status: 429, body: LIMITED });
    expect(await openLink(from, link)).toEqual({ status: 429, body: LIMITED });

    // another address is not limited by the first one's failures
    const other = '127.0.0.5';
    expect(await verifyCode(other, uniqueEmail('other'), '123456')).toEqual({ status: 403, body: WRONG });
    const ok = await verifyCode(other, email, otp);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ user: { email } });
  });

  it('counts a burst of parallel guesses before any is checked', async () => {
    const email = uniqueEmail('burst');
    const { otp } = await mailCode(email);
    const guesses = Array.from({ length: 20 }, (_, i) => verifyCode(`127.0.0.${20 + (i % 4)}`, email, wrongCode(otp, i + 1)));
    const statuses = (await Promise.all(guesses)).map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 403)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    expect((await verifyCode('127.0.0.24', email, otp)).status).toBe(429);
  });
});
