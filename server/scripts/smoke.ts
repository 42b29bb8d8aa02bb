// Smoke check of a running platform (`npm start`), as the foundation issue defines "done":
// a supabase-js script finds everything from the shell's runtime config, signs in by a magic
// link read from the dev mailbox, reads its own mdusers row, receives a realtime event when
// its credits change, and sees no other user's data. Usage: pnpm --filter @aim/server smoke [shell-url]
import type { RealtimePostgresUpdatePayload } from '@supabase/supabase-js';
import { DEFAULT_SERVICE_ROLE_KEY } from '@aim/supabase';
import { makeClient, signInWithMagicLink } from '@aim/supabase/testing';

const shell = process.argv[2] ?? 'http://localhost:3000';
const step = (msg: string) => console.log(`  ✓ ${msg}`);

const config = (await (await fetch(`${shell}/runtime-config.json`)).json()) as { supabaseUrl: string; supabaseAnonKey: string; mode: string };
step(`runtime config from ${shell}: ${config.mode} mode, Supabase at ${config.supabaseUrl}`);

const me = makeClient(config.supabaseUrl, config.supabaseAnonKey);
const other = makeClient(config.supabaseUrl, config.supabaseAnonKey);
const stamp = Date.now();
const session = (await signInWithMagicLink(me, config.supabaseUrl, `smoke-${stamp}@example.com`, `${shell}/auth/callback`))!;
const otherSession = (await signInWithMagicLink(other, config.supabaseUrl, `smoke-other-${stamp}@example.com`, `${shell}/auth/callback`))!;
step(`signed in by magic link from the mailbox as ${session.user.email}`);

const row = await me.from('mdusers').select('id, email, credits, plan, onboarded, api_key').eq('id', session.user.id).single();
if (row.error) throw row.error;
step(
  `own mdusers row: credits ${row.data.credits}, plan ${row.data.plan}, onboarded ${row.data.onboarded}, key ${row.data.api_key.slice(0, 4)}…${row.data.api_key.slice(-4)}`,
);

const visible = await me.from('mdusers').select('id');
const peek = await me.from('mdusers').select('id').eq('id', otherSession.user.id);
if (visible.data?.length !== 1 || peek.data?.length !== 0) throw new Error('another user’s row is visible');
step(`sees ${visible.data.length} mdusers row (its own) and none of ${otherSession.user.email}`);

const event = new Promise<number>((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('no realtime event within 10 s')), 10_000);
  me.channel('smoke')
    .on(
      'postgres_changes',
      { event: 'UPDATE', schema: 'public', table: 'mdusers', filter: `id=eq.${session.user.id}` },
      (p: RealtimePostgresUpdatePayload<{ credits: number }>) => {
        clearTimeout(timer);
        resolve(p.new.credits);
      },
    )
    .subscribe(async (status) => {
      if (status !== 'SUBSCRIBED') return;
      // embedded mode's service key is the Supabase CLI default; credits move only through apply_credit
      const admin = makeClient(config.supabaseUrl, process.env.SUPABASE_SERVICE_ROLE_KEY ?? DEFAULT_SERVICE_ROLE_KEY);
      const r = await admin.rpc('apply_credit', { p_user_id: session.user.id, p_delta: 250, p_source_key: `smoke:${stamp}`, p_reason: 'smoke test grant' });
      if (r.error) reject(r.error);
    });
});
step(`realtime event: credits are now ${await event}`);
await me.removeAllChannels();
console.log('Smoke check passed.');
process.exit(0);
