// What the worker keeps of an engine's result: videos with posters, songs with covers and
// lyrics, text answers, pictures, and every file's type read from its bytes (an upstream URL
// that serves something else is refused), through a real media store on disk.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineResult } from '../src/engines/engine.ts';
import type { TaskRow, taskRepository } from '../src/repositories/task-repository.ts';
import { createDiskMediaStore } from '../src/storage/disk-media-store.ts';
import { detectMediaType } from '../src/storage/media-type.ts';
import { createResultStore } from '../src/workers/store-result.ts';

const MP4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.alloc(16)]);
const WEBM = Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81]);
const WAV = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVEfmt '), Buffer.alloc(8)]);
const MP3 = Buffer.concat([Buffer.from('ID3'), Buffer.alloc(13)]);
const MP3_FRAME = Buffer.from([0xff, 0xfb, 0x90, 0x64, 0, 0, 0, 0]);
const M4A = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypM4A '), Buffer.alloc(16)]);
const OGG = Buffer.concat([Buffer.from('OggS'), Buffer.alloc(8)]);

describe('detectMediaType', () => {
  it.each([
    [MP4, 'video', 'video/mp4', 'mp4'],
    [WEBM, 'video', 'video/webm', 'webm'],
    [WAV, 'audio', 'audio/wav', 'wav'],
    [MP3, 'audio', 'audio/mpeg', 'mp3'],
    [MP3_FRAME, 'audio', 'audio/mpeg', 'mp3'],
    [M4A, 'audio', 'audio/mp4', 'm4a'],
    [OGG, 'audio', 'audio/ogg', 'ogg'],
  ])('reads %#', (data, kind, contentType, extension) => {
    expect(detectMediaType(data)).toEqual({ kind, contentType, extension });
  });

  it('knows pictures and nothing else', async () => {
    const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    expect(detectMediaType(png)).toEqual({ kind: 'image', contentType: 'image/png', extension: 'png' });
    expect(detectMediaType(Buffer.from('<html>not a video</html>'))).toBeUndefined();
    expect(detectMediaType(Buffer.alloc(0))).toBeUndefined();
  });
});

describe('createResultStore', () => {
  let dir: string;
  let upstream: http.Server;
  let upstreamUrl: string;
  let png: Buffer;
  const media = () => createDiskMediaStore({ dir, publicUrl: 'http://api.test' });
  const task = { id: 'task-1' } as TaskRow;
  const noRows = { recordImages: async () => undefined } as unknown as ReturnType<typeof taskRepository>;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'aim-store-result-'));
    png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#123456' } })
      .png()
      .toBuffer();
    upstream = http.createServer((req, res) => {
      if (req.url === '/song.mp3') res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(MP3);
      else res.writeHead(200, { 'content-type': 'video/mp4' }).end('<html>an error page</html>');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => upstream.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  const base: EngineResult = { engine: 'test', method: 'test', simulated: true, layout: 'none', images: [] };

  it('keeps videos with posters, songs with covers and lyrics, and text answers', async () => {
    const store = createResultStore({ media: media(), tasks: noRows, maxMediaBytes: 1_000_000, fetch });
    const success = await store.storeResult(
      task,
      {
        ...base,
        videos: [
          {
            file: { source: 'buffer', data: MP4, contentType: 'video/mp4' },
            poster: { source: 'buffer', data: png, contentType: 'image/png', width: 4, height: 4 },
            durationSec: 5,
            width: 4,
            height: 4,
          },
          { file: { source: 'buffer', data: WEBM, contentType: 'video/webm' } },
        ],
        songs: [
          {
            file: { source: 'url', url: `${upstreamUrl}/song.mp3` },
            cover: { source: 'buffer', data: png, contentType: 'image/png', width: 4, height: 4 },
            title: 'Tide',
            lyrics: 'la la',
            durationSec: 30,
            upstreamId: 'song-1',
          },
        ],
        texts: ['a prompt', 'another'],
      },
      () => {},
    );
    expect(success).toMatchObject({
      imageUrl: null,
      imageUrls: null,
      videoUrls: ['http://api.test/media/task-1-video-1.mp4', 'http://api.test/media/task-1-video-2.webm'],
      audioUrls: ['http://api.test/media/task-1-song-1.mp3'],
      lyrics: 'la la',
      result: {
        videos: [
          {
            video_url: 'http://api.test/media/task-1-video-1.mp4',
            poster_url: 'http://api.test/media/task-1-video-1-poster.png',
            duration: 5,
            width: 4,
            height: 4,
          },
          { video_url: 'http://api.test/media/task-1-video-2.webm' },
        ],
        songs: [
          {
            audio_url: 'http://api.test/media/task-1-song-1.mp3',
            image_url: 'http://api.test/media/task-1-song-1-cover.png',
            title: 'Tide',
            lyrics: 'la la',
            duration: 30,
            id: 'song-1',
          },
        ],
        prompts: ['a prompt', 'another'],
      },
    });
    expect((await media().get('task-1-song-1.mp3'))?.contentType).toBe('audio/mpeg');
    expect((await media().get('task-1-video-2.webm'))?.data.equals(WEBM)).toBe(true);
  });

  it('refuses a file that is not what it should be, whatever its declared type', async () => {
    const store = createResultStore({ media: media(), tasks: noRows, maxMediaBytes: 1_000_000, fetch });
    await expect(store.storeResult(task, { ...base, videos: [{ file: { source: 'url', url: `${upstreamUrl}/video.mp4` } }] }, () => {})).rejects.toMatchObject({
      code: 'upstream_failed',
      detail: 'expected video, got an unknown type',
    });
    await expect(
      store.storeResult(task, { ...base, songs: [{ file: { source: 'buffer', data: MP4, contentType: 'audio/mpeg' } }] }, () => {}),
    ).rejects.toMatchObject({
      code: 'internal',
      detail: 'expected audio, got video/mp4',
    });
  });

  it('keeps an engine’s own data without letting it replace the worker’s keys', async () => {
    const store = createResultStore({ media: media(), tasks: noRows, maxMediaBytes: 1_000_000, fetch });
    const success = await store.storeResult(task, { ...base, texts: ['x'], data: { engine: 'forged', prompts: ['forged'], score: 0.5 } }, () => {});
    expect(success.result).toMatchObject({ engine: 'test', prompts: ['x'], score: 0.5 });
  });
});
