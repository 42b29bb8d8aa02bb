/**
 * @module Decoded audio as the local audio engine handles it: float samples (−1…1), one array
 * per channel, and the few whole-buffer operations the engine needs (cut, join with a
 * crossfade, convert the rate and the channel count, measure the level).
 */

export interface Pcm {
  sampleRate: number;
  /** One array per channel, all of the same length. */
  channels: Float32Array[];
}

/** Every song this engine writes: CD rate, stereo. */
export const SAMPLE_RATE = 44_100;

export function pcmLength(pcm: Pcm): number {
  return pcm.channels[0]?.length ?? 0;
}

export function silence(seconds: number, sampleRate = SAMPLE_RATE, channels = 2): Pcm {
  const length = Math.max(0, Math.round(seconds * sampleRate));
  return { sampleRate, channels: Array.from({ length: channels }, () => new Float32Array(length)) };
}

/** Samples [start, end) of every channel (copies). */
export function slicePcm(pcm: Pcm, start: number, end: number): Pcm {
  return { sampleRate: pcm.sampleRate, channels: pcm.channels.map((c) => c.slice(start, end)) };
}

/** Stereo: a mono source on both sides, more than two channels mixed down (the first two kept as the sides). */
export function toStereo(pcm: Pcm): Pcm {
  const [left, right] = pcm.channels;
  if (pcm.channels.length === 1) return { sampleRate: pcm.sampleRate, channels: [left, left.slice()] };
  if (pcm.channels.length === 2) return pcm;
  return { sampleRate: pcm.sampleRate, channels: [left, right] };
}

/**
 * The same sound at another sample rate (cubic Hermite interpolation; no anti-alias filter,
 * enough for the rates uploads come in, 22.05–48 kHz, brought to 44.1 kHz).
 */
export function resample(pcm: Pcm, sampleRate: number): Pcm {
  if (pcm.sampleRate === sampleRate) return pcm;
  const ratio = pcm.sampleRate / sampleRate;
  const length = Math.floor(pcmLength(pcm) / ratio);
  const channels = pcm.channels.map((src) => {
    const out = new Float32Array(length);
    const last = src.length - 1;
    for (let i = 0; i < length; i++) {
      const x = i * ratio;
      const k = Math.floor(x);
      const t = x - k;
      const y0 = src[Math.max(k - 1, 0)];
      const y1 = src[k];
      const y2 = src[Math.min(k + 1, last)];
      const y3 = src[Math.min(k + 2, last)];
      const a = -0.5 * y0 + 1.5 * y1 - 1.5 * y2 + 0.5 * y3;
      const b = y0 - 2.5 * y1 + 2 * y2 - 0.5 * y3;
      const c = -0.5 * y0 + 0.5 * y2;
      out[i] = ((a * t + b) * t + c) * t + y1;
    }
    return out;
  });
  return { sampleRate, channels };
}

/**
 * `head` then `tail`, the tail starting right after the head; `fade` samples of `overlap`
 * (what followed the head in its source, if any) fade out under the tail's fade-in, so the
 * join does not click. The head's samples are kept exactly.
 */
export function joinPcm(head: Pcm, tail: Pcm, overlap: Pcm | undefined, fade: number): Pcm {
  const headLength = pcmLength(head);
  const tailLength = pcmLength(tail);
  const channels = head.channels.map((h, ch) => {
    const out = new Float32Array(headLength + tailLength);
    out.set(h, 0);
    const t = tail.channels[ch] ?? tail.channels[0];
    const o = overlap?.channels[ch] ?? overlap?.channels[0];
    for (let i = 0; i < tailLength; i++) {
      const w = i < fade ? i / fade : 1;
      const before = o && i < fade && i < o.length ? o[i] * (1 - w) : 0;
      out[headLength + i] = t[i] * w + before;
    }
    return out;
  });
  return { sampleRate: head.sampleRate, channels };
}

/** Root mean square level over all channels (0 for silence, ~0.7 for a full-scale sine). */
export function rmsOf(pcm: Pcm, start = 0, end = pcmLength(pcm)): number {
  let sum = 0;
  let n = 0;
  for (const channel of pcm.channels) {
    for (let i = start; i < end; i++) sum += channel[i] * channel[i];
    n += Math.max(0, end - start);
  }
  return n === 0 ? 0 : Math.sqrt(sum / n);
}
