import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalSupabase, DEFAULT_SECRET_KEY, defaultLocalConfig } from '@aim/supabase';
import type { Db } from '@aim/supabase/db';
import { createTestDb } from '@aim/supabase/testing';
import { exposureRefusal, isLoopbackHost, localServicesConfig, missingSecrets } from '../src/local-services.ts';

const ALL_SECRETS = {
  JWT_SECRET: 'a-private-jwt-secret-of-at-least-32-characters',
  SUPABASE_ANON_KEY: 'private-anon-jwt',
  SUPABASE_SERVICE_ROLE_KEY: 'private-service-role-jwt',
  SUPABASE_SECRET_KEY: 'sb_secret_private',
  ALTCHA_HMAC_KEY: 'private-altcha-key',
};
const ALL_NAMES = Object.keys(ALL_SECRETS);
const base = () => defaultLocalConfig({ publicUrl: 'http://localhost:54321' });

describe('the launcher and the local services’ secrets', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.3.2.1', true],
    ['localhost', true],
    ['LOCALHOST', true],
    ['::1', true],
    ['[::1]', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['', false],
    ['192.168.1.20', false],
    ['10.0.0.5', false],
    ['fe80::1', false],
    ['my-laptop.lan', false],
    ['localhost.example.com', false],
  ])('HOST=%j is loopback: %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });

  it.each<[string, string, Record<string, string>, string[]]>([
    ['loopback, nothing set', '127.0.0.1', {}, []],
    ['localhost, nothing set', 'localhost', {}, []],
    ['all interfaces, nothing set', '0.0.0.0', {}, ALL_NAMES],
    ['a LAN address, nothing set', '192.168.1.20', {}, ALL_NAMES],
    ['all interfaces, everything set', '0.0.0.0', ALL_SECRETS, []],
    ['IPv6 any, only the JWT secret', '::', { JWT_SECRET: ALL_SECRETS.JWT_SECRET }, ALL_NAMES.filter((n) => n !== 'JWT_SECRET')],
    ['no ALTCHA key', '0.0.0.0', { ...ALL_SECRETS, ALTCHA_HMAC_KEY: '' }, ['ALTCHA_HMAC_KEY']],
    ['no secret key', '0.0.0.0', { ...ALL_SECRETS, SUPABASE_SECRET_KEY: '  ' }, ['SUPABASE_SECRET_KEY']],
    [
      'the public defaults typed in',
      '0.0.0.0',
      {
        ...ALL_SECRETS,
        JWT_SECRET: 'super-secret-jwt-token-with-at-least-32-characters-long',
        SUPABASE_SECRET_KEY: DEFAULT_SECRET_KEY,
        ALTCHA_HMAC_KEY: 'local-altcha-hmac-key-change-me',
      },
      ['JWT_SECRET', 'SUPABASE_SECRET_KEY', 'ALTCHA_HMAC_KEY'],
    ],
  ])('%s (HOST=%s) → missing %j', (_case, host, env, missing) => {
    expect(missingSecrets(host, env)).toEqual(missing);
    expect(exposureRefusal(host, env) === undefined).toBe(missing.length === 0);
  });

  it('says why it refuses and names every missing variable', () => {
    expect(exposureRefusal('0.0.0.0', { JWT_SECRET: ALL_SECRETS.JWT_SECRET })).toBe(
      'Refusing to start: HOST=0.0.0.0 exposes the local Supabase services beyond this machine, and their default keys are public.\n' +
        'Set SUPABASE_ANON_KEY, SUPABASE_SERVICE_ROLE_KEY, SUPABASE_SECRET_KEY, ALTCHA_HMAC_KEY to private values (the anon and service_role keys are JWTs signed with JWT_SECRET), or leave HOST unset to stay on 127.0.0.1.',
    );
  });

  it('takes the keys and secrets from the environment, and embedded mode only on loopback', () => {
    const exposed = localServicesConfig('0.0.0.0', { ...ALL_SECRETS, SUPABASE_PUBLISHABLE_KEY: 'sb_publishable_mine' }, base());
    expect(exposed).toMatchObject({
      jwtSecret: ALL_SECRETS.JWT_SECRET,
      anonKey: ALL_SECRETS.SUPABASE_ANON_KEY,
      serviceRoleKey: ALL_SECRETS.SUPABASE_SERVICE_ROLE_KEY,
      secretKey: ALL_SECRETS.SUPABASE_SECRET_KEY,
      publishableKey: 'sb_publishable_mine',
      captcha: { ...base().captcha, hmacKey: ALL_SECRETS.ALTCHA_HMAC_KEY },
      embedded: false,
    });
    // embedded defaults unchanged: the CLI's keys, /_dev mounted
    expect(localServicesConfig('127.0.0.1', {}, base())).toEqual({ ...base(), embedded: true });
  });
});

describe('the local services the launcher builds off loopback', () => {
  let db: Db;
  beforeAll(async () => {
    db = await createTestDb('pglite');
  });
  afterAll(async () => {
    await db?.close();
  });

  it('do not mount /_dev (dev mailbox, fake GitHub), which loopback does', async () => {
    const exposed = createLocalSupabase({ db, config: localServicesConfig('0.0.0.0', ALL_SECRETS, base()), log: () => {} });
    const embedded = createLocalSupabase({ db, config: localServicesConfig('127.0.0.1', {}, base()), log: () => {} });
    const authorize = `/_dev/github/login/oauth/authorize?${new URLSearchParams({ client_id: 'local-github-client', redirect_uri: 'http://localhost:54321/auth/v1/callback' })}`;
    try {
      for (const path of ['/_dev/mailbox', '/_dev/mailbox.json', authorize]) {
        const url = `http://localhost:54321${path}`;
        expect((await exposed.fetch(new Request(url))).status, path).toBe(404);
        expect((await embedded.fetch(new Request(url))).status, path).toBe(200);
      }
      expect(await (await exposed.fetch(new Request('http://localhost:54321/'))).json()).not.toHaveProperty('mailbox');
    } finally {
      await exposed.close();
      await embedded.close();
    }
  });
});
