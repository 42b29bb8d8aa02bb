// The Videos and Audios galleries' reads through the real supabase-js client against the local
// Supabase services (PostgREST subset, row-level security) on PGlite.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClient, type RunningLocalSupabase, signInWithMagicLink, startLocalSupabase } from '@aim/supabase/testing';
import { createMediaGateway, type MediaQuery } from '../src/features/media/gateway.ts';
import type { MediaKind } from '../src/features/media/media-rules.ts';

describe('the Videos and Audios galleries against the local Supabase services', () => {
  let sb: RunningLocalSupabase;
  let alice: ReturnType<typeof makeClient>;
  let email: string;
  const id: Record<string, string> = {};

  beforeAll(async () => {
    sb = await startLocalSupabase('pglite', { captcha: { enabled: true, hmacKey: 'media', maxNumber: 2000, expiresInSeconds: 60 } });
    alice = makeClient(sb.url, sb.config.anonKey);
    const bob = makeClient(sb.url, sb.config.anonKey);
    const stamp = Date.now();
    email = `alice-${stamp}@example.com`;
    const a = (await signInWithMagicLink(alice, sb.url, email))!;
    const b = (await signInWithMagicLink(bob, sb.url, `bob-${stamp}@example.com`))!;
    const add = async (
      name: string,
      table: string,
      user: string,
      owner: string,
      type: string,
      minutesAgo: number,
      media: { video?: string; audio?: string[]; favorite?: boolean },
    ) => {
      const { rows } = await sb.db.query<{ id: string }>(
        `insert into public.${table} (user_id, email, type, status, prompt, video_url, audio_urls, lyrics, favorite, created_at)
         values ($1, $2, $3, 'success', $4, $5, $6, $7, $8, now() - make_interval(mins => $9)) returning id`,
        [user, owner, type, name, media.video ?? null, media.audio ?? null, media.audio ? 'la la' : null, media.favorite ?? false, minutesAgo],
      );
      id[name] = rows[0].id;
    };
    await add('luma', 'tasks', a.user.id, email, 'luma', 1, { video: 'http://x/luma.mp4' });
    await add('kling', 'tasks', a.user.id, email, 'kling-video', 2, { video: 'http://x/kling.mp4', favorite: true });
    await add('runway-pending', 'tasks', a.user.id, email, 'runway', 3, {});
    await add('old-runway', 'tasks_archive_1', a.user.id, email, 'runway', 60 * 24 * 40, { video: 'http://x/runway.mp4' });
    // Midjourney clips (under All only), with their clips and posters as the worker records them
    await add('mj-video', 'tasks', a.user.id, email, 'imagine-video', 3, { video: 'http://x/mj-1.mp4' });
    const clips = [1, 2].map((n) => ({ video_url: `http://x/mj-${n}.mp4`, poster_url: `http://x/mj-${n}.jpg`, width: 640, height: 360, duration: 5 }));
    await sb.db.query('update public.tasks set result = $1 where id = $2', [{ engine: 'local-video', videos: clips }, id['mj-video']]);
    await add('suno', 'tasks', a.user.id, email, 'suno', 4, { audio: ['http://x/a.mp3', 'http://x/b.mp3'] });
    await add('udio', 'tasks', a.user.id, email, 'udio', 5, { audio: ['http://x/u.mp3'] });
    // the songs as the worker records them (the Audios cards read them from the result)
    await sb.db.query('update public.tasks set result = $1 where id = $2', [
      { engine: 'local-audio', songs: [{ audio_url: 'http://x/a.mp3', image_url: 'http://x/a.jpg', title: 'A', duration: 31.5 }] },
      id.suno,
    ]);
    await add('lyrics', 'tasks', a.user.id, email, 'suno-lyrics', 6, {});
    await add('imagine', 'tasks', a.user.id, email, 'imagine', 7, {});
    await add('bob-luma', 'tasks', b.user.id, `bob-${stamp}@example.com`, 'luma', 1, { video: 'http://x/bob.mp4' });
  });
  afterAll(async () => {
    await sb?.stop();
  });

  const names = async (kind: MediaKind, over: Partial<MediaQuery> = {}) => {
    const items = await createMediaGateway(alice).page(email, kind, { tab: 'All', filter: 'Everything', archive: false, ...over }, null);
    return items.map((i) => Object.entries(id).find(([, v]) => v === i.id)?.[0]);
  };

  it.each([
    ['videos', {}, ['luma', 'kling', 'mj-video']],
    ['videos', { tab: 'Kling' }, ['kling']],
    ['videos', { tab: 'Runway' }, []],
    ['videos', { filter: 'Favorites' }, ['kling']],
    ['videos', { archive: true }, ['old-runway']],
    ['audio', {}, ['suno', 'udio']],
    ['audio', { tab: 'Udio' }, ['udio']],
    ['audio', { archive: true }, ['suno', 'udio']],
  ] as [MediaKind, Partial<MediaQuery>, string[]][])('%s %j → %j (finished media of the caller only)', async (kind, query, expected) => {
    expect(await names(kind, query)).toEqual(expected);
  });

  it('reads what the cards show', async () => {
    const [suno] = await createMediaGateway(alice).page(email, 'audio', { tab: 'Suno', filter: 'Everything', archive: false }, null);
    expect(suno).toMatchObject({
      id: id.suno,
      type: 'suno',
      prompt: 'suno',
      audio_urls: ['http://x/a.mp3', 'http://x/b.mp3'],
      lyrics: 'la la',
      songs: [{ audio_url: 'http://x/a.mp3', image_url: 'http://x/a.jpg', title: 'A', duration: 31.5 }],
      favorite: false,
    });
  });

  it('reads what the video cards show: each clip with its poster', async () => {
    const items = await createMediaGateway(alice).page(email, 'videos', { tab: 'All', filter: 'Everything', archive: false }, null);
    const mj = items.find((i) => i.id === id['mj-video']);
    expect(mj).toMatchObject({ type: 'imagine-video', video_url: 'http://x/mj-1.mp4' });
    expect(mj?.videos?.map((v) => [v.video_url, v.poster_url])).toEqual([
      ['http://x/mj-1.mp4', 'http://x/mj-1.jpg'],
      ['http://x/mj-2.mp4', 'http://x/mj-2.jpg'],
    ]);
    // a row without recorded clips (an upstream's, an old one) reads null there
    expect(items.find((i) => i.id === id.luma)?.videos).toBeNull();
  });

  it('pages after the row shown last, by created_at then id', async () => {
    const gateway = createMediaGateway(alice);
    const query: MediaQuery = { tab: 'All', filter: 'Everything', archive: false };
    const [first] = await gateway.page(email, 'videos', query, null);
    const rest = await gateway.page(email, 'videos', query, { created_at: first!.created_at, id: first!.id });
    expect(rest.map((i) => i.id)).toEqual([id.kling, id['mj-video']]);
  });

  it('favourites a video of the caller', async () => {
    expect(await createMediaGateway(alice).toggleFavorite(email, id.luma)).toBe(true);
    expect(await names('videos', { filter: 'Favorites' })).toEqual(['luma', 'kling']);
  });
});
