/**
 * The hosted prediction engines end to end, one task per family: submitted through the API,
 * claimed by the real worker, run on the predictions engine against support/fake-replicate.ts
 * (the upstream), and the output copied into our media store (Replicate deletes outputs after
 * about an hour): /fetch then names our /media URLs, byte for byte what the fake delivered.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { createReplicatePredictionEngines } from '../src/engines/replicate/env.ts';
import { SUGGESTED_AUDIO_MODELS } from '../src/engines/replicate/families/audio.ts';
import { createImageFetcher } from '../src/storage/image-fetcher.ts';
import { createUser, post, type TestUser } from './helpers.ts';
import {
  FAKE_AUDIO_MODELS,
  FAKE_FLUX_MODELS,
  FAKE_IDEOGRAM_MODELS,
  FAKE_OUTPUT_MP3,
  FAKE_OUTPUT_MP4,
  FAKE_OUTPUT_PNG,
  FAKE_VIDEO_MODELS,
  type FakeReplicate,
  startFakeReplicate,
} from './support/fake-replicate.ts';
import { grantCredits, openTestDb, type TaskHarness, taskHarness, waitForTask } from './support/tasks.ts';

const TOKEN = 'r8_worker_token';
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
/** A finished task (`success` is how older rows say `finished`). */
const SUCCEEDED = expect.stringMatching(/^(finished|success)$/);

interface MediaRow {
  status: string;
  percentage: number;
  refund: number;
  image_url: string | null;
  image_urls: string[] | null;
  video_urls: string[] | null;
  audio_urls: string[] | null;
  result: Record<string, unknown> | null;
}

