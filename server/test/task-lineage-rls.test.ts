/**
 * Task lineage through the dashboard's door (issue 15 §3): the Midjourney tool reads a task's
 * family with supabase-js under row-level security (mfe-tools lineage-source.ts: up by id, down
 * by `parent_id=in.(…)` in tasks and tasks_archive_1). Another account's row that names one of
 * your tasks as its parent never comes back, live or archived; and none of yours reaches them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClient, signInWithMagicLink, startLocalSupabase, testDatabaseKinds, type RunningLocalSupabase } from '@aim/supabase/testing';

// the columns and query shape of mfe-tools/src/features/midjourney/lineage-source.ts
const LINEAGE_COLUMNS = 'id,type,status,parent_id,image_url,image_urls,created_at';

describe.each(testDatabaseKinds())('task lineage under RLS on %s', (kind) => {
  let sb: RunningLocalSupabase;
  let alice: ReturnType<typeof makeClient>;
  let bob: ReturnType<typeof makeClient>;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    sb = await startLocalSupabase(kind, { captcha: { enabled: true, hmacKey: 'lineage', maxNumber: 2000, expiresInSeconds: 60 } });
    alice = makeClient(sb.url, sb.config.anonKey);
    bob = makeClient(sb.url, sb.config.anonKey);
    const stamp = Date.now();
    const a = (await signInWithMagicLink(alice, sb.url, `alice-lineage-${stamp}@example.com`))!.user;
    const b = (await signInWithMagicLink(bob, sb.url, `bob-lineage-${stamp}@example.com`))!.user;
    const insert = async (name: string, owner: typeof a, type: string, parent: string | null, table = 'tasks') => {
      const { rows } = await sb.db.query<{ id: string }>(
        `insert into public.${table} (id, user_id, email, type, status, parent_id, image_url, created_at)
         values (gen_random_uuid(), $1, $2, $3, 'finished', $4, 'http://x/p.png', now() + make_interval(secs => $5)) returning id`,
        [owner.id, owner.email, type, parent, Object.keys(ids).length],
      );
      ids[name] = rows[0].id;
    };
    await insert('grid', a, 'imagine', null);
    await insert('up', a, 'upscale#1', ids.grid);
    await insert('oldVar', a, 'variation-2', ids.grid, 'tasks_archive_1');
    await insert('pan', a, 'pan-left', ids.up);
    // rows no API call makes (a parent is always the caller's), written straight in: Bob's "children" of Alice's tasks
    await insert('bobChild', b, 'reroll', ids.grid);
    await insert('bobArchivedChild', b, 'variation-1', ids.up, 'tasks_archive_1');
    await insert('bobGrid', b, 'imagine', null);
    await insert('bobUp', b, 'upscale#2', ids.bobGrid);
  });
  afterAll(async () => {
    await sb?.stop();
  });

  const childrenOf = async (client: typeof alice, parents: string[]) => {
    const found: string[] = [];
    for (const table of ['tasks', 'tasks_archive_1']) {
      const { data, error } = await client.from(table).select(LINEAGE_COLUMNS).in('parent_id', parents).order('created_at').limit(60);
      expect(error).toBeNull();
      found.push(...(data as unknown as { id: string }[]).map((r) => r.id));
    }
    return found;
  };

  it('Alice reads her family down from the first task, live and archived, without Bob’s rows', async () => {
    expect(await childrenOf(alice, [ids.grid])).toEqual([ids.up, ids.oldVar]);
    expect(await childrenOf(alice, [ids.up, ids.oldVar])).toEqual([ids.pan]);
    // up the chain by id: her own rows only
    const { data } = await alice.from('tasks').select(LINEAGE_COLUMNS).in('id', [ids.pan, ids.bobChild, ids.bobGrid]).order('created_at').limit(1);
    expect((data as unknown as { id: string; parent_id: string }[]).map((r) => [r.id, r.parent_id])).toEqual([[ids.pan, ids.up]]);
  });

  it('Bob reads nothing of Alice’s family, even naming her task ids, and Alice nothing of his', async () => {
    // Bob's own rows that point at Alice's tasks are his to read; Alice's children are not
    expect(await childrenOf(bob, [ids.grid, ids.up])).toEqual([ids.bobChild, ids.bobArchivedChild]);
    for (const table of ['tasks', 'tasks_archive_1']) {
      const { data } = await bob.from(table).select(LINEAGE_COLUMNS).in('id', [ids.grid, ids.up, ids.oldVar, ids.pan]).order('created_at').limit(60);
      expect(data, table).toEqual([]);
    }
    expect(await childrenOf(alice, [ids.bobGrid])).toEqual([]);
    expect(await childrenOf(bob, [ids.bobGrid])).toEqual([ids.bobUp]);
  });
});
