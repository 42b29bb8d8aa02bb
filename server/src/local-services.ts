/**
 * @module How the launcher configures the local Supabase services from the environment, and
 * when it refuses to start them. Their default keys and secrets are the Supabase CLI's
 * public ones: fine on loopback, an open door on any other address (anyone could sign a
 * JWT, use the service_role key or mint captcha solutions). Off loopback the services are
 * not in embedded mode either, so /_dev (dev mailbox, fake GitHub) is not mounted. Nor is it
 * on a shared PostgreSQL (DATABASE_URL): that is a deployment, where the mailbox would hand
 * anyone's magic link to whoever asks; run hosted or self-hosted Supabase with SMTP there
 * (docs/operations/scaling.md).
 */
import net from 'node:net';
import {
  DEFAULT_ALTCHA_HMAC_KEY,
  DEFAULT_ANON_KEY,
  DEFAULT_JWT_SECRET,
  DEFAULT_SECRET_KEY,
  DEFAULT_SERVICE_ROLE_KEY,
  type LocalSupabaseConfig,
} from '@aim/supabase';

type Env = Record<string, string | undefined>;

/** What must be set, to something other than the public default, before listening off loopback. */
const REQUIRED_OFF_LOOPBACK: [variable: string, publicDefault: string][] = [
  ['JWT_SECRET', DEFAULT_JWT_SECRET],
  // signed with the default secret, the default keys stop working once JWT_SECRET changes
  ['SUPABASE_ANON_KEY', DEFAULT_ANON_KEY],
  ['SUPABASE_SERVICE_ROLE_KEY', DEFAULT_SERVICE_ROLE_KEY],
  ['SUPABASE_SECRET_KEY', DEFAULT_SECRET_KEY],
  ['ALTCHA_HMAC_KEY', DEFAULT_ALTCHA_HMAC_KEY],
];

const loopback = new net.BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** Whether binding to `host` keeps the services on this machine (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost') return true;
  const family = net.isIP(h);
  return family !== 0 && loopback.check(h, family === 6 ? 'ipv6' : 'ipv4');
}

/** The variables still to set before the local services may listen on `host` (none on loopback). */
export function missingSecrets(host: string, env: Env): string[] {
  if (isLoopbackHost(host)) return [];
  return REQUIRED_OFF_LOOPBACK.filter(([name, publicDefault]) => {
    const value = env[name]?.trim();
    return !value || value === publicDefault;
  }).map(([name]) => name);
}

/** Why the launcher must not start the local services on `host`, or undefined when it may. */
export function exposureRefusal(host: string, env: Env): string | undefined {
  const missing = missingSecrets(host, env);
  if (missing.length === 0) return undefined;
  return [
    `Refusing to start: HOST=${host || '(empty)'} exposes the local Supabase services beyond this machine, and their default keys are public.`,
    `Set ${missing.join(', ')} to private values (the anon and service_role keys are JWTs signed with JWT_SECRET), or leave HOST unset to stay on 127.0.0.1.`,
  ].join('\n');
}

/**
 * Whether the dev tools (/_dev: the mailbox with everyone's magic links, the fake GitHub) may
 * be served: embedded mode only, that is on loopback and on the embedded PGlite database.
 */
export function devToolsAllowed(host: string, env: Env): boolean {
  return isLoopbackHost(host) && !env.DATABASE_URL;
}

/** The launcher's local services config: keys and secrets from the environment, /_dev only in embedded mode. */
export function localServicesConfig(host: string, env: Env, base: LocalSupabaseConfig): LocalSupabaseConfig {
  return {
    ...base,
    jwtSecret: env.JWT_SECRET || base.jwtSecret,
    anonKey: env.SUPABASE_ANON_KEY || base.anonKey,
    serviceRoleKey: env.SUPABASE_SERVICE_ROLE_KEY || base.serviceRoleKey,
    publishableKey: env.SUPABASE_PUBLISHABLE_KEY || base.publishableKey,
    secretKey: env.SUPABASE_SECRET_KEY || base.secretKey,
    captcha: { ...base.captcha, hmacKey: env.ALTCHA_HMAC_KEY || base.captcha.hmacKey },
    embedded: devToolsAllowed(host, env),
  };
}
