import { describe, expect, it } from 'vitest';
import { describeMode, launcherModeFromEnv } from '../src/embedded-mode.ts';

const PG = 'postgres://aim@db.internal:5432/aim';
const HOSTED = 'https://abc.supabase.co';

// Embedded mode (private webhook targets, sandbox billing, open /metrics, /_dev) follows the
// database and Supabase in use, or EMBEDDED; never the bind address (a proxy hides it).
describe('the launcher mode', () => {
  it.each([
    [{}, true, 'DATABASE_URL/SUPABASE_URL'],
    [{ HOST: '127.0.0.1' }, true, 'DATABASE_URL/SUPABASE_URL'],
    [{ HOST: '0.0.0.0' }, true, 'DATABASE_URL/SUPABASE_URL'],
    [{ DATABASE_URL: '' }, true, 'DATABASE_URL/SUPABASE_URL'],
    [{ DATABASE_URL: PG }, false, 'DATABASE_URL/SUPABASE_URL'],
    [{ DATABASE_URL: PG, HOST: '127.0.0.1' }, false, 'DATABASE_URL/SUPABASE_URL'],
    [{ SUPABASE_URL: HOSTED }, false, 'DATABASE_URL/SUPABASE_URL'],
    [{ SUPABASE_URL: HOSTED, DATABASE_URL: PG }, false, 'DATABASE_URL/SUPABASE_URL'],
    [{ EMBEDDED: 'false' }, false, 'EMBEDDED'],
    [{ EMBEDDED: 'false', HOST: '127.0.0.1' }, false, 'EMBEDDED'],
    [{ EMBEDDED: 'true', DATABASE_URL: PG }, true, 'EMBEDDED'],
    [{ EMBEDDED: 'TRUE', SUPABASE_URL: HOSTED }, true, 'EMBEDDED'],
    [{ EMBEDDED: ' false ' }, false, 'EMBEDDED'],
    [{ EMBEDDED: '' }, true, 'DATABASE_URL/SUPABASE_URL'],
  ] as const)('%o → embedded %s (decided by %s)', (env, embedded, decidedBy) => {
    expect(launcherModeFromEnv(env)).toEqual({ embedded, decidedBy });
  });

  it.each(['yes', '1', 'on', 'production'])('refuses EMBEDDED=%s', (value) => {
    expect(() => launcherModeFromEnv({ EMBEDDED: value })).toThrow(`EMBEDDED must be true or false, got "${value}"`);
  });

  it.each([
    [{}, 'mode: embedded (PGlite, local services, sandbox billing)'],
    [{ DATABASE_URL: PG }, 'mode: production'],
    [{ EMBEDDED: 'false' }, 'mode: production (EMBEDDED=false)'],
    [{ EMBEDDED: 'true', DATABASE_URL: PG }, 'mode: embedded (PostgreSQL, local services, sandbox billing) (EMBEDDED=true)'],
    [{ STRIPE_SECRET_KEY: 'sk_test_x' }, 'mode: embedded (PGlite, local services, Stripe billing)'],
    [{ STRIPE_SECRET_KEY: 'sk_test_x', BILLING_PROVIDER: 'sandbox' }, 'mode: embedded (PGlite, local services, sandbox billing)'],
  ] as const)('prints %o as "%s"', (env, line) => {
    expect(describeMode(launcherModeFromEnv(env), env)).toBe(line);
  });
});
