/**
 * The local audio engine (engines/local-audio): every song is a real, playable MP3 (parsed
 * here by an independent container reader and decoded by mpg123), as long as asked, at
 * 44.1 kHz stereo, not silence, byte-identical for a seed; lyrics labelled simulated (none
 * for an instrumental); uploads read for their real format and length; an extension keeps
 * the parent's first continue_at seconds; the tempo and key it measures are the ones a song
 * was written in. Songs are a few seconds long here to keep the suite fast.
 */
import { parseBuffer } from 'music-metadata';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { type EngineResult, EngineError } from '../src/engines/engine.ts';
import type { AudioJob } from '../src/engines/jobs/audio.ts';
import { estimateKey, estimateTempo } from '../src/engines/local-audio/analysis.ts';
import { createLocalAudioEngine } from '../src/engines/local-audio/index.ts';
import { SIMULATED_LYRICS_LABEL } from '../src/engines/local-audio/lyrics.ts';
import { decodeMp3, encodeMp3 } from '../src/engines/local-audio/mp3.ts';
import { type Pcm, pcmLength, rmsOf } from '../src/engines/local-audio/pcm.ts';
import { writeScore } from '../src/engines/local-audio/score.ts';
import { chooseStyle, keyName, type Style } from '../src/engines/local-audio/style.ts';
import { renderScore } from '../src/engines/local-audio/synth.ts';
import { decodeWav, encodeWav } from '../src/engines/local-audio/wav.ts';
import { HashStream } from '../src/engines/local/random.ts';

const engine = createLocalAudioEngine({ sunoSeconds: [4, 5], extendSeconds: [3, 3.5], udioSeconds: { 'udio32-v1.5': 4.5 } });

const run = (job: AudioJob) => engine.run(job, () => {}, new AbortController().signal);

const fileOf = (song: NonNullable<EngineResult['songs']>[number]) => {
  if (song.file.source !== 'buffer') throw new Error('expected bytes');
  return song.file.data;
};

function sine(seconds: number, sampleRate: number, channels: number, frequency = 440): Pcm {
  const length = Math.round(seconds * sampleRate);
  const data = Float32Array.from({ length }, (_, i) => 0.5 * Math.sin((2 * Math.PI * frequency * i) / sampleRate));
  return { sampleRate, channels: Array.from({ length: channels }, () => data.slice()) };
}

/** Correlation of two signals over [from, to) at an offset of `lag` samples in b. */
function correlationAt(a: Float32Array, b: Float32Array, from: number, to: number, lag: number): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = from; i < to; i++) {
    const x = a[i];
    const y = b[i + lag] ?? 0;
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  return ab / Math.sqrt(aa * bb);
}

