// The Images gallery's reads and toggle_favorite through the real supabase-js client against the
// local Supabase services (PostgREST subset, row-level security) on PGlite. (The services
// themselves are tested on PGlite and PostgreSQL in the supabase package.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClient, type RunningLocalSupabase, signInWithMagicLink, startLocalSupabase } from '@aim/supabase/testing';
import type { ImageFilter, ImageTab } from '../src/features/images/gallery-rules.ts';
import { createImagesGateway, type GalleryQuery } from '../src/features/images/gateway.ts';
import type { PageCursor } from '../src/features/shared/keyset.ts';

describe('the Images gallery against the local Supabase services', () => {
  let sb: RunningLocalSupabase;
  let alice: ReturnType<typeof makeClient>;
  let email: string;
  let bobTask: string;
  const id: Record<string, string> = {};

  async function insert(
    table: string,
    userId: string,
    owner: string,
    type: string,
    opts: { prompt?: string; image?: boolean; favorite?: boolean; minutesAgo: number },
  ) {
    const { rows } = await sb.db.query<{ id: string }>(
      `insert into public.${table} (user_id, email, type, status, prompt, image_url, favorite, created_at)
       values ($1, $2, $3, 'success', $4, $5, $6, now() - make_interval(mins => $7)) returning id`,
      [
        userId,
        owner,
        type,
        opts.prompt ?? null,
        opts.image === false ? null : `http://localhost:8080/media/${type}.png`,
        opts.favorite ?? false,
        opts.minutesAgo,
      ],
    );
    return rows[0].id;
  }

  beforeAll(async () => {
    sb = await startLocalSupabase('pglite', { captcha: { enabled: true, hmacKey: 'images', maxNumber: 2000, expiresInSeconds: 60 } });
    alice = makeClient(sb.url, sb.config.anonKey);
    const bob = makeClient(sb.url, sb.config.anonKey);
    const stamp = Date.now();
    email = `alice-${stamp}@example.com`;
    const a = (await signInWithMagicLink(alice, sb.url, email))!;
    const b = (await signInWithMagicLink(bob, sb.url, `bob-${stamp}@example.com`))!;
    const u = a.user.id;
    id.imagine = await insert('tasks', u, email, 'imagine', { prompt: 'a lighthouse at dawn', minutesAgo: 1 });
    id.upscale = await insert('tasks', u, email, 'upscale#2', { prompt: 'a lighthouse at dawn', favorite: true, minutesAgo: 2 });
    id.variation = await insert('tasks', u, email, 'variation-3', { prompt: '100% cotton shirt', minutesAgo: 3 });
    id.outpaint = await insert('tasks', u, email, 'outpaint-1.5x', { prompt: 'wide harbour', minutesAgo: 4 });
    id.flux = await insert('tasks', u, email, 'flux-imagine', { prompt: 'a flux fox', minutesAgo: 5 });
    id.seed = await insert('tasks', u, email, 'seed', { minutesAgo: 6 });
    id.running = await insert('tasks', u, email, 'imagine', { prompt: 'not ready yet', image: false, minutesAgo: 7 });
    id.luma = await insert('tasks', u, email, 'luma', { prompt: 'a video', minutesAgo: 8 });
    id.archived = await insert('tasks_archive_1', u, email, 'imagine', { prompt: 'an old lighthouse', minutesAgo: 60 * 24 * 40 });
    bobTask = await insert('tasks', b.user.id, `bob-${stamp}@example.com`, 'imagine', { prompt: 'a lighthouse at dawn', minutesAgo: 1 });
  });
  afterAll(async () => {
    await sb?.stop();
  });

  const page = (over: Partial<GalleryQuery> = {}, after: PageCursor | null = null) =>
    createImagesGateway(alice).page(email, { tab: 'All', filter: 'Everything', search: '', archive: false, ...over }, after);
  const idsOf = async (over: Partial<GalleryQuery> = {}) => (await page(over)).map((i) => i.id);

  it('shows the caller’s finished pictures newest first, without hidden types, unfinished tasks, video or anyone else’s', async () => {
    expect(await idsOf()).toEqual([id.imagine, id.upscale, id.variation, id.outpaint, id.flux]);
    expect((await page())[0]).toEqual({
      id: id.imagine,
      type: 'imagine',
      prompt: 'a lighthouse at dawn',
      image_url: 'http://localhost:8080/media/imagine.png',
      favorite: false,
      created_at: expect.any(String),
    });
  });

  it.each([
    ['Midjourney', 'Everything', ['imagine', 'upscale', 'variation', 'outpaint']],
    ['Midjourney', 'Generations', ['imagine', 'outpaint']],
    ['All', 'Variations', ['variation']],
    ['All', 'Upscales', ['upscale']],
    ['All', 'Favorites', ['upscale']],
    ['Flux', 'Everything', ['flux']],
    ['Faceswap', 'Everything', []],
  ] as [ImageTab, ImageFilter, string[]][])('%s + %s', async (tab, filter, names) => {
    expect(await idsOf({ tab, filter })).toEqual(names.map((n) => id[n]));
  });

  it('searches prompts case-insensitively, with % taken literally', async () => {
    expect(await idsOf({ search: 'LIGHTHOUSE' })).toEqual([id.imagine, id.upscale]);
    expect(await idsOf({ search: '100%' })).toEqual([id.variation]);
    expect(await idsOf({ search: '%' })).toEqual([id.variation]);
    expect(await idsOf({ search: 'nothing like it' })).toEqual([]);
  });

  it('shows the archive instead with Show Archive, and pages past the end are empty', async () => {
    expect(await idsOf({ archive: true })).toEqual([id.archived]);
    const shown = await page();
    const last = shown[shown.length - 1]!;
    // after the last picture: nothing more; after the second, the rest
    expect(await page({}, { created_at: last.created_at, id: last.id })).toEqual([]);
    expect((await page({}, { created_at: shown[1]!.created_at, id: shown[1]!.id })).map((i) => i.id)).toEqual([id.variation, id.outpaint, id.flux]);
  });

  it('toggles favourites of the caller’s tasks, archived ones too, and refuses another user’s', async () => {
    const gateway = createImagesGateway(alice);
    expect(await gateway.toggleFavorite(email, id.imagine)).toBe(true);
    expect(await idsOf({ filter: 'Favorites' })).toEqual([id.imagine, id.upscale]);
    expect(await gateway.toggleFavorite(email, id.imagine)).toBe(false);
    expect(await gateway.toggleFavorite(email, id.archived)).toBe(true);
    await expect(gateway.toggleFavorite(email, bobTask)).rejects.toThrow('The task was not found');
    const { rows } = await sb.db.query<{ favorite: boolean }>('select favorite from public.tasks where id = $1', [bobTask]);
    expect(rows[0].favorite).toBe(false);
  });
});
