/**
 * @module MP3 in and out. Encoding: LAME's algorithm in pure JavaScript
 * (`@breezystack/lamejs`, the maintained ES-module build of lamejs), 128 kbit/s CBR, on its
 * own worker thread (mp3-worker.mjs: one per process, started on first use, holding the
 * process open only while a song is in flight; an aborted song terminates it and the next song
 * starts a new one), so the engine's largest cost never runs on the
 * event loop of the process that hosts it (in embedded mode the API). The file starts with a Xing "Info" frame carrying a LAME tag
 * (encoder delay and padding, frame and byte counts), as LAME itself writes, so players trim
 * the codec's delay and know the exact length (gapless). Decoding: mpg123 compiled to
 * WebAssembly (`mpg123-decoder`, the module inside the npm package), which honours that tag.
 * See docs/decisions/0008-local-video-and-audio-encoding.md.
 */
import { Worker } from 'node:worker_threads';
import { MPEGDecoder } from 'mpg123-decoder';
import type { Pcm } from './pcm.ts';

const MP3_BITRATE_KBPS = 128;

/** LAME's encoder delay (samples before the first real one) and mpg123's decoder delay. */
const ENCODER_DELAY = 576;
const DECODER_DELAY = 529;
const SAMPLES_PER_FRAME = 1152;

function toInt16(samples: Float32Array, start: number, end: number): Int16Array {
  const out = new Int16Array(end - start);
  for (let i = start; i < end; i++) {
    const s = Math.max(-1, Math.min(1, samples[i]));
    out[i - start] = s < 0 ? s * 32768 : s * 32767;
  }
  return out;
}

