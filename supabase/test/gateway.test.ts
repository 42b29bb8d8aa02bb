import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSupabase, type RunningLocalSupabase } from './support/index.ts';

// The envelope every local service shares (no database differences here: PGlite leg only).
describe('local services envelope', () => {
  let sb: RunningLocalSupabase;
  beforeAll(async () => {
    sb = await startLocalSupabase('pglite');
  });
  afterAll(async () => {
    await sb?.stop();
  });

  it('answers an oversized body with 413, not a crash', async () => {
    const big = JSON.stringify({ email: 'x@example.com', data: { pad: 'x'.repeat(2 * 1024 * 1024) } });
    for (const path of ['/auth/v1/otp', '/rest/v1/rpc/toggle_favorite']) {
      const res = await fetch(`${sb.url}${path}`, { method: 'POST', headers: { apikey: sb.config.anonKey, 'content-type': 'application/json' }, body: big });
      expect(res.status, path).toBe(413);
    }
  });

  it('asks for an API key on non-open routes like Supabase’s gateway', async () => {
    const res = await fetch(`${sb.url}/rest/v1/mdusers?select=*`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ message: 'No API key found in request' });
  });

  it('answers CORS preflights and exposes the headers supabase-js reads', async () => {
    const res = await fetch(`${sb.url}/rest/v1/tasks?select=*`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:3000',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'apikey,authorization,prefer,x-client-info',
      },
    });
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('prefer');
    const get = await fetch(`${sb.url}/rest/v1/tasks?select=*`, { headers: { origin: 'http://localhost:3000', apikey: sb.config.anonKey } });
    const exposed = get.headers.get('access-control-expose-headers')?.toLowerCase() ?? '';
    expect(exposed).toContain('content-range');
    expect(exposed).toContain('x-supabase-api-version');
  });

  it('serves the dev mailbox as a page and as JSON', async () => {
    sb.services.mailbox.send({ to: 'box@example.com', subject: 'Hello', text: 'body', link: 'http://localhost:54321/x' });
    const json = (await (await fetch(`${sb.url}/_dev/mailbox.json?to=BOX@example.com`)).json()) as { messages: { subject: string }[] };
    expect(json.messages.map((m) => m.subject)).toEqual(['Hello']);
    const page = await fetch(`${sb.url}/_dev/mailbox`);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('Open the magic link');
  });
});
