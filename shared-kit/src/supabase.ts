import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { getRuntimeConfig } from './runtime-config.ts';

let client: SupabaseClient | null = null;

/**
 * The page's one Supabase client. shared-kit is an MF singleton, so the shell and every remote
 * get this same instance (a second one would fight over the stored session).
 */
export function getSupabaseClient(): SupabaseClient {
  if (!client) {
    const { supabaseUrl, supabaseAnonKey } = getRuntimeConfig();
    client = createClient(supabaseUrl, supabaseAnonKey, {
      auth: { flowType: 'pkce', detectSessionInUrl: true, persistSession: true, autoRefreshToken: true },
    });
  }
  return client;
}

/** PostgREST's answer to a range past the last row (HTTP 416): a page after the end. */
export const RANGE_NOT_SATISFIABLE = 'PGRST103';

/**
 * Values for a PostgREST list inside `or=(…)` (`type.in.(…)`), each quoted, since task types hold
 * characters such as '#'.
 */
export function postgrestList(values: readonly string[]): string {
  return values.map((v) => `"${v.replace(/(["\\])/g, '\\$1')}"`).join(',');
}
