// Keyset paging (issue 12) through the real supabase-js client against the local Supabase
// services, on PGlite and PostgreSQL: every page asked after the last row of the one before, as
// the galleries do, over rows that share created_at (across page boundaries too) and rows that
// differ only in their microseconds. Each row must come exactly once, in the database's order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_SIZES } from '@aim/shared-kit/domain';
import { makeClient, type RunningLocalSupabase, signInWithMagicLink, startLocalSupabase, testDatabaseKinds } from '@aim/supabase/testing';
import { createImagesGateway, type GalleryQuery } from '../src/features/images/gateway.ts';
import { createMediaGateway, type MediaQuery } from '../src/features/media/gateway.ts';
import type { PageCursor } from '../src/features/shared/keyset.ts';

/**
 * created_at of the i-th row (oldest first): a run of equal stamps every few rows, and inside one
 * millisecond stamps that differ in the microseconds only (a cursor rounded through Date loses them).
 */
function stampOf(i: number): string {
  const second = String(10 + Math.floor(i / 10)).padStart(2, '0');
  if (i % 10 < 6) return `2026-11-20 08:30:${second}.123456+00`; // six rows on one stamp
  return `2026-11-20 08:30:${second}.1234${String(10 + (i % 10)).padStart(2, '0')}+00`; // .123416 … .123419
}

describe.each(testDatabaseKinds())('keyset paging of the galleries against the local Supabase services (%s)', (kind) => {
  let sb: RunningLocalSupabase;
  let alice: ReturnType<typeof makeClient>;
  let email: string;

  /** The caller's rows of a table as the database orders them, by the same filter the gallery uses. */
  async function expected(where: string): Promise<string[]> {
    const { rows } = await sb.db.query<{ id: string }>(`select id from public.tasks where email = $1 and ${where} order by created_at desc, id desc`, [email]);
    return rows.map((r) => r.id);
  }

  /** Every page, each asked after the last row of the one before, until a short page. */
  async function everyPage<T extends PageCursor>(pageSize: number, page: (after: PageCursor | null) => Promise<T[]>) {
    const pages: T[][] = [];
    let after: PageCursor | null = null;
    for (;;) {
      const rows = await page(after);
      pages.push(rows);
      if (rows.length < pageSize) return pages;
      const last = rows[rows.length - 1];
      after = { created_at: last.created_at, id: last.id };
      if (pages.length > 20) throw new Error('paging does not end');
    }
  }

  beforeAll(async () => {
    sb = await startLocalSupabase(kind, { captcha: { enabled: true, hmacKey: 'keyset', maxNumber: 2000, expiresInSeconds: 60 } });
    alice = makeClient(sb.url, sb.config.anonKey);
    const bob = makeClient(sb.url, sb.config.anonKey);
    const stamp = Date.now();
    email = `alice-${stamp}@example.com`;
    const a = (await signInWithMagicLink(alice, sb.url, email))!;
    const b = (await signInWithMagicLink(bob, sb.url, `bob-${stamp}@example.com`))!;
    // 83 pictures and 47 videos of Alice (each a few pages), every third a favourite; Bob's on the same stamps
    await sb.db.query(
      `insert into public.tasks (user_id, email, type, status, prompt, image_url, favorite, created_at)
       select $1, $2, 'imagine', 'success', 'picture ' || i, 'http://x/' || i || '.png', i % 3 = 0, s::timestamptz
       from unnest($3::text[]) with ordinality as t(s, i)`,
      [a.user.id, email, Array.from({ length: 83 }, (_, i) => stampOf(i))],
    );
    await sb.db.query(
      `insert into public.tasks (user_id, email, type, status, prompt, video_url, favorite, created_at)
       select $1, $2, 'luma', 'success', 'video ' || i, 'http://x/' || i || '.mp4', i % 3 = 0, s::timestamptz
       from unnest($3::text[]) with ordinality as t(s, i)`,
      [a.user.id, email, Array.from({ length: 47 }, (_, i) => stampOf(i))],
    );
    await sb.db.query(
      `insert into public.tasks (user_id, email, type, status, prompt, image_url, created_at)
       select $1, $2, 'imagine', 'success', 'bob', 'http://x/bob.png', s::timestamptz from unnest($3::text[]) as t(s)`,
      [b.user.id, `bob-${stamp}@example.com`, Array.from({ length: 20 }, (_, i) => stampOf(i))],
    );
  }, 60_000);
  afterAll(async () => {
    await sb?.stop();
  });

  it('the stamps really tie and really differ in microseconds only', async () => {
    const { rows } = await sb.db.query<{ stamps: number; rows: number }>(
      `select count(distinct created_at)::int as stamps, count(*)::int as rows from public.tasks where email = $1 and type = 'imagine'`,
      [email],
    );
    expect(rows[0]).toEqual({ stamps: 8 * 5 + 1, rows: 83 }); // 8 full tens (1 + 4 stamps each), then 3 rows on one stamp
  });

  it.each([
    ['Everything', "image_url is not null and type = 'imagine'"],
    ['Favorites', "image_url is not null and type = 'imagine' and favorite"],
  ] as const)('Images (%s): every picture once, in order, across pages of 25', async (filter, where) => {
    const query: GalleryQuery = { tab: 'All', filter, search: '', archive: false };
    const gateway = createImagesGateway(alice);
    const pages = await everyPage(PAGE_SIZES.images, (after) => gateway.page(email, query, after));
    const ids = pages.flat().map((r) => r.id);
    expect(ids).toEqual(await expected(where));
    expect(new Set(ids).size).toBe(ids.length);
    expect(pages.length).toBe(filter === 'Everything' ? 4 : 2);
    // the cursor is the server's own string, microseconds and all
    expect(pages[0][0].created_at).toMatch(/\.\d{6}\+00:00$/);
  });

  it('Images with a search: the same cursor with the other filters', async () => {
    const query: GalleryQuery = { tab: 'Midjourney', filter: 'Everything', search: 'PICTURE', archive: false };
    const pages = await everyPage(PAGE_SIZES.images, (after) => createImagesGateway(alice).page(email, query, after));
    expect(pages.flat().map((r) => r.id)).toEqual(await expected("image_url is not null and prompt ilike '%picture%'"));
  });

  it.each([
    ['Everything', "video_url is not null and type = 'luma'"],
    ['Favorites', "video_url is not null and type = 'luma' and favorite"],
  ] as const)('Videos (%s): every video once, in order, across pages of 20', async (filter, where) => {
    const query: MediaQuery = { tab: 'All', filter, archive: false };
    const pages = await everyPage(PAGE_SIZES.videos, (after) => createMediaGateway(alice).page(email, 'videos', query, after));
    const ids = pages.flat().map((r) => r.id);
    expect(ids).toEqual(await expected(where));
    expect(pages.length).toBe(filter === 'Everything' ? 3 : 1);
  });

  it('a page after the last row is empty', async () => {
    const query: GalleryQuery = { tab: 'All', filter: 'Everything', search: '', archive: false };
    const all = await expected("image_url is not null and type = 'imagine'");
    const { rows } = await sb.db.query<{ created_at: string }>(`select to_json(created_at) #>> '{}' as created_at from public.tasks where id = $1`, [
      all[all.length - 1],
    ]);
    expect(await createImagesGateway(alice).page(email, query, { created_at: rows[0].created_at, id: all[all.length - 1] })).toEqual([]);
  });
});
