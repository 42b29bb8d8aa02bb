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
