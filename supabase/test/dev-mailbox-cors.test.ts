import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSupabase, type RunningLocalSupabase } from './support/index.ts';

// The dev mailbox holds everyone's magic links and codes: a page on any other origin must not
// read it with the visitor's browser. Only the dashboard's origin gets CORS on /_dev.
describe('CORS of the dev mailbox', () => {
  let sb: RunningLocalSupabase;
  beforeAll(async () => {
    sb = await startLocalSupabase('pglite', {
      siteUrl: 'http://localhost:3000',
      redirectAllowList: ['http://localhost:3000/**', 'http://*.preview.example/**'],
    });
    sb.services.mailbox.send({ to: 'box@example.com', subject: 'Hello', text: 'body', otp: '123456' });
  });
  afterAll(async () => {
    await sb?.stop();
  });

  const get = (path: string, origin?: string) => fetch(`${sb.url}${path}`, { headers: origin ? { origin } : {} });

  it.each(['https://evil.example', 'http://localhost:3001', 'null', 'http://x.preview.example'])('gives %s no Access-Control-Allow-Origin', async (origin) => {
    for (const path of ['/_dev/mailbox.json', '/_dev/mailbox.json?to=box%40example.com', '/_dev/mailbox']) {
      const res = await get(path, origin);
      expect(res.headers.get('access-control-allow-origin'), path).toBeNull();
      await res.arrayBuffer();
    }
    const preflight = await fetch(`${sb.url}/_dev/mailbox.json`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET' } });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers the dashboard origin, and scripts without an Origin as before', async () => {
    const res = await get('/_dev/mailbox.json', 'http://localhost:3000');
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(res.headers.get('vary')).toContain('Origin');
    const plain = await get('/_dev/mailbox.json?to=box%40example.com');
    expect(plain.status).toBe(200);
    expect(((await plain.json()) as { messages: { otp: string }[] }).messages[0]?.otp).toBe('123456');
  });

  it('still reflects any origin on the API routes, as Supabase’s gateway does', async () => {
    const res = await get('/auth/v1/captcha/challenge', 'https://app.example');
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example');
    await res.arrayBuffer();
  });
});
