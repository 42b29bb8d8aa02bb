import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SupabaseClient } from '@supabase/supabase-js';
import { makeClient, signInWithMagicLink, startLocalSupabase, testDatabaseKinds, type RunningLocalSupabase } from '@aim/supabase/testing';
import { captureLogger, post, testApp } from './helpers.ts';

// User B against everything of user A's, through every door the product has: REST, RPC,
// realtime and the provider API. Users sign in as people do (magic link from the mailbox).
describe.each(testDatabaseKinds())('cross-tenant isolation on %s', (kind) => {
  let sb: RunningLocalSupabase;
  let app: ReturnType<typeof testApp>;
  let alice: SupabaseClient;
  let bob: SupabaseClient;
  let a: { id: string; email: string; key: string; taskId: string; archivedId: string };
  let b: { id: string; email: string; key: string; session: string };

  beforeAll(async () => {
    sb = await startLocalSupabase(kind, { captcha: { enabled: true, hmacKey: 'cross-tenant', maxNumber: 2000, expiresInSeconds: 60 } });
    app = testApp(sb.db, captureLogger());
    alice = makeClient(sb.url, sb.config.anonKey);
    bob = makeClient(sb.url, sb.config.anonKey);
    const stamp = Date.now();
    const sa = (await signInWithMagicLink(alice, sb.url, `alice-${stamp}@example.com`))!;
    const sbob = (await signInWithMagicLink(bob, sb.url, `bob-${stamp}@example.com`))!;
    const keyOf = async (id: string) => (await sb.db.query<{ api_key: string }>('select api_key from mdusers where id = $1', [id])).rows[0].api_key;
    const task = await sb.db.query<{ id: string }>(
      `insert into tasks (user_id, email, type, status, prompt) values ($1, $2, 'imagine', 'success', 'a cat') returning id`,
      [sa.user.id, sa.user.email],
    );
    const archived = await sb.db.query<{ id: string }>(
      `insert into tasks_archive_1 (id, user_id, email, type, status, prompt) values (gen_random_uuid(), $1, $2, 'imagine', 'success', 'old') returning id`,
      [sa.user.id, sa.user.email],
    );
    await sb.db.query(`insert into payments (user_id, email, plan_name, amount) values ($1, $2, 'basic', 39)`, [sa.user.id, sa.user.email]);
    await sb.db.query(`select apply_credit($1, 100, $2, 'seed')`, [sa.user.id, `seed:${sa.user.id}`]);
    a = { id: sa.user.id, email: sa.user.email!, key: await keyOf(sa.user.id), taskId: task.rows[0].id, archivedId: archived.rows[0].id };
    b = { id: sbob.user.id, email: sbob.user.email!, key: await keyOf(sbob.user.id), session: sbob.access_token };
  });
  afterAll(async () => {
    await alice?.removeAllChannels();
    await bob?.removeAllChannels();
    await sb?.stop();
  });

  const aliceRow = async () =>
    (
      await sb.db.query(
        'select credits, plan, api_key, auto_topup, auto_topup_min, integration_webhook_url, onboarded, referral_id from mdusers where id = $1',
        [a.id],
      )
    ).rows[0];

  it.each([
    ['mdusers', 'id'],
    ['tasks', 'user_id'],
    ['tasks_archive_1', 'user_id'],
    ['payments', 'user_id'],
    ['credit_ledger', 'user_id'],
  ])('REST: B reads none of A’s %s rows, while A reads them', async (table, column) => {
    const mine = await alice.from(table).select('*').eq(column, a.id);
    expect(mine.error).toBeNull();
    expect(mine.data!.length).toBeGreaterThan(0);
    const theirs = await bob.from(table).select('*').eq(column, a.id);
    expect(theirs.error).toBeNull();
    expect(theirs.data).toEqual([]);
    const everything = await bob.from(table).select('*');
    expect((everything.data ?? []).every((r: Record<string, unknown>) => r[column] === b.id)).toBe(true);
  });

  it('REST: B cannot change or delete A’s rows, and cannot write money fields at all', async () => {
    const before = await aliceRow();
    const upd = await bob.from('mdusers').update({ auto_topup: true, auto_topup_min: 2500 }).eq('id', a.id).select();
    expect(upd.data ?? []).toEqual([]);
    const money = await bob.from('mdusers').update({ credits: 1_000_000 }).eq('id', b.id);
    expect(money.error?.code).toBe('42501');
    const del = await bob.from('tasks').delete().eq('id', a.taskId).select();
    expect(del.error?.code).toBe('42501');
    const ins = await bob.from('tasks').insert({ user_id: a.id, email: a.email, type: 'imagine' });
    expect(ins.error?.code).toBe('42501');
    expect(await aliceRow()).toEqual(before);
    expect((await sb.db.query('select 1 from tasks where id = $1', [a.taskId])).rows).toHaveLength(1);
  });

  it('RPC: B cannot toggle A’s favorite (live or archived) nor move credits', async () => {
    for (const id of [a.taskId, a.archivedId]) {
      const byB = await bob.rpc('toggle_favorite', { task_id: id, email: a.email });
      expect(byB.error).toBeNull();
      expect(byB.data).toBeNull();
    }
    const favs = await sb.db.query<{ favorite: boolean }>(
      'select favorite from tasks where id = $1 union all select favorite from tasks_archive_1 where id = $2',
      [a.taskId, a.archivedId],
    );
    expect(favs.rows.map((r) => r.favorite)).toEqual([false, false]);
    const grant = await bob.rpc('apply_credit', { p_user_id: b.id, p_delta: 500, p_source_key: 'bob-self', p_reason: 'x' });
    expect(grant.error).not.toBeNull();
    const byA = await alice.rpc('toggle_favorite', { task_id: a.taskId, email: a.email });
    expect(byA.data).toBe(true);
  });

  it('realtime: B’s subscription to A’s task and row receives nothing, A’s does', async () => {
    const got = { alice: 0, bob: 0 };
    const joined = (ch: ReturnType<SupabaseClient['channel']>) =>
      new Promise<void>((resolve, reject) =>
        ch.subscribe((status, err) =>
          status === 'SUBSCRIBED' ? resolve() : status === 'CHANNEL_ERROR' || status === 'TIMED_OUT' ? reject(err ?? new Error(status)) : undefined,
        ),
      );
    // a channel name of its own per attempt: a retried test must not add handlers to the first attempt's channel
    const attempt = crypto.randomUUID().slice(0, 8);
    const watch = (client: SupabaseClient, who: 'alice' | 'bob') =>
      client
        .channel(`x-${who}-${attempt}`)
        .on('postgres_changes', { event: 'UPDATE', schema: 'public', table: 'tasks', filter: `id=eq.${a.taskId}` }, () => got[who]++)
        .on('postgres_changes', { event: 'UPDATE', schema: 'public', table: 'mdusers', filter: `id=eq.${a.id}` }, () => got[who]++);
    const channels = [watch(alice, 'alice'), watch(bob, 'bob')] as const;
    await Promise.all(channels.map(joined));
    await sb.db.query(`update tasks set percentage = 50, status = 'processing' where id = $1`, [a.taskId]);
    await sb.db.query(`select apply_credit($1, 5, $2, 'x')`, [a.id, `rt:${a.id}:${attempt}`]);
    // generous on a loaded machine; bob's silence is then watched for the same settle time
    const deadline = Date.now() + 15_000;
    while (got.alice < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    await Promise.all([alice.removeChannel(channels[0]), bob.removeChannel(channels[1])]);
    expect(got).toEqual({ alice: 2, bob: 0 });
  });

  it('API: B’s key only ever acts on B’s own account', async () => {
    const before = await aliceRow();
    for (const [path, json] of [
      ['/auth/updateWebhookURL', { url: 'https://bob.example.com/hook' }],
      ['/auth/update-onboarding-status', undefined],
      ['/auth/recordReference', { reference: 'bob-ref' }],
      ['/auth/revokeAndCreateNewAPIKey', undefined],
    ] as const) {
      const res = await post(app, path, { key: b.key, session: b.session, json });
      expect(res.status, path).toBe(200);
      if (path === '/auth/revokeAndCreateNewAPIKey') b.key = ((await res.json()) as { api_key: string }).api_key;
    }
    expect(await aliceRow()).toEqual(before);
    // and A's key is not B's: a forged or stale key gets 401
    expect((await post(app, '/auth/update-onboarding-status', { key: `${a.key.slice(0, -1)}x` })).status).toBe(401);
  });

  it('API: a session signed in by magic link moves B’s money only; B’s session beside A’s key, or B’s key alone, moves nothing', async () => {
    const before = await aliceRow();
    // B's real session (from the local auth) with A's key: refused, whatever the body says
    const mixed = await post(app, '/auth/updateWebhookURL', { key: a.key, session: b.session, json: { url: 'https://bob.example.com/x' } });
    expect(mixed.status).toBe(403);
    // B's key alone cannot turn on auto top-up or rotate a key (a leaked key moves no money)
    for (const path of ['/auth/update-auto-topup', '/auth/revokeAndCreateNewAPIKey', '/auth/subscribe', '/auth/topup'])
      expect(
        (await post(app, path, { key: b.key, json: { auto_topup: true, auto_topup_min: 2500, auto_topup_amount: 10000, plan: 'scale3', amount: 10 } })).status,
        path,
      ).toBe(403);
    // A's token with a byte changed is no session
    expect((await post(app, '/auth/updateWebhookURL', { key: b.key, session: `${b.session.slice(0, -2)}xx`, json: { url: null } })).status).toBe(401);
    expect(await aliceRow()).toEqual(before);
  });
});
