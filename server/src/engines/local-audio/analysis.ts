/**
 * @module Listening to a song before continuing it (suno-extend): its tempo from the
 * autocorrelation of an onset-strength envelope, and its key from a chroma profile (FFT
 * magnitudes folded onto the twelve pitch classes) matched against the Krumhansl–Kessler key
 * profiles. Classic signal processing, real measurements of the audio given; good on steady
 * music with clear beats and harmony, a guess on anything else (then undefined).
 */
import type { Pcm } from './pcm.ts';

function monoOf(pcm: Pcm, from: number, to: number): Float32Array {
  const out = new Float32Array(Math.max(0, to - from));
  for (const channel of pcm.channels) for (let i = from; i < to; i++) out[i - from] += channel[i] / pcm.channels.length;
  return out;
}

/** Beats per minute of `pcm` between the sample indexes, or undefined without a clear pulse. */
export function estimateTempo(pcm: Pcm, from: number, to: number): number | undefined {
  const mono = monoOf(pcm, from, to);
  const hop = 512;
  const frames = Math.floor((mono.length - 1024) / hop);
  if (frames < 64) return undefined;
  const onset = new Float32Array(frames);
  let previous = 0;
  for (let f = 0; f < frames; f++) {
    let energy = 0;
    for (let i = f * hop; i < f * hop + 1024; i++) energy += mono[i] * mono[i];
    const level = Math.log(energy + 1e-6);
    onset[f] = f > 0 ? Math.max(0, level - previous) : 0;
    previous = level;
  }
  const mean = onset.reduce((a, b) => a + b, 0) / frames;
  for (let f = 0; f < frames; f++) onset[f] -= mean;
  const hopSeconds = hop / pcm.sampleRate;
  let best = { bpm: 0, score: -Infinity };
  let total = 0;
  let count = 0;
  for (let bpm = 60; bpm <= 180; bpm += 0.5) {
    const lag = 60 / bpm / hopSeconds;
    const lo = Math.floor(lag);
    const w = lag - lo;
    let sum = 0;
    for (let f = 0; f + lo + 1 < frames; f++) sum += onset[f] * (onset[f + lo] * (1 - w) + onset[f + lo + 1] * w);
    // a mild preference for the common 80–160 range settles octave ambiguities
    const prior = Math.exp(-0.5 * (Math.log2(bpm / 115) / 0.9) ** 2);
    const score = (sum / frames) * prior;
    total += score;
    count += 1;
    if (score > best.score) best = { bpm, score };
  }
  const average = total / count;
  return best.score > 0 && best.score > 1.5 * Math.max(average, 0) ? best.bpm : undefined;
}

/** In-place radix-2 FFT of (re, im), length a power of two. */
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j], re[i]];
      [im[i], im[j]] = [im[j], im[i]];
    }
  }
  for (let size = 2; size <= n; size <<= 1) {
    const angle = (-2 * Math.PI) / size;
    for (let start = 0; start < n; start += size) {
      for (let k = 0; k < size / 2; k++) {
        const cos = Math.cos(angle * k);
        const sin = Math.sin(angle * k);
        const a = start + k;
        const b = a + size / 2;
        const tr = re[b] * cos - im[b] * sin;
        const ti = re[b] * sin + im[b] * cos;
        re[b] = re[a] - tr;
        im[b] = im[a] - ti;
        re[a] += tr;
        im[a] += ti;
      }
    }
  }
}

const MAJOR_PROFILE = [6.35, 2.23, 3.48, 2.33, 4.38, 4.09, 2.52, 5.19, 2.39, 3.66, 2.29, 2.88];
const MINOR_PROFILE = [6.33, 2.68, 3.52, 5.38, 2.6, 3.53, 2.54, 4.75, 3.98, 2.69, 3.34, 3.17];

function correlation(a: readonly number[], b: readonly number[]): number {
  const ma = a.reduce((s, x) => s + x, 0) / a.length;
  const mb = b.reduce((s, x) => s + x, 0) / b.length;
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < a.length; i++) {
    num += (a[i] - ma) * (b[i] - mb);
    da += (a[i] - ma) ** 2;
    db += (b[i] - mb) ** 2;
  }
  return da && db ? num / Math.sqrt(da * db) : 0;
}

/** The key of `pcm` between the sample indexes (pitch class 0 = C), or undefined when nothing tonal is heard. */
export function estimateKey(pcm: Pcm, from: number, to: number): { pitchClass: number; mode: 'major' | 'minor' } | undefined {
  const mono = monoOf(pcm, from, to);
  const size = 4096;
  const chroma = new Array<number>(12).fill(0);
  const re = new Float64Array(size);
  const im = new Float64Array(size);
  const minBin = Math.ceil((55 * size) / pcm.sampleRate);
  const maxBin = Math.floor((2000 * size) / pcm.sampleRate);
  for (let start = 0; start + size <= mono.length; start += size) {
    for (let i = 0; i < size; i++) {
      re[i] = mono[start + i] * (0.5 - 0.5 * Math.cos((2 * Math.PI * i) / size));
      im[i] = 0;
    }
    fft(re, im);
    for (let bin = minBin; bin <= maxBin; bin++) {
      const frequency = (bin * pcm.sampleRate) / size;
      const pc = (((Math.round(12 * Math.log2(frequency / 440)) + 69) % 12) + 12) % 12;
      chroma[pc] += Math.hypot(re[bin], im[bin]);
    }
  }
  if (chroma.every((c) => c < 1e-3)) return undefined;
  let best = { pitchClass: 0, mode: 'major' as 'major' | 'minor', score: -Infinity };
  for (let tonic = 0; tonic < 12; tonic++) {
    const rotated = chroma.map((_, i) => chroma[(i + tonic) % 12]);
    for (const [mode, profile] of [
      ['major', MAJOR_PROFILE],
      ['minor', MINOR_PROFILE],
    ] as const) {
      const score = correlation(rotated, profile);
      if (score > best.score) best = { pitchClass: tonic, mode, score };
    }
  }
  return best.score > 0.3 ? { pitchClass: best.pitchClass, mode: best.mode } : undefined;
}
