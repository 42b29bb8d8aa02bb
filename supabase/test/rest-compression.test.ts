import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signJwt } from '../src/keys.ts';
import { startLocalSupabase, testDatabaseKinds, type RunningLocalSupabase } from './support/index.ts';

// /rest/v1 answers of 1 KiB or more go out in br/gzip when the client accepts them (issue 24);
// the decoded body is the one an identity request gets, byte for byte.
describe.each(testDatabaseKinds())('compressed /rest/v1 answers on %s', (kind) => {
  let running: RunningLocalSupabase;
  let jwt: string;

  const rest = (path: string, headers: Record<string, string>) =>
    fetch(`${running.url}/rest/v1/${path}`, { headers: { apikey: running.config.anonKey, authorization: `Bearer ${jwt}`, ...headers } });

  beforeAll(async () => {
    running = await startLocalSupabase(kind);
    const id = randomUUID();
    const email = `gallery-${id}@example.com`;
    await running.db.query(
      `insert into auth.users (id, email, aud, role, created_at, updated_at) values ($1, $2, 'authenticated', 'authenticated', now(), now())`,
      [id, email],
    );
    await running.db.query(
      `insert into public.tasks (user_id, email, type, status, prompt, percentage, created_at)
       select $1, $2, 'imagine', 'finished', 'a lighthouse at dusk, number ' || n, 100, now() - make_interval(mins => n)
       from generate_series(1, 40) n`,
      [id, email],
    );
    jwt = await signJwt({ sub: id, role: 'authenticated', aud: 'authenticated', email, exp: Math.floor(Date.now() / 1000) + 3600 }, running.config.jwtSecret);
  });
  afterAll(async () => {
    await running?.stop();
  });

  it.each(['br', 'gzip'])('sends a gallery page in %s with Vary, decoding to the identity body', async (coding) => {
    const page = 'tasks?select=*&order=created_at.desc,id.desc&limit=20';
    const identity = await rest(page, { 'accept-encoding': 'identity' });
    expect(identity.headers.get('content-encoding')).toBeNull();
    expect(identity.headers.get('vary')).toMatch(/accept-encoding/i);
    const text = await identity.text();
    expect(text.length).toBeGreaterThan(1024);

    const res = await rest(page, { 'accept-encoding': coding });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe(coding);
    expect(res.headers.get('vary')).toMatch(/accept-encoding/i);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Number(res.headers.get('content-length'))).toBeLessThan(text.length / 3);
    expect(await res.text()).toBe(text); // fetch decodes br and gzip
  });

  it('keeps the row range of a counted page (206) and leaves small answers alone', async () => {
    const res = await rest('tasks?select=*&limit=20', { 'accept-encoding': 'br', prefer: 'count=exact' });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe('0-19/40');
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(((await res.json()) as unknown[]).length).toBe(20);

    const small = await rest('tasks?select=id&limit=1', { 'accept-encoding': 'br' });
    expect(small.headers.get('content-encoding')).toBeNull();
    expect(((await small.json()) as unknown[]).length).toBe(1);
  });
});