describe.each(testDatabaseKinds())('hosted prediction engines through the worker on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let upstream: FakeReplicate;
  let user: TestUser;

  beforeAll(async () => {
    upstream = await startFakeReplicate({ token: TOKEN, models: [...FAKE_FLUX_MODELS, ...FAKE_IDEOGRAM_MODELS, ...FAKE_VIDEO_MODELS, ...FAKE_AUDIO_MODELS] });
    db = await openTestDb(kind);
    const engines = createReplicatePredictionEngines(
      {
        apiToken: TOKEN,
        baseUrl: upstream.baseUrl,
        flux: { model: 'black-forest-labs/flux-schnell' },
        ideogram: { imagine: 'ideogram-ai/ideogram-v2' },
        video: { luma: 'luma/ray-flash-2-720p' },
        audio: SUGGESTED_AUDIO_MODELS,
      },
      { pollIntervalMs: 10, maxPollIntervalMs: 20 },
    );
    h = await taskHarness(db, engines);
    await h.worker({ imageFetcher: createImageFetcher({ media: h.media, embedded: true }) }).start();
    user = await createUser(db);
    await grantCredits(db, user.id, 500);
  });
  afterAll(async () => {
    await h?.cleanup();
    await db?.close();
    await upstream?.close();
  });

  const submit = async (path: string, json: Record<string, unknown>) => {
    const res = await post(h.app, path, { key: user.apiKey, json });
    expect(res.status, await res.clone().text()).toBe(200);
    return ((await res.json()) as { task_id: string }).task_id;
  };
  const finished = async (taskId: string): Promise<MediaRow> => {
    await waitForTask(db, taskId);
    const { rows } = await db.query<MediaRow>(
      'select status, percentage, refund, image_url, image_urls, video_urls, audio_urls, result from public.tasks where id = $1',
      [taskId],
    );
    return rows[0];
  };
  /** The prediction the task ran on (its upstream id) and what was stored under one of our media URLs. */
  const stored = async (url: string | null | undefined) => (await h.media.get(h.media.keyOf(url ?? '') ?? ''))?.data;
  const predictionOf = (task: MediaRow) => upstream.predictions.get(String(task.result?.upstream_id));

  it('should run flux-imagine on Flux and store its picture', async () => {
    const taskId = await submit('/flux/imagine', { prompt: 'a red fox in the snow', aspect_ratio: '16:9' });
    const task = await finished(taskId);
    expect(task).toMatchObject({ status: SUCCEEDED, percentage: 100, refund: 0 });
    expect(task.result).toMatchObject({ engine: 'replicate-flux', method: 'flux', simulated: false, layout: 'single' });
    expect(predictionOf(task)?.input).toEqual({ prompt: 'a red fox in the snow', aspect_ratio: '16:9', num_outputs: 1 });
    expect(task.image_url).toBe(`http://localhost:8080/media/${taskId}-image.png`);
    expect(sha((await stored(task.image_url))!)).toBe(sha(FAKE_OUTPUT_PNG));
  });

  it('should run ideogram-imagine on Ideogram and store its picture as the set', async () => {
    const taskId = await submit('/ideogram/imagine', { prompt: 'a poster that says HELLO' });
    const task = await finished(taskId);
    expect(task).toMatchObject({ status: SUCCEEDED, percentage: 100 });
    expect(task.result).toMatchObject({ engine: 'replicate-ideogram', layout: 'set' });
    expect(predictionOf(task)?.model.name).toBe('ideogram-v2');
    expect(task.image_urls).toEqual([`http://localhost:8080/media/${taskId}-1.png`]);
    expect(task.image_url).toBe(task.image_urls?.[0]);
    expect(sha((await stored(task.image_url))!)).toBe(sha(FAKE_OUTPUT_PNG));
  });

  it('should run a Luma task on Ray 2 from an uploaded first frame and store its video', async () => {
    const png = await sharp({ create: { width: 16, height: 9, channels: 3, background: { r: 10, g: 90, b: 200 } } })
      .png()
      .toBuffer();
    const form = new FormData();
    form.set('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'first.png');
    const upload = await h.app.request('/upload', { method: 'POST', headers: { authorization: user.apiKey }, body: form });
    const imageUrl = ((await upload.json()) as { imageURL: string }).imageURL;

    const taskId = await submit('/luma-imagine', { prompt: 'waves roll in', aspect_ratio: '16:9', image_url: imageUrl });
    const task = await finished(taskId);
    expect(task).toMatchObject({ status: SUCCEEDED, percentage: 100, refund: 0 });
    expect(task.result).toMatchObject({ engine: 'replicate-video', method: 'image-to-video', layout: 'none' });
    // our loopback media URL went as the bytes of the stored upload
    expect(predictionOf(task)?.input).toEqual({
      prompt: 'waves roll in',
      aspect_ratio: '16:9',
      start_image: `data:image/png;base64,${png.toString('base64')}`,
    });
    expect(task.video_urls).toHaveLength(1);
    expect(task.video_urls?.[0]).toMatch(new RegExp(`^http://localhost:8080/media/${taskId}-video-1\\.mp4$`));
    expect(sha((await stored(task.video_urls?.[0]))!)).toBe(sha(FAKE_OUTPUT_MP4));
  });

  it('should make a Suno instrumental on musicgen, store the song, then continue it from our stored copy', async () => {
    const taskId = await submit('/suno-imagine', { prompt: 'calm piano at dawn', make_instrumental: true, title: 'Dawn', tags: 'ambient' });
    const task = await finished(taskId);
    expect(task).toMatchObject({ status: SUCCEEDED, percentage: 100, refund: 0 });
    expect(task.result).toMatchObject({ engine: 'replicate-audio', method: 'instrumental', layout: 'none' });
    expect(task.result?.songs).toEqual([
      expect.objectContaining({ audio_url: `http://localhost:8080/media/${taskId}-song-1.mp3`, title: 'Dawn', tags: 'ambient', duration: 30 }),
    ]);
    expect(predictionOf(task)?.input).toEqual({ prompt: 'calm piano at dawn, ambient', duration: 30, output_format: 'mp3' });
    expect(task.audio_urls).toEqual([`http://localhost:8080/media/${taskId}-song-1.mp3`]);
    expect(sha((await stored(task.audio_urls?.[0]))!)).toBe(sha(FAKE_OUTPUT_MP3));

    const extendId = await submit('/suno-extend', { parent_task_id: taskId, continue_at: 20, prompt: 'strings join' });
    const extended = await finished(extendId);
    expect(extended).toMatchObject({ status: SUCCEEDED, percentage: 100 });
    expect(extended.result).toMatchObject({ engine: 'replicate-audio', method: 'continuation' });
    // the song went as the bytes we stored (a loopback media URL), not as Replicate's long-gone URL
    expect(predictionOf(extended)?.input).toEqual({
      input_audio: `data:audio/mpeg;base64,${FAKE_OUTPUT_MP3.toString('base64')}`,
      continuation: true,
      continuation_start: 0,
      continuation_end: 20,
      duration: 50,
      output_format: 'mp3',
      prompt: 'strings join, ambient',
    });
    expect(sha((await stored(extended.audio_urls?.[0]))!)).toBe(sha(FAKE_OUTPUT_MP3));
  });
});
