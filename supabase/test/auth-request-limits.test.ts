import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthError } from '../src/auth/errors.ts';
import { createAddressLimiter, REQUEST_LIMITS } from '../src/auth/request-limits.ts';
import { startLocalSupabase, testDatabaseKinds, type RunningLocalSupabase } from './support/index.ts';
import { fastCaptcha } from './auth-helpers.ts';

describe('per-address request limits of /otp and /token', () => {
  it('refuses the request over the limit with GoTrue 429 over_request_rate_limit, per address, until the window ends', () => {
    let t = 0;
    const limiter = createAddressLimiter({ perAddress: 2, windowSeconds: 60 }, () => t);
    limiter.take('192.0.2.1');
    limiter.take('192.0.2.1');
    let error: unknown;
    try {
      limiter.take('192.0.2.1');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ status: 429, code: 'over_request_rate_limit', message: 'Request rate limit reached' });
    limiter.take('192.0.2.2');
    t = 60_000;
    limiter.take('192.0.2.1');
    // in-process calls carry no address: not limited
    for (let i = 0; i < 5; i++) limiter.take('unknown');
  });

  it('has defaults roomier than GoTrue’s', () => {
    expect(REQUEST_LIMITS).toEqual({ otp: { perAddress: 100, windowSeconds: 300 }, token: { perAddress: 300, windowSeconds: 300 } });
  });
});

describe.each(testDatabaseKinds())('/auth/v1/token limit per address on %s', (kind) => {
  let sb: RunningLocalSupabase;

  beforeAll(async () => {
    sb = await startLocalSupabase(kind, { captcha: fastCaptcha() });
  });
  afterAll(async () => {
    await sb?.stop();
  });

  function refresh(from: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const { port } = new URL(sb.url);
    const payload = JSON.stringify({ refresh_token: 'not-a-token' });
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          localAddress: from,
          method: 'POST',
          path: '/auth/v1/token?grant_type=refresh_token',
          agent: false,
          headers: { apikey: sb.config.anonKey, 'x-supabase-api-version': '2024-01-01', 'content-type': 'application/json' },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  it('answers 429 over_request_rate_limit past the limit, for that address only', async () => {
    for (let i = 0; i < REQUEST_LIMITS.token.perAddress; i++) expect((await refresh('127.0.0.41')).status).not.toBe(429);
    const over = await refresh('127.0.0.41');
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ code: 'over_request_rate_limit', message: 'Request rate limit reached' });
    expect((await refresh('127.0.0.42')).status).not.toBe(429);
  });
});
