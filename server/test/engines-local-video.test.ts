/**
 * The local video engine and its MP4 container code, without a database: each kind's clip is
 * a real H.264 MP4 of the asked shape and length (read back with readMp4), keyframes once a
 * second, the poster its first frame with the SIMULATED caption in it, an extension that keeps
 * its parent's samples byte for byte, clear failures (an unreadable picture, a parent the
 * engine cannot append to, an abort), the try-on picture, and the byte-range parser of
 * GET /media.
 */
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { type EngineJob, type EngineResult, EngineError, type ImageInput } from '../src/engines/engine.ts';
import type { VideoAspectRatio, VideoParentRef } from '../src/engines/jobs/video.ts';
import { closeLocalVideoEncoder, createLocalVideoEngine } from '../src/engines/local-video/index.ts';
import { Mp4Error, readMp4, sampleBytes, writeMp4 } from '../src/engines/local-video/mp4.ts';
import { parseRange } from '../src/routes/media.ts';

const FPS = 6;
const engine = createLocalVideoEngine({ shortSide: 64, fps: FPS });

afterAll(() => closeLocalVideoEncoder());

const run = (job: EngineJob, onProgress: (p: number) => void = () => {}, signal = new AbortController().signal) =>
  engine.run(job, (p) => onProgress(p.percentage), signal);

const fileOf = (result: EngineResult, i = 0) => {
  const file = result.videos?.[i]?.file;
  if (file?.source !== 'buffer') throw new Error('expected a video made here');
  return file.data;
};

const imageInput = async (width: number, height: number, colour = '#3060a0'): Promise<ImageInput> => ({
  url: 'https://example.com/picture.png',
  data: await sharp({ create: { width, height, channels: 3, background: colour } })
    .png()
    .toBuffer(),
  contentType: 'image/png',
});

const parentOf = (result: EngineResult, taskType = 'luma'): VideoParentRef => ({
  taskId: '00000000-0000-4000-8000-000000000001',
  taskType,
  index: 1,
  video: { url: 'http://localhost:8080/media/parent-video-1.mp4', data: fileOf(result), contentType: 'video/mp4' },
});

/** Share of pixels in a region that are near black and near white (the caption strip is both). */
async function inkOf(jpeg: Buffer, top: number, height: number): Promise<{ dark: number; light: number }> {
  const { data, info } = await sharp(jpeg)
    .extract({ left: 0, top, width: (await sharp(jpeg).metadata()).width!, height })
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const n = info.width * info.height;
  let dark = 0;
  let light = 0;
  for (const v of data) {
    if (v < 50) dark += 1;
    if (v > 200) light += 1;
  }
  return { dark: dark / n, light: light / n };
}

