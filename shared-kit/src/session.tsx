import { useSyncExternalStore } from 'react';
import type { RealtimeChannel, Session, User } from '@supabase/supabase-js';
import { getSupabaseClient } from './supabase.ts';

/** The signed-in user's row of public.mdusers (spec §3, User). */
export type UserRow = {
  id: string;
  email: string;
  api_key: string;
  credits: number;
  plan: string;
  customer_id: string | null;
  auto_topup: boolean;
  auto_topup_amount: number | null;
  auto_topup_min: number | null;
  next_billing_date: string | null;
  integration_webhook_url: string | null;
  trialed: boolean;
  onboarded: boolean;
  referral_id: string | null;
  portal_token: string | null;
};

export type SessionState =
  | { status: 'loading'; session: null; user: null }
  | { status: 'signed-out'; session: null; user: null }
  | { status: 'signed-in'; session: Session; user: User };

export type UserRowState = {
  status: 'idle' | 'loading' | 'ready' | 'error';
  row: UserRow | null;
  error: string | null;
};

// Module state, not React context: shared-kit is one MF singleton, so the shell and every remote
// read the same session without having to sit under a provider the shell renders.
let sessionState: SessionState = { status: 'loading', session: null, user: null };
const sessionListeners = new Set<() => void>();
let listening = false;

function startSessionListener() {
  if (listening) return;
  listening = true;
  // Fires INITIAL_SESSION once supabase-js has restored the stored session or exchanged the PKCE
  // code of /auth/callback, then on every sign-in, refresh and sign-out (also from other tabs).
  getSupabaseClient().auth.onAuthStateChange((_event, session) => {
    const next: SessionState = session ? { status: 'signed-in', session, user: session.user } : { status: 'signed-out', session: null, user: null };
    if (next.session?.access_token === sessionState.session?.access_token && next.status === sessionState.status) return;
    sessionState = next;
    for (const l of sessionListeners) l();
  });
}

function subscribeSession(listener: () => void) {
  startSessionListener();
  sessionListeners.add(listener);
  return () => sessionListeners.delete(listener);
}

export function useSession(): SessionState {
  return useSyncExternalStore(subscribeSession, () => sessionState);
}

/** Sign-out is global: every session of the user is revoked, not only this browser's. */
export async function signOut(): Promise<void> {
  await getSupabaseClient().auth.signOut({ scope: 'global' });
}

type RowEntry = { state: UserRowState; listeners: Set<() => void>; channel: RealtimeChannel | null };
const rows = new Map<string, RowEntry>();
const IDLE: UserRowState = { status: 'idle', row: null, error: null };

function setRow(entry: RowEntry, state: UserRowState) {
  entry.state = state;
  for (const l of entry.listeners) l();
}

async function loadRow(userId: string, entry: RowEntry) {
  if (!entry.state.row) setRow(entry, { ...entry.state, status: 'loading' });
  const { data, error } = await getSupabaseClient().from('mdusers').select('*').eq('id', userId).single();
  if (rows.get(userId) !== entry) return;
  if (error) setRow(entry, { status: 'error', row: entry.state.row, error: error.message });
  else setRow(entry, { status: 'ready', row: data as UserRow, error: null });
}

function openRow(userId: string): RowEntry {
  let entry = rows.get(userId);
  if (entry) return entry;
  const created: RowEntry = { state: { status: 'loading', row: null, error: null }, listeners: new Set(), channel: null };
  rows.set(userId, created);
  created.channel = getSupabaseClient()
    .channel(`mdusers:${userId}`)
    .on('postgres_changes', { event: 'UPDATE', schema: 'public', table: 'mdusers', filter: `id=eq.${userId}` }, (payload) => {
      setRow(created, { status: 'ready', row: { ...(created.state.row ?? {}), ...(payload.new as UserRow) }, error: null });
    })
    .subscribe((status) => {
      // Re-read once the subscription is live: an update between the first read and SUBSCRIBED would be lost.
      if (status === 'SUBSCRIBED') void loadRow(userId, created);
    });
  void loadRow(userId, created);
  entry = created;
  return entry;
}

function closeRow(userId: string, entry: RowEntry) {
  if (entry.listeners.size > 0 || rows.get(userId) !== entry) return;
  rows.delete(userId);
  if (entry.channel) void getSupabaseClient().removeChannel(entry.channel);
}

/** The signed-in user's mdusers row, kept live by a realtime subscription shared by all readers. */
export function useUserRow(): UserRowState {
  const { user } = useSession();
  const userId = user?.id ?? null;
  return useSyncExternalStore(
    (listener) => {
      if (!userId) return () => undefined;
      const entry = openRow(userId);
      entry.listeners.add(listener);
      return () => {
        entry.listeners.delete(listener);
        // Navigations unmount and remount readers within one tick: keep the channel across that.
        setTimeout(() => closeRow(userId, entry), 1000);
      };
    },
    () => (userId ? (rows.get(userId)?.state ?? IDLE) : IDLE),
  );
}

/** Re-reads the row after a change this tab made (realtime would deliver it too, a bit later). */
export async function refreshUserRow(): Promise<void> {
  const { data } = await getSupabaseClient().auth.getSession();
  const userId = data.session?.user.id;
  const entry = userId ? rows.get(userId) : undefined;
  if (userId && entry) await loadRow(userId, entry);
}
