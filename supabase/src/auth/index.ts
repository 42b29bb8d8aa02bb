import { Hono } from 'hono';
import type { LocalContext } from '../context.ts';

// Placeholder until the GoTrue subset lands (see supabase/README.md).
export function createAuthApp(_ctx: LocalContext) {
  return new Hono();
}
