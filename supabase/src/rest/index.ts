import { Hono } from 'hono';
import type { LocalContext } from '../context.ts';

// Placeholder until the PostgREST subset lands (see supabase/README.md).
export function createRestApp(_ctx: LocalContext) {
  return new Hono();
}