describe('the local video engine', () => {
  let luma: EngineResult;
  const progress: number[] = [];

  it('should make a Luma clip: a real 5-second H.264 MP4 of 16:9 frames, moov first, a keyframe each second, labelled simulated', async () => {
    luma = await run({ kind: 'luma', prompt: 'a lighthouse at dusk', aspectRatio: '16:9' }, (p) => progress.push(p));
    expect(luma).toMatchObject({ engine: 'local-video', method: 'procedural-camera-move', simulated: true, layout: 'none', width: 114, height: 64 });
    expect(luma.note).toMatch(/^Simulated: .*not a generative video model\.$/);
    const mp4 = readMp4(fileOf(luma));
    expect(mp4).toMatchObject({ codec: 'avc1', width: 114, height: 64, durationSec: 5, topLevel: ['ftyp', 'moov', 'mdat'] });
    expect(mp4.samples).toHaveLength(5 * FPS);
    expect(mp4.samples.flatMap((s, i) => (s.sync ? [i] : []))).toEqual([0, 6, 12, 18, 24]);
    expect(luma.videos?.[0]).toMatchObject({ width: 114, height: 64, durationSec: 5 });
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress.length).toBeGreaterThan(2);
  });

  it('should give the clip its first frame as a JPEG poster, with the caption strip burned in', async () => {
    const poster = luma.videos?.[0].poster;
    if (poster?.source !== 'buffer') throw new Error('expected a poster');
    expect(await sharp(poster.data).metadata()).toMatchObject({ format: 'jpeg', width: 114, height: 64 });
    // the strip: dark ground with light letters; the picture above it is neither
    const strip = await inkOf(poster.data, 64 - 6, 6);
    expect(strip.dark).toBeGreaterThan(0.3);
    expect(strip.light).toBeGreaterThan(0.05);
  });

  it.each<[VideoAspectRatio, number, number]>([
    ['1:1', 64, 64],
    ['16:9', 114, 64],
    ['9:16', 64, 114],
    ['4:3', 86, 64],
    ['3:4', 64, 86],
    ['21:9', 150, 64],
    ['9:21', 64, 150],
  ])('should frame a %s clip as %i×%i', async (aspectRatio, width, height) => {
    const result = await run({ kind: 'luma', prompt: 'a field', aspectRatio, loop: true });
    expect(readMp4(fileOf(result))).toMatchObject({ width, height });
  });

  it('should take an image-to-video clip’s shape from its start image, 10 seconds when asked, and name the options it cannot honour', async () => {
    const result = await run({
      kind: 'kling-video',
      prompt: 'x',
      generationType: 'image2video',
      image: await imageInput(300, 400),
      endImage: await imageInput(100, 100, '#ff0000'),
      mode: 'std',
      durationSec: 10,
      cfgScale: 0.4,
      negativePrompt: 'rain',
    });
    expect(readMp4(fileOf(result))).toMatchObject({ width: 64, height: 86, durationSec: 10 });
    expect(result.method).toBe('image-camera-move');
    expect(result.note).toMatch(/dissolving into the end image/);
    expect(result.data).toMatchObject({ ignored_options: ['negative_prompt', 'cfg_scale'] });
  });

  it('should make four Midjourney clips, each its own camera move', async () => {
    // a picture with detail everywhere, so that different moves give different frames
    const noisy = await sharp({ create: { width: 200, height: 200, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 60 } } })
      .png()
      .toBuffer();
    const image = { url: 'https://example.com/noise.png', data: noisy, contentType: 'image/png' };
    const result = await run({ kind: 'imagine-video', prompt: 'waves', image, motion: 'high' });
    expect(result.videos).toHaveLength(4);
    const files = result.videos!.map((_, i) => fileOf(result, i));
    expect(new Set(files.map((f) => f.toString('base64'))).size).toBe(4);
    for (const file of files) expect(readMp4(file)).toMatchObject({ width: 64, height: 64, durationSec: 5 });
  });

  it('should extend a clip: the parent’s samples byte for byte, then the new seconds, with the parent’s poster', async () => {
    const posterData = await sharp({ create: { width: 114, height: 64, channels: 3, background: '#123456' } })
      .jpeg()
      .toBuffer();
    const parent = { ...parentOf(luma), poster: { url: 'p', data: posterData, contentType: 'image/jpeg' } };
    const result = await run({ kind: 'luma-extend', parent, prompt: 'night falls' });
    const [before, file] = [fileOf(luma), fileOf(result)];
    const [a, b] = [readMp4(before), readMp4(file)];
    expect(b).toMatchObject({ width: 114, height: 64, durationSec: 10 });
    expect(b.samples.slice(0, a.samples.length).map((s) => s.sync)).toEqual(a.samples.map((s) => s.sync));
    const [old, now] = [sampleBytes(before, a), sampleBytes(file, b)];
    for (const [i, sample] of old.entries()) expect(Buffer.compare(Buffer.from(sample), Buffer.from(now[i])), `sample ${i}`).toBe(0);
    expect(b.samples[a.samples.length].sync).toBe(true);
    const poster = result.videos?.[0].poster;
    expect(poster?.source === 'buffer' && poster.data.equals(posterData)).toBe(true);
  });

  it('should refuse to extend what it cannot append to, with a message a user can read', async () => {
    const notVideo = { ...parentOf(luma), video: { url: 'x', data: Buffer.from('not a video at all'), contentType: 'video/mp4' } };
    await expect(run({ kind: 'luma-extend', parent: notVideo, prompt: 'x' })).rejects.toMatchObject({
      code: 'unsupported',
      message: 'The local engine can only extend MP4 (H.264) videos; this one cannot be read.',
    });
    // an encoder set up with another quantiser writes another parameter set: one sample entry cannot describe both parts
    const other = createLocalVideoEngine({ shortSide: 64, fps: FPS, qp: 20 });
    await expect(other.run({ kind: 'luma-extend', parent: parentOf(luma), prompt: 'x' }, () => {}, new AbortController().signal)).rejects.toMatchObject({
      code: 'unsupported',
      message: 'The local engine can only extend videos it made; this one was encoded differently.',
    });
  });

  it('should fail an unreadable start image as invalid input', async () => {
    const broken = { url: 'x', data: Buffer.from('GIF89a but no picture'), contentType: 'image/gif' };
    const error = await run({ kind: 'imagine-video', prompt: 'x', image: broken, motion: 'low' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect(error).toMatchObject({ code: 'invalid_input', message: 'The start image could not be read.' });
  });

  it('should settle at once when aborted, and encode the next clip normally', async () => {
    const controller = new AbortController();
    const running = run({ kind: 'runway', prompt: 'x', generationType: 'text2video', durationSec: 10 }, () => {}, controller.signal);
    setTimeout(() => controller.abort(new Error('stop')), 30);
    await expect(running).rejects.toMatchObject({ code: 'aborted' });
    const next = await run({ kind: 'runway', prompt: 'x', generationType: 'text2video', durationSec: 5, flip: true });
    expect(readMp4(fileOf(next))).toMatchObject({ width: 64, height: 114, durationSec: 5 });
  });

  it('should answer a try-on as the person’s picture with the garment beside them and a caption', async () => {
    const result = await run({ kind: 'kling-tryon', human: await imageInput(300, 500, '#808080'), cloth: await imageInput(100, 100, '#ff0000') });
    expect(result).toMatchObject({ layout: 'single', method: 'garment-inset', simulated: true, width: 300, height: 500 });
    const image = result.image;
    if (image?.source !== 'buffer') throw new Error('expected a picture');
    const { data, info } = await sharp(image.data).raw().toBuffer({ resolveWithObject: true });
    // the garment's red is in the picture
    let red = 0;
    for (let i = 0; i < data.length; i += info.channels) if (data[i] > 200 && data[i + 1] < 60 && data[i + 2] < 60) red += 1;
    expect(red).toBeGreaterThan(500);
    const png = await sharp(image.data).jpeg().toBuffer();
    const strip = await inkOf(png, 500 - 20, 20);
    expect(strip.light).toBeGreaterThan(0.05);
  });
});