/** CRC-16/ARC (LAME's tag checksum). */
function crc16(data: Uint8Array, end: number): number {
  let crc = 0;
  for (let i = 0; i < end; i++) {
    crc ^= data[i];
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc & 0xffff;
}

/**
 * The Xing "Info" frame LAME writes first: a silent frame of the stream's own format whose
 * body says how many frames and bytes follow and, in the LAME tag, the encoder delay and the
 * padding at the end, so a gapless decoder gives back exactly `samples` samples.
 */
function infoFrame(firstHeader: Uint8Array, channels: number, audioFrames: number, audioBytes: number, samples: number): Uint8Array {
  // MPEG-1 Layer III at 44.1 kHz: 144 × bitrate / rate bytes (no padding slot)
  const size = Math.floor((144 * MP3_BITRATE_KBPS * 1000) / 44_100);
  const frame = new Uint8Array(size);
  frame.set(firstHeader.subarray(0, 4));
  frame[2] &= ~0x02; // no padding slot
  const sideInfo = channels === 1 ? 17 : 32;
  const view = new DataView(frame.buffer);
  let o = 4 + sideInfo;
  frame.set([0x49, 0x6e, 0x66, 0x6f], o); // "Info": the CBR spelling of "Xing"
  view.setUint32(o + 4, 0x0000000f); // frames, bytes, TOC and quality present
  view.setUint32(o + 8, audioFrames); // the audio frames, this one not counted (as LAME writes it)
  view.setUint32(o + 12, audioBytes + size);
  for (let i = 0; i < 100; i++) frame[o + 16 + i] = Math.min(255, Math.floor((i * 256) / 100)); // TOC of a CBR stream
  view.setUint32(o + 116, 0); // quality
  o += 120;
  // LAME tag
  frame.set(new TextEncoder().encode('LAME3.100'), o);
  frame[o + 9] = 0x01; // tag revision 0, CBR
  frame[o + 10] = 170; // lowpass 17 kHz / 100
  frame[o + 20] = MP3_BITRATE_KBPS; // (o+11 … o+19: peak, replay gains and flags left at zero)
  const padding = (audioFrames * SAMPLES_PER_FRAME - ENCODER_DELAY - samples) | 0;
  const delay = ENCODER_DELAY;
  frame[o + 21] = delay >> 4;
  frame[o + 22] = ((delay & 0x0f) << 4) | ((Math.max(0, padding) >> 8) & 0x0f);
  frame[o + 23] = Math.max(0, padding) & 0xff;
  view.setUint32(o + 28, audioBytes + size); // music length
  view.setUint16(o + 34, crc16(frame, o + 34)); // tag CRC over the frame's first 190 bytes
  return frame;
}

type WorkerMessage =
  | { type: 'progress'; id: number; fraction: number }
  | { type: 'done'; id: number; data: ArrayBuffer }
  | { type: 'error'; id: number; message: string };

interface Pending {
  /** The thread encoding it. */
  worker: Worker;
  onProgress?: (fraction: number) => void;
  resolve(data: Buffer): void;
  reject(error: Error): void;
}

let worker: Worker | undefined;
const pending = new Map<number, Pending>();
let lastId = 0;

function startWorker(): Worker {
  const started = new Worker(new URL('./mp3-worker.mjs', import.meta.url), { name: 'local-audio-mp3' });
  started.on('message', (message: WorkerMessage) => {
    const job = pending.get(message.id);
    if (!job) return;
    if (message.type === 'progress') return job.onProgress?.(message.fraction);
    settle(message.id);
    if (message.type === 'done') job.resolve(Buffer.from(message.data));
    else job.reject(new Error(`the MP3 encoder failed: ${message.message}`));
  });
  const fail = (error: Error) => {
    if (worker === started) worker = undefined;
    // only this thread's songs: a new thread may already encode others
    for (const [id, job] of [...pending.entries()]) {
      if (job.worker !== started) continue;
      pending.delete(id);
      job.reject(error);
    }
  };
  started.on('error', fail);
  started.on('exit', (code) => fail(new Error(`the MP3 encoder thread exited (code ${code})`)));
  started.unref();
  return started;
}

function settle(id: number): void {
  const job = pending.get(id);
  pending.delete(id);
  if (job && ![...pending.values()].some((p) => p.worker === job.worker)) job.worker.unref();
}

/** The MPEG frames of 16-bit samples, encoded on the encoder thread. */
function encodeFrames(channels: Int16Array[], sampleRate: number, options: { signal?: AbortSignal; onProgress?: (fraction: number) => void }): Promise<Buffer> {
  worker ??= startWorker();
  const target = worker;
  lastId += 1;
  const id = lastId;
  return new Promise<Buffer>((resolve, reject) => {
    const onAbort = () => {
      settle(id);
      // the thread may be stuck in this song (its job ran past its time limit): stop it; the
      // next song starts a new one (songs still queued on it fail with it)
      if (worker === target) worker = undefined;
      void target.terminate();
      reject(options.signal?.reason ?? new Error('aborted'));
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => options.signal?.removeEventListener('abort', onAbort);
    pending.set(id, {
      worker: target,
      onProgress: options.onProgress,
      resolve: (data) => {
        done();
        resolve(data);
      },
      reject: (error) => {
        done();
        reject(error);
      },
    });
    target.ref(); // a song in flight keeps the process alive
    const [left, right] = channels.map((c) => c.buffer as ArrayBuffer);
    target.postMessage({ id, sampleRate, kbps: MP3_BITRATE_KBPS, left, right }, right ? [left, right] : [left]);
  });
}

/** A 128 kbit/s MP3 of `pcm` (44.1 kHz, one or two channels); `signal` drops it. */
export async function encodeMp3(pcm: Pcm, options: { signal?: AbortSignal; onProgress?: (fraction: number) => void } = {}): Promise<Buffer> {
  if (pcm.sampleRate !== 44_100) throw new Error(`encodeMp3 takes 44.1 kHz audio, got ${pcm.sampleRate} Hz`);
  options.signal?.throwIfAborted();
  const channels = pcm.channels.slice(0, 2).map((c) => toInt16(c, 0, c.length));
  // read before the samples are handed over to the thread (their buffers move with them)
  const samples = channels[0].length;
  const count = channels.length;
  const audio = await encodeFrames(channels, pcm.sampleRate, options);
  if (audio.length < 4) throw new Error('the MP3 encoder produced no frames');
  return Buffer.concat([infoFrame(audio, count, countFrames(audio), audio.length, samples), audio]);
}

/** The MPEG-1 Layer III frames of a stream that starts on a frame (what the encoder wrote). */
function countFrames(audio: Buffer): number {
  const rates = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
  let frames = 0;
  for (let o = 0; o + 4 <= audio.length; frames++) {
    if (audio[o] !== 0xff || (audio[o + 1] & 0xe0) !== 0xe0) throw new Error(`no MPEG frame at byte ${o}`);
    const bitrate = rates[audio[o + 2] >> 4];
    if (!bitrate) throw new Error(`unexpected bitrate index at byte ${o}`);
    o += Math.floor((144 * bitrate * 1000) / 44_100) + ((audio[o + 2] >> 1) & 1);
  }
  return frames;
}

class Mp3DecodeError extends Error {}

/**
 * The samples of an MP3 (any MPEG audio layer), with the codec's delay trimmed: by the LAME tag
 * when the file has one (mpg123 reads it), else by LAME's usual 576 + 529 samples.
 */
export async function decodeMp3(data: Uint8Array): Promise<Pcm> {
  const decoder = new MPEGDecoder();
  await decoder.ready;
  try {
    const decoded = decoder.decode(data);
    if (decoded.samplesDecoded === 0) throw new Mp3DecodeError('no MPEG audio frame could be decoded');
    const trim = hasLameTag(data) ? 0 : Math.min(ENCODER_DELAY + DECODER_DELAY, decoded.samplesDecoded);
    return { sampleRate: decoded.sampleRate, channels: decoded.channelData.map((c) => c.slice(trim)) };
  } finally {
    decoder.free();
  }
}

/** Whether the first MPEG frame (after an ID3v2 tag) is a Xing/Info frame with a LAME tag. */
function hasLameTag(data: Uint8Array): boolean {
  let start = 0;
  if (data[0] === 0x49 && data[1] === 0x44 && data[2] === 0x33 && data.length > 10) {
    start = 10 + ((data[6] & 0x7f) << 21) + ((data[7] & 0x7f) << 14) + ((data[8] & 0x7f) << 7) + (data[9] & 0x7f);
  }
  const head = Buffer.from(data.buffer, data.byteOffset + start, Math.max(0, Math.min(400, data.length - start)));
  const tag = Math.max(head.indexOf('Xing'), head.indexOf('Info'));
  return tag > 0 && head.indexOf('LAME', tag) > 0;
}
