import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalSupabase, defaultLocalConfig } from '@aim/supabase';
import type { Db } from '@aim/supabase/db';
import { createTestDb } from '@aim/supabase/testing';
import { devToolsAllowed, localServicesConfig } from '../src/local-services.ts';

const base = () => defaultLocalConfig({ publicUrl: 'http://localhost:54321' });
const SHARED_DB = { DATABASE_URL: 'postgres://aim@db.internal:5432/aim' };

// The dev mailbox hands out every magic link it holds to whoever asks: fine for one developer on
// the embedded database, a takeover of any account on a deployment. On a shared PostgreSQL
// (DATABASE_URL) the platform is not in embedded mode, even on loopback behind a proxy.
describe('the dev tools outside embedded mode', () => {
  it('are allowed on loopback with the embedded database only', () => {
    expect(devToolsAllowed('127.0.0.1', {})).toBe(true);
    expect(devToolsAllowed('localhost', { DATABASE_URL: '' })).toBe(true);
    expect(devToolsAllowed('127.0.0.1', SHARED_DB)).toBe(false);
    expect(devToolsAllowed('0.0.0.0', {})).toBe(false);
    expect(localServicesConfig('127.0.0.1', SHARED_DB, base()).embedded).toBe(false);
    expect(localServicesConfig('127.0.0.1', {}, base()).embedded).toBe(true);
  });

  describe('served', () => {
    let db: Db;
    beforeAll(async () => {
      db = await createTestDb('pglite');
    });
    afterAll(async () => {
      await db?.close();
    });

    it('answer 404 for the mailbox (page and JSON) and the fake GitHub on DATABASE_URL, 200 in embedded mode', async () => {
      const shared = createLocalSupabase({ db, config: localServicesConfig('127.0.0.1', SHARED_DB, base()), log: () => {} });
      const embedded = createLocalSupabase({ db, config: localServicesConfig('127.0.0.1', {}, base()), log: () => {} });
      try {
        for (const path of ['/_dev/mailbox', '/_dev/mailbox.json', '/_dev/mailbox.json?to=victim%40example.com', '/_dev/github/login/oauth/authorize']) {
          expect((await shared.fetch(new Request(`http://localhost:54321${path}`))).status, path).toBe(404);
        }
        expect((await embedded.fetch(new Request('http://localhost:54321/_dev/mailbox.json'))).status).toBe(200);
      } finally {
        await shared.close();
        await embedded.close();
      }
    });
  });
});
