import type { MiddlewareHandler } from 'hono';
import type { LocalSupabaseConfig } from './config.ts';

/** The Supabase CLI's local alias keys: the defaults of config.publishableKey and config.secretKey. */
export const PUBLISHABLE_KEY = 'sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH';
export const SECRET_KEY = 'sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz';

/**
 * Supabase's gateway (Kong) rewrites credentials before they reach a service; we do the same.
 * Returns the bearer token the service should see, or undefined when there is none.
 *   Authorization present and not "Bearer sb_…" → as is
 *   apikey == config.secretKey      → the service_role JWT
 *   apikey == config.publishableKey → the anon JWT
 *   otherwise                       → the apikey itself (legacy keys are JWTs)
 */
export function resolveBearer(config: LocalSupabaseConfig, authorization: string | undefined | null, apikey: string | undefined | null): string | undefined {
  const auth = authorization?.trim();
  if (auth && !/^bearer\s+sb_/i.test(auth)) {
    const m = /^bearer\s+(.*)$/i.exec(auth);
    return m ? m[1].trim() : auth;
  }
  const key = apikey ?? (auth ? auth.replace(/^bearer\s+/i, '') : undefined);
  if (!key) return undefined;
  if (key === config.secretKey) return config.serviceRoleKey;
  if (key === config.publishableKey) return config.anonKey;
  return key;
}

/** Kong's "key-auth": every non-open route needs an apikey (header or query). */
export function requireApiKey(): MiddlewareHandler {
  return async (c, next) => {
    const key = c.req.header('apikey') ?? c.req.query('apikey');
    if (!key) return c.json({ message: 'No API key found in request' }, 401);
    await next();
  };
}