describe('local audio engine: suno', () => {
  let first: EngineResult;
  it('makes two real MP3 songs of the asked length at 44.1 kHz stereo, with covers and labelled lyrics', async () => {
    first = await run({ kind: 'suno', prompt: 'an upbeat synthwave song about neon city nights', instrumental: false, seed: 7 });
    expect(first).toMatchObject({ engine: 'local-audio', simulated: true, layout: 'none', images: [], seed: 7 });
    expect(first.note).toMatch(/^Simulated/);
    expect(first.songs).toHaveLength(2);
    for (const song of first.songs ?? []) {
      const data = fileOf(song);
      // an independent reader of the container
      const meta = await parseBuffer(data, { mimeType: 'audio/mpeg' }, { duration: true });
      expect(meta.format).toMatchObject({ container: 'MPEG', codec: 'MPEG 1 Layer 3', sampleRate: 44_100, numberOfChannels: 2 });
      // decoded (gapless, by the LAME tag it carries): exactly the reported length, within the asked range
      const pcm = await decodeMp3(data);
      expect(pcm.sampleRate).toBe(44_100);
      expect(pcm.channels).toHaveLength(2);
      const seconds = pcmLength(pcm) / pcm.sampleRate;
      expect(seconds).toBeCloseTo(song.durationSec ?? 0, 2);
      expect(seconds).toBeGreaterThanOrEqual(4);
      expect(seconds).toBeLessThanOrEqual(5);
      // music, not silence: loud enough in every second but the fading last one
      for (let s = 0; s + 1 < Math.floor(seconds); s++) expect(rmsOf(pcm, s * 44_100, (s + 1) * 44_100), `second ${s}`).toBeGreaterThan(0.01);
      expect(rmsOf(pcm)).toBeGreaterThan(0.05);
      // the cover: a 640×640 JPEG
      if (song.cover?.source !== 'buffer') throw new Error('expected a cover');
      expect(await sharp(song.cover.data).metadata()).toMatchObject({ format: 'jpeg', width: 640, height: 640 });
      expect(song.lyrics?.split('\n')[0]).toBe(SIMULATED_LYRICS_LABEL);
      expect(song.upstreamId).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(first.lyrics).toBe(first.songs?.[0].lyrics);
    expect(first.data?.music).toMatchObject({ genre: 'electronic' });
    // two arrangements, not one file twice
    expect(fileOf(first.songs![0]).equals(fileOf(first.songs![1]))).toBe(false);
  });

  it('is deterministic for a seed: the same request and seed give byte-identical songs, another seed others', async () => {
    const again = await run({ kind: 'suno', prompt: 'an upbeat synthwave song about neon city nights', instrumental: false, seed: 7 });
    expect(again.songs?.map((s) => fileOf(s).toString('base64'))).toEqual(first.songs?.map((s) => fileOf(s).toString('base64')));
    const other = await run({ kind: 'suno', prompt: 'an upbeat synthwave song about neon city nights', instrumental: false, seed: 8 });
    expect(fileOf(other.songs![0]).equals(fileOf(first.songs![0]))).toBe(false);
  });

  it('sings given lyrics as given, and makes instrumentals without words', async () => {
    const lyrics = 'Hello moon\nhello sea\nsing along with me';
    const sung = await run({ kind: 'suno', prompt: 'folk ballad', lyrics, instrumental: false, title: 'Moon', seed: 3 });
    expect(sung.songs?.map((s) => [s.title, s.lyrics])).toEqual([
      ['Moon', lyrics],
      ['Moon', lyrics],
    ]);
    const instrumental = await run({ kind: 'suno', prompt: 'folk ballad', instrumental: true, seed: 3 });
    expect(instrumental.lyrics).toBeUndefined();
    expect(instrumental.songs?.every((s) => s.lyrics === undefined)).toBe(true);
  });

  it('refuses a request with nothing to go on', async () => {
    await expect(run({ kind: 'suno', prompt: ' ', instrumental: false })).rejects.toMatchObject({ code: 'invalid_input' });
  });
});

describe('local audio engine: udio, lyrics', () => {
  it('makes Udio songs as long as the model says, each with its own lyrics, leaving out what the negative prompt names', async () => {
    const result = await run({ kind: 'udio', prompt: 'rock anthem with big drums', negativePrompt: 'drums', promptStrength: 1, lyricsStrength: 0.9, seed: 11 });
    expect(result.songs).toHaveLength(2);
    for (const song of result.songs ?? []) {
      const pcm = await decodeMp3(fileOf(song));
      expect(pcmLength(pcm) / pcm.sampleRate).toBeCloseTo(4.5, 3);
    }
    expect(result.songs?.[0].lyrics).not.toBe(result.songs?.[1].lyrics);
    expect(result.data?.music).toMatchObject({ genre: 'rock', drums: 'none', model: 'udio32-v1.5' });
  });

  it('writes labelled lyrics only for suno-lyrics, the same for a seed', async () => {
    const result = await run({ kind: 'suno-lyrics', prompt: 'the first snow in the city', seed: 5 });
    expect(result).toMatchObject({ simulated: true, method: 'lyrics-template', layout: 'none', images: [] });
    expect(result.songs).toBeUndefined();
    expect(result.lyrics?.split('\n')[0]).toBe(SIMULATED_LYRICS_LABEL);
    expect(result.lyrics).toMatch(/\[Chorus\]/);
    expect(result.lyrics).toMatch(/snow|city|first/);
    expect((await run({ kind: 'suno-lyrics', prompt: 'the first snow in the city', seed: 5 })).lyrics).toBe(result.lyrics);
  });
});

describe('local audio engine: upload and extend', () => {
  it('reads an upload for its real format and length and makes it a song as it is', async () => {
    const wav = encodeWav(sine(3, 22_050, 1));
    const result = await run({ kind: 'suno-upload', audio: { url: 'https://example.com/tracks/my%20demo.wav', data: wav, contentType: 'audio/wav' } });
    expect(result).toMatchObject({ simulated: false, method: 'upload', data: { audio: { format: 'wav', duration: 3, sample_rate: 22_050, channels: 1 } } });
    expect(result.songs).toHaveLength(1);
    expect(result.songs?.[0]).toMatchObject({ title: 'my demo', durationSec: 3 });
    expect(fileOf(result.songs![0]).equals(wav)).toBe(true);

    const mp3 = await encodeMp3(sine(2.5, 44_100, 2));
    const fromMp3 = await run({ kind: 'suno-upload', audio: { url: 'https://example.com/a.mp3', data: mp3, contentType: 'audio/mpeg' } });
    expect(fromMp3.songs?.[0].durationSec).toBe(2.5);
    expect(fromMp3.data?.audio).toMatchObject({ format: 'mp3', codec: 'MPEG 1 Layer 3' });

    const garbage = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(200, 7)]);
    await expect(run({ kind: 'suno-upload', audio: { url: 'https://example.com/b.mp3', data: garbage, contentType: 'audio/mpeg' } })).rejects.toBeInstanceOf(
      EngineError,
    );
  });

  it("keeps the parent's first continue_at seconds and continues from there, at the parent's tempo and key", async () => {
    // a WAV parent: its samples are known exactly
    const style: Style = { ...chooseStyle({ text: 'house music' }, new HashStream('t', 1)), bpm: 120, tonic: 57, mode: 'minor', drums: 'four' };
    const parent = await renderScore(writeScore({ style, seconds: 8, syllables: [] }, new HashStream('parent', 1)), {
      sampleRate: 44_100,
      seed: 1,
      space: 0.3,
    });
    const wav = encodeWav(parent);
    const continueAt = 6;
    const result = await run({
      kind: 'suno-extend',
      song: { audio: { url: 'https://example.com/p.wav', data: wav, contentType: 'audio/wav' }, title: 'Parent', durationSec: 8 },
      continueAt,
      fromUpload: true,
      seed: 2,
    });
    expect(result.songs).toHaveLength(2);
    const original = decodeWav(wav).channels[0];
    for (const song of result.songs ?? []) {
      const pcm = await decodeMp3(fileOf(song));
      const seconds = pcmLength(pcm) / pcm.sampleRate;
      expect(seconds).toBeGreaterThanOrEqual(continueAt + 3);
      expect(seconds).toBeLessThanOrEqual(continueAt + 3.5);
      // the first continue_at seconds are the parent's, sample-aligned (through one MP3 encode)
      const head = Math.round(continueAt * 44_100);
      expect(correlationAt(original, pcm.channels[0], 1000, head - 1000, 0)).toBeGreaterThan(0.95);
      expect(correlationAt(original, pcm.channels[0], 1000, head - 1000, 40)).toBeLessThan(0.9);
      // and after it, something new: not the parent going on
      expect(rmsOf(pcm, head + 44_100, head + 2 * 44_100)).toBeGreaterThan(0.02);
      expect(song.title).toBe('Parent');
    }
    expect(result.data?.extend).toMatchObject({ continue_at: 6, from_upload: true, original_duration: 8, measured_key: 'A minor' });
    const measured = (result.data?.extend as { measured_bpm?: number } | undefined)?.measured_bpm ?? 0;
    expect(Math.abs(measured - 120)).toBeLessThanOrEqual(3);
    expect(result.note).toMatch(/first 6 s are the original song/);
  });

  it('refuses a continue_at past the end, and formats it cannot decode, with a clear message', async () => {
    const wav = encodeWav(sine(2, 44_100, 2));
    const song = { audio: { url: 'https://example.com/p.wav', data: wav, contentType: 'audio/wav' } };
    await expect(run({ kind: 'suno-extend', song, continueAt: 5, fromUpload: true })).rejects.toMatchObject({
      code: 'invalid_input',
      message: 'continue_at (5 s) must be after the start and within the song (2.00 s long).',
    });
    const ogg = { audio: { url: 'https://example.com/p.ogg', data: Buffer.from('OggS\u0000rest'), contentType: 'audio/ogg' } };
    await expect(run({ kind: 'suno-extend', song: ogg, continueAt: 1, fromUpload: true })).rejects.toMatchObject({
      message: 'The local engine can continue MP3 and WAV songs, not OGG; upload the uploaded audio as MP3 or WAV.',
    });
  });
});

