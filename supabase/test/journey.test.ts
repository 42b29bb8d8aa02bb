import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RealtimePostgresUpdatePayload } from '@supabase/supabase-js';
import { makeClient, signInWithMagicLink, startLocalSupabase, testDatabaseKinds, type RunningLocalSupabase } from './support/index.ts';

type Row = { id: string; email: string; credits: number; plan: string; api_key: string };

// The "done when" journey through the real supabase-js: magic link from the mailbox,
// own row, a live credits event, and nothing of anyone else's.
describe.each(testDatabaseKinds())('a user journey on %s', (kind) => {
  let sb: RunningLocalSupabase;
  beforeAll(async () => {
    sb = await startLocalSupabase(kind, { captcha: { enabled: true, hmacKey: 'journey', maxNumber: 2000, expiresInSeconds: 60 } });
  });
  afterAll(async () => {
    await sb?.stop();
  });

  it('signs in by magic link, reads its own row, sees its credits change live and no other user', async () => {
    const alice = makeClient(sb.url, sb.config.anonKey);
    const bob = makeClient(sb.url, sb.config.anonKey);
    const admin = makeClient(sb.url, sb.config.serviceRoleKey);
    const aliceSession = await signInWithMagicLink(alice, sb.url, `alice-${Date.now()}@example.com`);
    const bobSession = await signInWithMagicLink(bob, sb.url, `bob-${Date.now()}@example.com`);
    const aliceId = aliceSession!.user.id;
    const bobId = bobSession!.user.id;

    const own = await alice.from('mdusers').select('*').eq('id', aliceId).single<Row>();
    expect(own.error).toBeNull();
    expect(own.data).toMatchObject({ id: aliceId, credits: 0, plan: 'zero' });
    expect(own.data!.api_key.length).toBeGreaterThanOrEqual(32);

    // everything alice can see of mdusers is her own row
    const all = await alice.from('mdusers').select('id', { count: 'exact' });
    expect(all.data).toEqual([{ id: aliceId }]);
    expect(all.count).toBe(1);
    const peek = await alice.from('mdusers').select('*').eq('id', bobId);
    expect(peek.data).toEqual([]);

    const aliceEvents: number[] = [];
    const bobPeeks: unknown[] = [];
    const subscribed = (ch: ReturnType<typeof alice.channel>) =>
      new Promise<void>((resolve, reject) => {
        ch.subscribe((status, err) => {
          if (status === 'SUBSCRIBED') resolve();
          if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') reject(err ?? new Error(status));
        });
      });
    const aliceChannel = alice
      .channel('me')
      .on('postgres_changes', { event: 'UPDATE', schema: 'public', table: 'mdusers', filter: `id=eq.${aliceId}` }, (p: RealtimePostgresUpdatePayload<Row>) =>
        aliceEvents.push(p.new.credits),
      );
    const bobChannel = bob
      .channel('spy')
      .on('postgres_changes', { event: 'UPDATE', schema: 'public', table: 'mdusers', filter: `id=eq.${aliceId}` }, (p) => bobPeeks.push(p));
    await Promise.all([subscribed(aliceChannel), subscribed(bobChannel)]);

    const grant = await admin.rpc('apply_credit', { p_user_id: aliceId, p_delta: 250, p_source_key: `journey:${aliceId}`, p_reason: 'test grant' });
    expect(grant.error).toBeNull();
    expect(grant.data).toBe(250);

    const deadline = Date.now() + 5000;
    while (!aliceEvents.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(aliceEvents).toEqual([250]);
    await new Promise((r) => setTimeout(r, 300));
    expect(bobPeeks).toEqual([]);

    // clients cannot move credits themselves
    const selfGrant = await alice.rpc('apply_credit', { p_user_id: aliceId, p_delta: 1000, p_source_key: 'self', p_reason: 'x' });
    expect(selfGrant.error).not.toBeNull();
    const write = await alice.from('mdusers').update({ credits: 99999 }).eq('id', aliceId);
    expect(write.error?.code).toBe('42501');

    await alice.removeAllChannels();
    await bob.removeAllChannels();
  });
});
