import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLISHABLE_KEY, SECRET_KEY } from '../src/gateway.ts';
import { startLocalSupabase, type RunningLocalSupabase } from './support/index.ts';

// Services others can reach (not embedded mode): no dev tools, and the gateway's alias keys
// are the configured ones, not the CLI's public defaults (PGlite leg only: no SQL differences).
describe('local services outside embedded mode', () => {
  let sb: RunningLocalSupabase;
  beforeAll(async () => {
    sb = await startLocalSupabase('pglite', { embedded: false, secretKey: 'sb_secret_private', publishableKey: 'sb_publishable_private' });
  });
  afterAll(async () => {
    await sb?.stop();
  });

  it('do not serve the dev mailbox or the fake GitHub provider', async () => {
    sb.services.mailbox.send({ to: 'box@example.com', subject: 'Hello', text: 'body', link: 'http://localhost:54321/x' });
    const authorize = `/_dev/github/login/oauth/authorize?${new URLSearchParams({ client_id: sb.config.github.clientId, redirect_uri: `${sb.url}/auth/v1/callback`, login: 'octocat', email: 'octocat@example.com', auto: '1' })}`;
    for (const path of ['/_dev/mailbox', '/_dev/mailbox.json?to=box@example.com', authorize, '/_dev/github/api/user']) {
      const res = await fetch(`${sb.url}${path}`, { redirect: 'manual' });
      expect(res.status, path).toBe(404);
      expect(await res.text(), path).not.toContain('Hello');
    }
    expect(await (await fetch(sb.url)).json()).not.toHaveProperty('mailbox');
  });

  it('map the configured sb_secret_/sb_publishable_ keys, not the CLI defaults', async () => {
    const read = async (apikey: string) => {
      const res = await fetch(`${sb.url}/rest/v1/tasks?select=id`, { headers: { apikey } });
      return { status: res.status, body: await res.json() };
    };
    expect(await read('sb_secret_private')).toEqual({ status: 200, body: [] });
    // the anon role, which may not read tasks at all
    expect(await read('sb_publishable_private')).toMatchObject({ status: 401, body: { code: '42501' } });
    // the defaults are no keys any more, just malformed JWTs
    for (const key of [SECRET_KEY, PUBLISHABLE_KEY]) {
      expect(await read(key)).toMatchObject({ status: 401, body: { code: 'PGRST301', message: 'Expected 3 parts in JWT; got 1' } });
    }
  });
});