describe('local audio engine: codecs and listening', () => {
  it('reads 8/16/24/32-bit PCM and float WAV', () => {
    const make = (format: number, bits: number, write: (b: Buffer, o: number, v: number) => void) => {
      const frames = 4;
      const data = Buffer.alloc(44 + frames * (bits / 8));
      data.write('RIFF', 0);
      data.writeUInt32LE(36 + frames * (bits / 8), 4);
      data.write('WAVEfmt ', 8);
      data.writeUInt32LE(16, 16);
      data.writeUInt16LE(format, 20);
      data.writeUInt16LE(1, 22);
      data.writeUInt32LE(8000, 24);
      data.writeUInt16LE(bits, 34);
      data.write('data', 36);
      data.writeUInt32LE(frames * (bits / 8), 40);
      for (const [i, v] of [0, 0.5, -0.5, 0.25].entries()) write(data, 44 + i * (bits / 8), v);
      return decodeWav(data).channels[0];
    };
    const expected = [0, 0.5, -0.5, 0.25];
    const cases: [number, number, (b: Buffer, o: number, v: number) => void][] = [
      [1, 8, (b, o, v) => b.writeUInt8(Math.round(v * 128 + 128), o)],
      [1, 16, (b, o, v) => b.writeInt16LE(Math.round(v * 32768), o)],
      [1, 24, (b, o, v) => b.writeIntLE(Math.round(v * 8_388_608), o, 3)],
      [1, 32, (b, o, v) => b.writeInt32LE(Math.round(v * 2_147_483_648), o)],
      [3, 32, (b, o, v) => b.writeFloatLE(v, o)],
    ];
    for (const [format, bits, write] of cases) expect([...make(format, bits, write)], `${bits}-bit`).toEqual(expected);
    expect(() => decodeWav(Buffer.from('RIFF....WAVEjunk'))).toThrow('no data chunk');
  });

  it.each([
    [96, 50, 'minor'],
    [128, 55, 'major'],
  ] as const)('measures the tempo (%i bpm) and key of a song written in them', async (bpm, tonic, mode) => {
    const style: Style = { ...chooseStyle({ text: 'pop' }, new HashStream('k', bpm)), bpm, tonic, mode, drums: 'pop', sevenths: false };
    const pcm = await renderScore(writeScore({ style, seconds: 14, syllables: [] }, new HashStream('s', bpm)), { sampleRate: 44_100, seed: 3, space: 0.2 });
    const measured = estimateTempo(pcm, 0, pcmLength(pcm));
    expect(Math.abs((measured ?? 0) - bpm)).toBeLessThanOrEqual(bpm * 0.03);
    const key = estimateKey(pcm, 0, pcmLength(pcm));
    expect(key && keyName({ tonic: key.pitchClass, mode: key.mode })).toBe(keyName(style));
  });
});