describe('the MP4 container code', () => {
  it.each([
    ['an empty file', Buffer.alloc(0), 'no ftyp box at the start'],
    ['a PNG', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), 'no ftyp box at the start'],
    ['an ftyp alone', Buffer.from('00000010667479706973366d00000200', 'hex'), 'no moov box'],
    ['a box that overruns the file', Buffer.from('00000010667479706973366d00000200000000ff6d6f6f76', 'hex'), 'box moov at 16 overruns its parent'],
  ])('should refuse %s with an Mp4Error', (_name, data, message) => {
    expect(() => readMp4(data)).toThrow(Mp4Error);
    expect(() => readMp4(data)).toThrow(message);
  });

  it('should write what it reads: samples, durations and keyframes survive a round trip', async () => {
    const result = await run({ kind: 'luma', prompt: 'x', aspectRatio: '1:1' });
    const file = fileOf(result);
    const mp4 = readMp4(file);
    const bytes = sampleBytes(file, mp4);
    const again = writeMp4({
      width: mp4.width,
      height: mp4.height,
      timescale: mp4.timescale,
      sampleEntry: mp4.sampleEntry,
      samples: mp4.samples.map((s, i) => ({ data: bytes[i], duration: s.duration * 2, sync: i === 0 })),
    });
    const read = readMp4(again);
    expect(read).toMatchObject({ width: 64, height: 64, durationSec: 10, timescale: mp4.timescale });
    expect(read.samples.map((s) => s.sync)).toEqual(mp4.samples.map((_, i) => i === 0));
    expect(sampleBytes(again, read).map((b) => Buffer.from(b).toString('hex'))).toEqual(bytes.map((b) => Buffer.from(b).toString('hex')));
  });
});

describe('byte ranges of GET /media (parseRange)', () => {
  it.each([
    [undefined, 1000, undefined],
    ['bytes=0-99', 1000, { start: 0, end: 99 }],
    ['bytes=100-', 1000, { start: 100, end: 999 }],
    ['bytes=-100', 1000, { start: 900, end: 999 }],
    ['bytes=-5000', 1000, { start: 0, end: 999 }],
    ['bytes=990-2000', 1000, { start: 990, end: 999 }],
    ['BYTES = 5 - 9', 1000, { start: 5, end: 9 }],
    ['bytes=1000-', 1000, 'unsatisfiable'],
    ['bytes=-0', 1000, 'unsatisfiable'],
    ['bytes=0-', 0, 'unsatisfiable'],
    ['bytes=9-5', 1000, undefined],
    ['bytes=0-1,5-9', 1000, undefined],
    ['items=0-9', 1000, undefined],
    ['bytes=-', 1000, undefined],
    ['bytes=abc', 1000, undefined],
  ])('%s of %i bytes → %j', (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });
});
