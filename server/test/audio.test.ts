/**
 * The audio calls end to end (v1 /suno-imagine, /suno-extend, /suno-lyrics, /suno-upload,
 * /udio-imagine, /upload-audio) on the real local audio engine with short songs: a 400 naming
 * the field for every value out of range (nothing held), the price held with the task and kept
 * on success, refunded exactly once when the audio cannot be read, /fetch's songs with their
 * covers and song ids, a song extended by its song_id, an uploaded file made a song and
 * extended, and the upload's type read from its bytes.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { createLocalAudioEngine } from '../src/engines/local-audio/index.ts';
import { decodeMp3, encodeMp3 } from '../src/engines/local-audio/mp3.ts';
import { pcmLength } from '../src/engines/local-audio/pcm.ts';
import { encodeWav } from '../src/engines/local-audio/wav.ts';
import type { TaskView } from '../src/services/tasks/task-view.ts';
import { createImageFetcher } from '../src/storage/image-fetcher.ts';
import { createUser, expectErrorBody, post, type TestUser } from './helpers.ts';
import { balanceOf, grantCredits, ledgerOf, openTestDb, type TaskHarness, taskHarness, waitForTask } from './support/tasks.ts';

const PRICES = { suno: 4, 'suno-ext': 4, udio: 4, 'suno-lyrics': 1, 'suno-upload': 1 };

const tone = (seconds: number, sampleRate = 44_100) => {
  const data = Float32Array.from({ length: Math.round(seconds * sampleRate) }, (_, i) => 0.4 * Math.sin((2 * Math.PI * 330 * i) / sampleRate));
  return { sampleRate, channels: [data, data.slice()] };
};

const blob = (data: Uint8Array, type = 'application/octet-stream') => new Blob([new Uint8Array(data)], { type });

describe.each(testDatabaseKinds())('the audio calls on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let user: TestUser;
  let other: TestUser;
  let files: http.Server;
  let filesOrigin: string;
  let mp3: Buffer;

  beforeAll(async () => {
    mp3 = await encodeMp3(tone(2.2));
    files = http.createServer((req, res) => {
      if (req.url === '/song.mp3') res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(mp3);
      else res.writeHead(404).end('not found');
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    filesOrigin = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    db = await openTestDb(kind);
    h = await taskHarness(db, [createLocalAudioEngine({ sunoSeconds: [2, 2.5], extendSeconds: [1.5, 2], udioSeconds: { 'udio32-v1.5': 2 } })]);
    await h.worker({ imageFetcher: createImageFetcher({ media: h.media, embedded: true }) }).start();
    user = await createUser(db);
    other = await createUser(db);
    await grantCredits(db, user.id, 100);
    await grantCredits(db, other.id, 100);
  });
  afterAll(async () => {
    expect(h?.appLog.lines.filter((l) => l.includes('unhandled error')) ?? []).toEqual([]);
    await h?.cleanup();
    await db?.close();
    files?.closeAllConnections();
    await new Promise((resolve) => files?.close(resolve));
  });

  const submit = async (path: string, json: Record<string, unknown>, key = user.apiKey) => {
    const res = await post(h.app, path, { key, json });
    expect(res.status, await res.clone().text()).toBe(200);
    return ((await res.json()) as { task_id: string }).task_id;
  };
  const fetched = async (taskId: string, key = user.apiKey) => {
    const res = await post(h.app, '/fetch', { key, json: { task_id: taskId } });
    expect(res.status).toBe(200);
    return (await res.json()) as TaskView;
  };
  const finished = async (taskId: string) => {
    const task = await waitForTask(db, taskId, { timeoutMs: 60_000 });
    expect(task.status, JSON.stringify(task.result)).toBe('finished');
    return fetched(taskId);
  };
  const upload = (data: Uint8Array, name = 'song.bin', type?: string, field = 'audio') => {
    const form = new FormData();
    form.set(field, blob(data, type), name);
    return h.app.request('/upload-audio', { method: 'POST', headers: { authorization: user.apiKey }, body: form });
  };

  describe('refusals at submit', () => {
    it.each([
      ['/suno-imagine', {}, 'prompt: Required (describe the song, or give its lyrics)'],
      ['/suno-imagine', { prompt: '  ', lyrics: '' }, 'prompt: Required (describe the song, or give its lyrics)'],
      ['/suno-imagine', { prompt: 'x', model: 'chirp-v9' }, 'model: Must be one of chirp-v3-0, chirp-v3-5, chirp-v4'],
      ['/suno-imagine', { prompt: 'x', make_instrumental: 'yes' }, 'make_instrumental: Must be true or false'],
      ['/suno-imagine', { prompt: 'x', title: 't'.repeat(81) }, 'title: At most 80 characters'],
      ['/suno-imagine', { prompt: 'x', tags: 't'.repeat(201) }, 'tags: At most 200 characters'],
      ['/suno-imagine', { prompt: 'x'.repeat(3001) }, 'prompt: At most 3000 characters'],
      ['/suno-imagine', { lyrics: 'la la', make_instrumental: true }, 'prompt: Required for an instrumental'],
      ['/udio-imagine', { prompt: 'x', prompt_strength: 1.5 }, 'prompt_strength: Must be between 0 and 1'],
      ['/udio-imagine', { prompt: 'x', clarity_strength: -0.1 }, 'clarity_strength: Must be between 0 and 1'],
      ['/udio-imagine', { prompt: 'x', lyrics_strength: '1' }, 'lyrics_strength: Must be a number'],
      ['/udio-imagine', { prompt: 'x', generation_quality: 2 }, 'generation_quality: Must be between 0 and 1'],
      ['/udio-imagine', { prompt: 'x', model: 'udio64' }, 'model: Must be one of udio32-v1.5, udio130-v1.5'],
      ['/udio-imagine', { prompt: 'x', lyrics_placement_start: 40 }, 'lyrics_placement_start: Must be less than 32'],
      ['/udio-imagine', { prompt: 'x', lyrics_placement_end: 200 }, 'lyrics_placement_end: Must be between 0 and 130'],
      ['/udio-imagine', { prompt: 'x', lyrics_placement_start: 10, lyrics_placement_end: 5 }, 'lyrics_placement_end: Must be after lyrics_placement_start'],
      ['/udio-imagine', { prompt: 'x', negative_prompt: 'n'.repeat(1001) }, 'negative_prompt: At most 1000 characters'],
      ['/suno-lyrics', { prompt: '' }, 'prompt: Prompt must not be empty'],
      ['/suno-upload', {}, 'audio_url: Required'],
      ['/suno-upload', { audio_url: 'ftp://example.com/a.mp3' }, 'audio_url: Must be a valid http:// or https:// URL'],
      [
        '/suno-upload',
        { audio_url: 'http://localhost:8080/media/upload-00000000-0000-4000-8000-000000000000.mp3' },
        'audio_url: No audio of this server has this URL',
      ],
      ['/suno-extend', {}, 'parent_task_id: Required (or give song_id)'],
      ['/suno-extend', { parent_task_id: 'nope' }, 'parent_task_id: Must be a task id'],
      ['/suno-extend', { parent_task_id: '8d2f1a64-5b3c-4e7d-9f10-2a3b4c5d6e7f', continue_at: 0 }, 'continue_at: Must be more than 0'],
      ['/suno-extend', { parent_task_id: '8d2f1a64-5b3c-4e7d-9f10-2a3b4c5d6e7f', continue_at: 'soon' }, 'continue_at: Must be a number'],
      ['/suno-extend', { parent_task_id: '8d2f1a64-5b3c-4e7d-9f10-2a3b4c5d6e7f', from_upload: 1 }, 'from_upload: Must be true or false'],
    ])('%s %j → 400 naming the field', async (path, json, message) => {
      const before = await balanceOf(db, user.id);
      const res = await post(h.app, path, { key: user.apiKey, json });
      expect(res.status).toBe(400);
      const error = await expectErrorBody(res);
      expect(error.msg.startsWith(message), error.msg).toBe(true);
      expect(await balanceOf(db, user.id)).toEqual(before);
    });

    it('answers 401 without a key and 402 when the balance is short, holding nothing', async () => {
      expect((await post(h.app, '/suno-imagine', { json: { prompt: 'x' } })).status).toBe(401);
      const poor = await createUser(db);
      await grantCredits(db, poor.id, 3);
      const res = await post(h.app, '/suno-imagine', { key: poor.apiKey, json: { prompt: 'x' } });
      expect(res.status).toBe(402);
      expect((await balanceOf(db, poor.id)).credits).toBe(3);
    });
  });

  describe('POST /upload-audio', () => {
    it.each([
      ['an MP3', () => mp3, 'mp3', 'audio/mpeg'],
      ['a WAV sent as song.mp3 with an MP3 type', () => encodeWav(tone(0.1)), 'wav', 'audio/wav'],
      ['an Ogg', () => Buffer.concat([Buffer.from('OggS'), Buffer.alloc(60, 1)]), 'ogg', 'audio/ogg'],
      ['an M4A', () => Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypM4A '), Buffer.alloc(60, 0)]), 'm4a', 'audio/mp4'],
    ])('stores %s under the type its bytes say, and serves it', async (_name, bytes, extension, contentType) => {
      const data = bytes();
      const res = await upload(data, 'song.mp3', 'audio/mpeg');
      expect(res.status).toBe(200);
      const { audioURL } = (await res.json()) as { audioURL: string };
      expect(audioURL).toMatch(new RegExp(`^http://localhost:8080/media/upload-[0-9a-f-]{36}\\.${extension}$`));
      const served = await h.app.request(new URL(audioURL).pathname);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe(contentType);
      expect(Buffer.from(await served.arrayBuffer()).equals(data)).toBe(true);
    });

    it.each([
      ['a PNG', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), 415, 'Only mp3, wav, ogg and m4a audio files are accepted'],
      ['bytes that only start like an MP3 frame', Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(5000, 0x11)]), 415, 'Only mp3'],
      ['an empty file', Buffer.alloc(0), 400, 'audio: The file is empty'],
    ])('refuses %s', async (_name, data, status, message) => {
      const res = await upload(data);
      expect(res.status).toBe(status);
      expect((await expectErrorBody(res)).msg).toContain(message);
    });

    it('names the missing field, refuses non-multipart bodies and more than 50 MB', async () => {
      const missing = await upload(mp3, 'song.mp3', 'audio/mpeg', 'image');
      expect(missing.status).toBe(400);
      expect((await expectErrorBody(missing)).msg).toBe('audio: Required');
      const json = await post(h.app, '/upload-audio', { key: user.apiKey, json: { audio: 'x' } });
      expect(json.status).toBe(415);
      const huge = await upload(Buffer.alloc(50 * 1024 * 1024 + 1, 1));
      expect(huge.status).toBe(413);
      expect((await expectErrorBody(huge)).msg).toBe('Audio must be at most 50 MB');
      const anonymous = await h.app.request('/upload-audio', { method: 'POST', body: new FormData() });
      expect(anonymous.status).toBe(401);
    });
  });

  describe('songs made, shown and extended', () => {
    let sunoId: string;
    let suno: TaskView;

    beforeAll(async () => {
      sunoId = await submit('/suno-imagine', { prompt: 'a bright folk song about the sea', title: 'Sea Song', tags: 'folk', webhook_url: null });
      suno = await finished(sunoId);
    });

    it('holds the price with the task and keeps it as the charge on success', async () => {
      expect(suno.cost).toBe(PRICES.suno);
      expect(await ledgerOf(db, sunoId)).toEqual([{ delta: -PRICES.suno, source_key: `hold:${sunoId}` }]);
      expect(suno.refund).toBe(0);
    });

    it('shows two songs on /fetch with their files, covers, titles, lyrics, lengths and song ids', async () => {
      expect(suno).toMatchObject({ task_type: 'suno', status: 'finished', percentage: '100', prompt: 'a bright folk song about the sea', actions: ['extend'] });
      expect(suno.songs).toHaveLength(2);
      expect(suno.audio_url).toBe(suno.songs?.[0].audio_url);
      expect(suno.lyrics).toBe(suno.songs?.[0].lyrics);
      expect(suno.result).toMatchObject({ engine: 'local-audio', simulated: true, layout: 'none' });
      for (const song of suno.songs ?? []) {
        expect(song).toMatchObject({ title: 'Sea Song', tags: 'folk' });
        expect(song.song_id).toBe(song.id);
        expect(song.audio_url).toMatch(new RegExp(`/media/${sunoId}-song-\\d\\.mp3$`));
        expect(song.image_url).toMatch(new RegExp(`/media/${sunoId}-song-\\d-cover\\.jpg$`));
        const served = await h.app.request(new URL(song.audio_url).pathname);
        expect(served.headers.get('content-type')).toBe('audio/mpeg');
        const pcm = await decodeMp3(new Uint8Array(await served.arrayBuffer()));
        expect(pcmLength(pcm) / 44_100).toBeCloseTo(song.duration ?? 0, 2);
      }
    });

    it('extends a song named by its song_id alone, keeping the song up to continue_at', async () => {
      const song = suno.songs![1];
      const taskId = await submit('/suno-extend', { song_id: song.song_id, continue_at: 1.5, prompt: 'louder now' });
      const view = await finished(taskId);
      expect(view).toMatchObject({ task_type: 'suno-ext', parent_task_id: sunoId, cost: PRICES['suno-ext'], prompt: 'louder now' });
      expect(view.input_data).toMatchObject({ parent_task_id: sunoId, song_id: song.song_id, song_index: 1, continue_at: 1.5, from_upload: false });
      expect(view.songs).toHaveLength(2);
      for (const extended of view.songs ?? []) {
        expect(extended.duration).toBeGreaterThanOrEqual(1.5 + 1.5);
        expect(extended.duration).toBeLessThanOrEqual(1.5 + 2);
      }
      expect(view.result).toMatchObject({ extend: { continue_at: 1.5, from_upload: false } });
    });

    it.each([
      [() => ({ parent_task_id: sunoId, continue_at: 999 }), 400, /^continue_at: Must be at most \d/],
      [() => ({ parent_task_id: sunoId, from_upload: true }), 400, /^from_upload: The task is not an audio upload/],
      [() => ({ parent_task_id: sunoId, song_id: 'nope' }), 400, /^song_id: No song of this task has this id$/],
      [() => ({ song_id: 'unknown-song' }), 404, /^Song not found$/],
    ])('refuses an extension of a song that is not there: %#', async (body, status, message) => {
      const res = await post(h.app, '/suno-extend', { key: user.apiKey, json: body() });
      expect(res.status).toBe(status);
      expect((await expectErrorBody(res)).msg).toMatch(message);
    });

    it("never extends another user's song, by task or by song id", async () => {
      const byTask = await post(h.app, '/suno-extend', { key: other.apiKey, json: { parent_task_id: sunoId } });
      expect(byTask.status).toBe(404);
      const bySong = await post(h.app, '/suno-extend', { key: other.apiKey, json: { song_id: suno.songs![0].song_id } });
      expect(bySong.status).toBe(404);
    });
  });

  it('makes an uploaded file a song (its real length), and extends it from_upload', async () => {
    const res = await upload(mp3, 'demo.mp3');
    const { audioURL } = (await res.json()) as { audioURL: string };
    const uploadId = await submit('/suno-upload', { audio_url: audioURL });
    const view = await finished(uploadId);
    expect(view).toMatchObject({ task_type: 'suno-upload', cost: PRICES['suno-upload'], input_data: { audio_url: audioURL }, actions: ['extend'] });
    expect(view.result).toMatchObject({ simulated: false, method: 'upload', audio: { format: 'mp3' } });
    expect(view.songs).toHaveLength(1);
    expect(view.songs?.[0]).toMatchObject({ duration: 2.2, title: 'Uploaded audio' });
    // the file as uploaded, stored again as the task's song
    const served = await h.app.request(new URL(view.songs![0].audio_url).pathname);
    expect(Buffer.from(await served.arrayBuffer()).equals(mp3)).toBe(true);

    const extendId = await submit('/suno-extend', { parent_task_id: uploadId, from_upload: true, continue_at: 2 });
    const extended = await finished(extendId);
    expect(extended.input_data).toMatchObject({ from_upload: true, continue_at: 2 });
    expect(extended.songs?.[0].duration).toBeGreaterThanOrEqual(3.5);
  });

  it('writes lyrics for suno-lyrics and two songs for udio-imagine', async () => {
    const lyricsId = await submit('/suno-lyrics', { prompt: 'the first snow in the city' });
    const lyrics = await finished(lyricsId);
    expect(lyrics).toMatchObject({ task_type: 'suno-lyrics', cost: PRICES['suno-lyrics'] });
    expect(lyrics.lyrics).toMatch(/^\[Simulated lyrics/);
    expect(lyrics.songs).toBeUndefined();

    const udioId = await submit('/udio-imagine', {
      prompt: 'sunny reggae with organ',
      prompt_strength: 0.8,
      lyrics_placement_start: 0.5,
      lyrics_placement_end: 1.5,
    });
    const udio = await finished(udioId);
    expect(udio).toMatchObject({ task_type: 'udio', cost: PRICES.udio });
    expect(udio.songs).toHaveLength(2);
    expect(udio.input_data).toMatchObject({ model: 'udio32-v1.5', prompt_strength: 0.8, lyrics_placement_start: 0.5, lyrics_placement_end: 1.5 });
  });

  it('fails a suno-upload whose file cannot be read with the reason, refunded exactly once', async () => {
    const before = (await balanceOf(db, user.id)).credits;
    const taskId = await submit('/suno-upload', { audio_url: `${filesOrigin}/gone.mp3` });
    const task = await waitForTask(db, taskId, { timeoutMs: 60_000 });
    expect(task.status).toBe('failed');
    const view = await fetched(taskId);
    expect(view.message).toBe('The uploaded audio could not be read: the server answered HTTP 404');
    expect(view.refund).toBe(PRICES['suno-upload']);
    expect(await ledgerOf(db, taskId)).toEqual([
      { delta: -PRICES['suno-upload'], source_key: `hold:${taskId}` },
      { delta: PRICES['suno-upload'], source_key: `refund:${taskId}` },
    ]);
    expect((await balanceOf(db, user.id)).credits).toBe(before);
    // another site's file that is there is read over HTTP and kept
    const okId = await submit('/suno-upload', { audio_url: `${filesOrigin}/song.mp3` });
    expect((await finished(okId)).songs?.[0]).toMatchObject({ duration: 2.2, title: 'song' });
  });
});
