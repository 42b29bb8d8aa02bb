/**
 * @module Whether the launcher runs in embedded mode: private webhook targets, sandbox
 * billing without opting in, simulated engines, an open /metrics, the dev mailbox and fake
 * GitHub (/_dev). Inferred from the bind address it was not: behind a reverse proxy on the
 * same machine (HOST=127.0.0.1) internet traffic would get all of that. It follows what the
 * process runs on instead: embedded means the embedded database and the local services (no
 * DATABASE_URL, no SUPABASE_URL), unless EMBEDDED=true|false says otherwise.
 */
type Env = Record<string, string | undefined>;

export interface LauncherMode {
  embedded: boolean;
  /** What decided it: the EMBEDDED setting, or the database and Supabase in use. */
  decidedBy: 'EMBEDDED' | 'DATABASE_URL/SUPABASE_URL';
}

/** The mode of `env`; throws on an EMBEDDED that is neither true nor false. */
export function launcherModeFromEnv(env: Env): LauncherMode {
  const explicit = env.EMBEDDED?.trim().toLowerCase();
  if (explicit === 'true' || explicit === 'false') return { embedded: explicit === 'true', decidedBy: 'EMBEDDED' };
  if (explicit) throw new Error(`EMBEDDED must be true or false, got ${JSON.stringify(env.EMBEDDED)}`);
  return { embedded: !env.DATABASE_URL && !env.SUPABASE_URL, decidedBy: 'DATABASE_URL/SUPABASE_URL' };
}

/** The line the launcher prints, e.g. `mode: embedded (PGlite, local services, sandbox billing)`. */
export function describeMode(mode: LauncherMode, env: Env): string {
  if (!mode.embedded) return `mode: production${mode.decidedBy === 'EMBEDDED' ? ' (EMBEDDED=false)' : ''}`;
  const parts = [
    env.DATABASE_URL ? 'PostgreSQL' : 'PGlite',
    env.SUPABASE_URL ? 'hosted Supabase' : 'local services',
    env.BILLING_PROVIDER === 'stripe' || (!env.BILLING_PROVIDER && env.STRIPE_SECRET_KEY) ? 'Stripe billing' : 'sandbox billing',
  ];
  return `mode: embedded (${parts.join(', ')})${mode.decidedBy === 'EMBEDDED' ? ' (EMBEDDED=true)' : ''}`;
}
