/**
 * @module The synthesiser: renders a score into 44.1 kHz stereo. Every sound is computed
 * here from oscillators and noise, nothing sampled: additive piano and organ, two-operator FM
 * electric piano and bells, Karplus–Strong plucked strings (guitar), detuned band-limited saws
 * through filters (pads, strings, leads, brass, overdriven guitar), bass voices, drums from
 * pitch-swept sines and filtered noise bursts, and a formant "singer" (a glottal saw through
 * three vowel resonators) that sings the melody on the lyrics' vowels, words it cannot
 * pronounce. A Freeverb-style reverb and a soft limiter finish the mix. Noise comes from a
 * seeded generator, so a score and a seed always render to the same samples. Long loops yield
 * to the event loop every ~15 ms.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Pcm } from './pcm.ts';
import { type DrumHit, midiToHz, type NoteEvent, type Score, type SungSyllable, type Vowel } from './score.ts';

export interface RenderOptions {
  sampleRate: number;
  seed: number;
  /** Reverb send, 0–1. */
  space: number;
  /** 0–1, Udio's clarity: less reverb and a brighter mix as it rises. Default 0.5. */
  clarity?: number;
  /** 0–1, Udio's generation quality: pad voices per note (2–4) and reverb density. Default 0.75. */
  quality?: number;
  /** Level of the sung line, 0–1 (Udio's lyrics strength). Default 0.7. */
  vocalLevel?: number;
  /** A vinyl crackle bed (lo-fi). */
  crackle?: boolean;
  /** Fade in over the first 10 ms (off for a continuation, which is crossfaded instead). */
  fadeIn?: boolean;
  signal?: AbortSignal;
  onProgress?: (fraction: number) => void;
}

const TABLE_SIZE = 4096;
const SINE = Float32Array.from({ length: TABLE_SIZE + 1 }, (_, i) => Math.sin((2 * Math.PI * i) / TABLE_SIZE));

/** sin(2π·phase), phase in cycles. */
function sinc(phase: number): number {
  const x = (phase - Math.floor(phase)) * TABLE_SIZE;
  const i = x | 0;
  return SINE[i] + (SINE[i + 1] - SINE[i]) * (x - i);
}

/** PolyBLEP correction for a saw's jump (band-limits it enough for a synth). */
function blep(t: number, dt: number): number {
  if (t < dt) {
    const x = t / dt;
    return x + x - x * x - 1;
  }
  if (t > 1 - dt) {
    const x = (t - 1) / dt;
    return x * x + x + x + 1;
  }
  return 0;
}

/** A saw in −1…1 at `phase` (cycles) with increment `dt`. */
function saw(phase: number, dt: number): number {
  const p = phase - Math.floor(phase);
  return 2 * p - 1 - blep(p, dt);
}

/** mulberry32: fast seeded noise in −1…1. */
function noiseSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1;
  };
}

interface Bus {
  left: Float32Array;
  right: Float32Array;
  /** Reverb send (mono). */
  send: Float32Array;
  sampleRate: number;
  noise: () => number;
}

/** Constant-power pan gains. */
function panGains(pan: number): [number, number] {
  const angle = ((Math.max(-1, Math.min(1, pan)) + 1) * Math.PI) / 4;
  return [Math.cos(angle), Math.sin(angle)];
}

/** Release time per voice (seconds a note rings after its end). */
const RELEASE: Record<NoteEvent['voice'], number> = {
  piano: 0.35,
  epiano: 0.4,
  guitar: 0.5,
  strings: 0.45,
  pad: 0.7,
  organ: 0.08,
  bell: 1.6,
  synth: 0.15,
  flute: 0.12,
  brass: 0.12,
  drive: 0.12,
  'bass-synth': 0.05,
  'bass-finger': 0.08,
  'bass-sub': 0.08,
  'bass-upright': 0.1,
};

const SEND: Record<NoteEvent['voice'], number> = {
  piano: 0.35,
  epiano: 0.35,
  guitar: 0.3,
  strings: 0.55,
  pad: 0.6,
  organ: 0.3,
  bell: 0.6,
  synth: 0.35,
  flute: 0.45,
  brass: 0.35,
  drive: 0.2,
  'bass-synth': 0,
  'bass-finger': 0,
  'bass-sub': 0,
  'bass-upright': 0.05,
};

let scratch = new Float32Array(44_100 * 4);

/** A zeroed scratch buffer of at least `length` samples (one note at a time; reused). */
function scratchOf(length: number): Float32Array {
  if (scratch.length < length) scratch = new Float32Array(length);
  scratch.fill(0, 0, length);
  return scratch;
}

/** Per-sample factor that shrinks a level by e^-`rate` per second. */
const decayStep = (rate: number, sr: number) => Math.exp(-rate / sr);

/**
 * Adds a rendered note (`raw`, unenveloped) to the bus: a linear attack, full level until
 * `endSample`, then an exponential release (down by e^-5 over `release` seconds), panned.
 */
function mixNote(
  bus: Bus,
  raw: Float32Array,
  start: number,
  length: number,
  shape: { attack: number; endSample: number; release: number; gl: number; gr: number; gs: number },
): void {
  const { left, right, send, sampleRate: sr } = bus;
  const attack = Math.max(1, Math.round(shape.attack * sr));
  const fall = decayStep(5 / shape.release, sr);
  let off = 1;
  const { gl, gr, gs } = shape;
  for (let i = 0; i < length; i++) {
    if (i > shape.endSample) off *= fall;
    const x = raw[i] * off * (i < attack ? i / attack : 1);
    const k = start + i;
    left[k] += x * gl;
    right[k] += x * gr;
    send[k] += x * gs;
  }
}

/** Additive piano: six slightly stretched partials, the higher ones dying faster. */
function piano(out: Float32Array, length: number, f: number, sr: number): void {
  for (let k = 1; k <= 6; k++) {
    const inc = (f * k * Math.sqrt(1 + 0.0004 * k * k)) / sr;
    if (inc >= 0.5) break;
    const step = decayStep((1.1 + 0.7 * k) * (f / 262) ** 0.35, sr);
    let amp = 1 / k ** 1.3;
    let phase = 0;
    for (let i = 0; i < length; i++) {
      out[i] += sinc(phase) * amp;
      amp *= step;
      phase += inc;
    }
  }
}

/** Two-operator FM: an electric piano (1:1, with a tine) or a bell (1:3.5). */
function fm(out: Float32Array, length: number, f: number, sr: number, bell: boolean): void {
  const dt = f / sr;
  const ratio = bell ? 3.5 : 1;
  const indexStep = decayStep(bell ? 2 : 3, sr);
  const ampStep = decayStep(bell ? 1.2 : 1.3, sr);
  const tineStep = decayStep(25, sr);
  let index = bell ? 3 : 1.8;
  let amp = 1;
  let tine = 0.12;
  let phase = 0;
  let mod = 0;
  const floor = bell ? 0.2 : 0.25;
  for (let i = 0; i < length; i++) {
    let x = sinc(phase + ((index + floor) * sinc(mod)) / (2 * Math.PI)) * amp;
    if (!bell) x += tine * sinc(phase * 7);
    out[i] = x;
    phase += dt;
    mod += dt * ratio;
    index *= indexStep;
    amp *= ampStep;
    tine *= tineStep;
  }
}

/** Karplus–Strong: a noise burst circulating in a delay line one period long, averaged on each pass. */
function pluck(out: Float32Array, length: number, f: number, sr: number, endSample: number, noise: () => number): void {
  const period = Math.max(2, Math.round(sr / f));
  const line = new Float32Array(period);
  let smooth = 0;
  for (let i = 0; i < period; i++) {
    smooth += 0.5 * (noise() - smooth);
    line[i] = smooth;
  }
  const decay = 0.996 - 0.0000012 * f;
  let idx = 0;
  for (let i = 0; i < length; i++) {
    const next = idx + 1 === period ? 0 : idx + 1;
    const y = line[idx];
    line[idx] = (y + line[next]) * 0.5 * (i > endSample ? 0.9 : decay);
    idx = next;
    out[i] = y;
  }
}

/** Detuned band-limited saws through a two-pole low-pass: pads and (with vibrato) strings. */
function ensemble(out: Float32Array, length: number, f: number, sr: number, strings: boolean, voices: number, brightness: number): void {
  const cutoff = (strings ? 2600 : 1400) * (0.7 + 0.6 * brightness);
  for (let k = 0; k < voices; k++) {
    const detune = 1 + (k - (voices - 1) / 2) * 0.0045;
    const dt = (f * detune) / sr;
    let phase = k / voices;
    for (let i = 0; i < length; i++) {
      const vibrato = strings ? 1 + 0.003 * sinc((5.2 * i) / sr) * Math.min(1, i / (0.4 * sr)) : 1;
      out[i] += saw(phase, dt * vibrato) / voices;
      phase += dt * vibrato;
    }
  }
  let lp = 0;
  let lp2 = 0;
  for (let i = 0; i < length; i++) {
    const a = Math.min(1, (2 * Math.PI * cutoff * (strings ? 1 : 0.8 + 0.2 * sinc((0.3 * i) / sr))) / sr);
    lp += a * (out[i] - lp);
    lp2 += a * (lp - lp2);
    out[i] = lp2;
  }
}

const DRAWBARS = [1, 2, 3, 4, 6, 8];
const DRAWBAR_LEVELS = [1, 0.8, 0.5, 0.35, 0.25, 0.2];

function organ(out: Float32Array, length: number, f: number, sr: number): void {
  for (let k = 0; k < DRAWBARS.length; k++) {
    const inc = (f * DRAWBARS[k]) / sr;
    if (inc >= 0.5) break;
    let phase = 0;
    for (let i = 0; i < length; i++) {
      out[i] += sinc(phase) * DRAWBAR_LEVELS[k];
      phase += inc;
    }
  }
  for (let i = 0; i < length; i++) out[i] *= 1 + 0.1 * sinc((6 * i) / sr);
}

function flute(out: Float32Array, length: number, f: number, sr: number, noise: () => number): void {
  const dt = f / sr;
  let phase = 0;
  let lp = 0;
  for (let i = 0; i < length; i++) {
    const t = i / sr;
    const vibrato = 1 + 0.004 * sinc(5 * t) * Math.min(1, Math.max(0, (t - 0.2) / 0.3));
    const n = noise();
    lp += 0.3 * (n - lp);
    out[i] = sinc(phase) + 0.25 * sinc(2 * phase) + 0.08 * sinc(3 * phase) + (n - lp) * 0.2;
    phase += dt * vibrato;
  }
}

/** Saw leads: a bright synth, a swelling brass, or an overdriven power chord. */
function sawLead(out: Float32Array, length: number, f: number, sr: number, kind: 'synth' | 'brass' | 'drive', brightness: number): void {
  const dt = f / sr;
  let phase = 0;
  let phase2 = 0;
  let phase3 = 0;
  let lp = 0;
  let lp2 = 0;
  let sweep = 1;
  const sweepStep = decayStep(kind === 'brass' ? 12 : 5, sr);
  let body = 1;
  const bodyStep = decayStep(1.5, sr);
  for (let i = 0; i < length; i++) {
    let x: number;
    if (kind === 'drive') {
      x = Math.tanh((saw(phase, dt) + saw(phase2, dt * 1.5) + 0.5 * saw(phase3, dt * 0.5)) * 2.2);
      phase2 += dt * 1.5;
      phase3 += dt * 0.5;
    } else {
      x = 0.5 * (saw(phase, dt) + saw(phase2, dt * 1.003));
      phase2 += dt * 1.003;
    }
    phase += dt;
    const cutoff = kind === 'drive' ? 3200 : kind === 'brass' ? 500 + 2600 * (1 - sweep) * (0.55 + 0.45 * body) : 900 + 3200 * sweep * (0.6 + 0.8 * brightness);
    sweep *= sweepStep;
    body *= bodyStep;
    const a = Math.min(1, (2 * Math.PI * cutoff) / sr);
    lp += a * (x - lp);
    lp2 += a * (lp - lp2);
    out[i] = lp2;
  }
}

function synthBass(out: Float32Array, length: number, f: number, sr: number): void {
  const dt = f / sr;
  let phase = 0;
  let lp = 0;
  let sweep = 1;
  const step = decayStep(8, sr);
  for (let i = 0; i < length; i++) {
    const x = 0.6 * saw(phase, dt) + 0.5 * sinc(phase);
    phase += dt;
    const a = Math.min(1, (2 * Math.PI * (250 + 900 * sweep)) / sr);
    sweep *= step;
    lp += a * (x - lp);
    out[i] = lp;
  }
}

/** Finger, sub and upright basses: a few sine partials under a plucked (or, for the sub, long) decay. */
function sineBass(out: Float32Array, length: number, f: number, sr: number, kind: 'bass-finger' | 'bass-sub' | 'bass-upright', noise: () => number): void {
  const dt = f / sr;
  const sub = kind === 'bass-sub';
  const upright = kind === 'bass-upright';
  const step = decayStep(sub ? 0.8 : upright ? 4 : 2.5, sr);
  const thumpStep = decayStep(120, sr);
  let amp = 1;
  let thump = upright ? 0.15 : 0;
  let phase = 0;
  for (let i = 0; i < length; i++) {
    const x = sinc(phase) + (sub ? 0.15 : 0.35) * sinc(2 * phase) + (sub ? 0 : 0.12) * sinc(3 * phase);
    phase += dt;
    out[i] = x * amp + (thump > 1e-4 ? noise() * thump : 0);
    amp *= step;
    thump *= thumpStep;
  }
}

/** Level and attack (seconds) of each voice's raw wave in the mix. */
const VOICE_LEVEL: Record<NoteEvent['voice'], [number, number]> = {
  piano: [0.32, 0.004],
  epiano: [0.3, 0.003],
  bell: [0.3, 0.003],
  guitar: [0.7, 0.001],
  strings: [0.38, 0.25],
  pad: [0.38, 0.5],
  organ: [0.12, 0.01],
  flute: [0.3, 0.06],
  synth: [0.3, 0.006],
  brass: [0.3, 0.04],
  drive: [0.2, 0.006],
  'bass-synth': [0.55, 0.004],
  'bass-finger': [0.5, 0.005],
  'bass-sub': [0.5, 0.005],
  'bass-upright': [0.5, 0.005],
};

/** One note of a pitched voice, added to the bus. */
function renderNote(bus: Bus, note: NoteEvent, options: { space: number; quality: number; brightness: number }): void {
  const { sampleRate: sr } = bus;
  const f = midiToHz(note.midi);
  const release = RELEASE[note.voice];
  const start = Math.round(note.start * sr);
  const length = Math.min(Math.round((note.duration + release) * sr), bus.left.length - start);
  if (start < 0 || length <= 0) return;
  const endSample = Math.round(note.duration * sr);
  const out = scratchOf(length);
  switch (note.voice) {
    case 'piano':
      piano(out, length, f, sr);
      break;
    case 'epiano':
    case 'bell':
      fm(out, length, f, sr, note.voice === 'bell');
      break;
    case 'guitar':
      pluck(out, length, f, sr, endSample, bus.noise);
      break;
    case 'strings':
    case 'pad':
      ensemble(out, length, f, sr, note.voice === 'strings', 2 + Math.round(options.quality * 2), options.brightness);
      break;
    case 'organ':
      organ(out, length, f, sr);
      break;
    case 'flute':
      flute(out, length, f, sr, bus.noise);
      break;
    case 'synth':
    case 'brass':
    case 'drive':
      sawLead(out, length, f, sr, note.voice, options.brightness);
      break;
    case 'bass-synth':
      synthBass(out, length, f, sr);
      break;
    default:
      sineBass(out, length, f, sr, note.voice, bus.noise);
  }
  const [level, attack] = VOICE_LEVEL[note.voice];
  const [gl, gr] = panGains(note.pan);
  const gain = level * note.velocity;
  mixNote(bus, out, start, length, { attack, endSample, release, gl: gl * gain, gr: gr * gain, gs: SEND[note.voice] * options.space * gain });
}

const RIDE_FREQS = [205.3, 304.4, 369.6, 522.7, 540, 800];

const DRUM_SECONDS: Record<DrumHit['kind'], number> = {
  kick: 0.5,
  snare: 0.3,
  rim: 0.06,
  clap: 0.3,
  hat: 0.08,
  openhat: 0.45,
  ride: 1.1,
  crash: 1.6,
  shaker: 0.08,
  tom: 0.6,
};
const DRUM_PAN: Partial<Record<DrumHit['kind'], number>> = { hat: 0.3, openhat: 0.3, ride: -0.3, crash: -0.2, shaker: 0.4, tom: -0.15 };

/** One drum hit: pitch-swept sines (kick, tom), tone plus filtered noise (snare, rim, clap), noise (hats), square-wave metal (cymbals). */
function renderDrum(bus: Bus, hit: DrumHit): void {
  const { sampleRate: sr, noise } = bus;
  const start = Math.round(hit.start * sr);
  const length = Math.min(Math.round(DRUM_SECONDS[hit.kind] * sr), bus.left.length - start);
  if (start < 0 || length <= 0) return;
  const out = scratchOf(length);
  let phase = 0;
  let lp = 0;
  switch (hit.kind) {
    case 'kick':
    case 'tom': {
      const kick = hit.kind === 'kick';
      const sweepStep = decayStep(kick ? 35 : 10, sr);
      const ampStep = decayStep(kick ? 7 : 6, sr);
      const clickStep = decayStep(400, sr);
      let sweep = 1;
      let amp = kick ? 0.95 : 0.8;
      let click = kick ? 0.24 : 0;
      for (let i = 0; i < length; i++) {
        phase += (kick ? 45 + 110 * sweep : 90 + 40 * sweep) / sr;
        out[i] = sinc(phase) * amp + (click > 1e-4 ? noise() * click : 0);
        sweep *= sweepStep;
        amp *= ampStep;
        click *= clickStep;
      }
      break;
    }
    case 'snare':
    case 'rim': {
      const snare = hit.kind === 'snare';
      const toneStep = decayStep(snare ? 20 : 80, sr);
      const noiseStep = decayStep(snare ? 14 : 100, sr);
      let tone = snare ? 0.45 : 0.5;
      let hiss = snare ? 0.7 : 0.4;
      for (let i = 0; i < length; i++) {
        const n = noise();
        lp += 0.25 * (n - lp);
        phase += (snare ? 185 : 800) / sr;
        out[i] = tone * sinc(phase) + hiss * (n - lp);
        tone *= toneStep;
        hiss *= noiseStep;
      }
      break;
    }
    case 'clap': {
      const burst = Math.round(0.01 * sr);
      const tailStep = decayStep(12, sr);
      let tail = 0.42;
      for (let i = 0; i < length; i++) {
        const n = noise();
        lp += 0.25 * (n - lp);
        if (i >= 3 * burst) tail *= tailStep;
        out[i] = (n - lp) * (i < 3 * burst ? 0.7 * (1 - (i % burst) / burst) ** 2 : tail);
      }
      break;
    }
    case 'hat':
    case 'openhat':
    case 'shaker': {
      const step = decayStep(hit.kind === 'hat' ? 60 : hit.kind === 'openhat' ? 8 : 45, sr);
      const rise = hit.kind === 'shaker' ? Math.round(0.01 * sr) : 1;
      let amp = 0.45;
      for (let i = 0; i < length; i++) {
        const n = noise();
        lp += 0.45 * (n - lp);
        out[i] = (n - lp) * amp * (i < rise ? i / rise : 1);
        amp *= step;
      }
      break;
    }
    default: {
      // ride and crash: six detuned square waves (the 808's metal) and noise, high-passed
      const crash = hit.kind === 'crash';
      const step = decayStep(crash ? 2.2 : 3.5, sr);
      const phases = new Float64Array(RIDE_FREQS.length);
      let amp = 0.3;
      for (let i = 0; i < length; i++) {
        let metal = 0;
        for (let k = 0; k < RIDE_FREQS.length; k++) {
          phases[k] += (RIDE_FREQS[k] * 2) / sr;
          metal += phases[k] - Math.floor(phases[k]) < 0.5 ? 1 : -1;
        }
        const mix = metal / 6 + noise() * (crash ? 0.8 : 0.2);
        lp += 0.5 * (mix - lp);
        out[i] = (mix - lp) * amp;
        amp *= step;
      }
    }
  }
  const [gl, gr] = panGains(DRUM_PAN[hit.kind] ?? 0);
  const v = hit.velocity;
  mixNote(bus, out, start, length, { attack: 0, endSample: length, release: 1, gl: gl * v, gr: gr * v, gs: (hit.kind === 'kick' ? 0.02 : 0.18) * v });
}

/** Formant centre frequencies (F1, F2, F3) of sung vowels. */
const FORMANTS: Record<Vowel, readonly [number, number, number]> = {
  a: [800, 1150, 2900],
  e: [500, 1750, 2500],
  i: [300, 2250, 3000],
  o: [450, 800, 2830],
  u: [325, 700, 2530],
};
const FORMANT_GAINS = [1, 0.55, 0.3];
const FORMANT_WIDTHS = [80, 95, 120];

/** Two-pole band-pass (RBJ, 0 dB peak) state and coefficients. */
class BandPass {
  private b0 = 0;
  private a1 = 0;
  private a2 = 0;
  private x1 = 0;
  private x2 = 0;
  private y1 = 0;
  private y2 = 0;

  tune(frequency: number, width: number, sampleRate: number): void {
    const w0 = (2 * Math.PI * frequency) / sampleRate;
    const alpha = Math.sin(w0) / (2 * (frequency / width));
    const a0 = 1 + alpha;
    this.b0 = alpha / a0;
    this.a1 = (-2 * Math.cos(w0)) / a0;
    this.a2 = (1 - alpha) / a0;
  }

  step(x: number): number {
    const y = this.b0 * (x - this.x2) - this.a1 * this.y1 - this.a2 * this.y2;
    this.x2 = this.x1;
    this.x1 = x;
    this.y2 = this.y1;
    this.y1 = y;
    return y;
  }
}

/** The sung line: each syllable a glottal saw through three formant filters, its consonant a noise burst. */
async function renderVoice(bus: Bus, sung: readonly SungSyllable[], level: number, breathe: () => Promise<void>): Promise<void> {
  const { sampleRate: sr, left, right, send, noise } = bus;
  let previous: SungSyllable | undefined;
  for (const s of sung) {
    const start = Math.round(s.start * sr);
    const release = 0.07;
    const length = Math.min(Math.round((s.duration + release) * sr), left.length - start);
    if (start < 0 || length <= 0) continue;
    const target = midiToHz(s.midi);
    const from = previous && s.start - (previous.start + previous.duration) < 0.15 ? midiToHz(previous.midi) : target;
    const fromVowel = previous && s.start - (previous.start + previous.duration) < 0.15 ? FORMANTS[previous.vowel] : FORMANTS[s.vowel];
    const filters = [new BandPass(), new BandPass(), new BandPass()];
    const consonant = s.onset === 'fricative' ? 0.07 : s.onset === 'plosive' ? 0.015 : 0;
    const attack = s.onset === 'voiced' ? 0.05 : 0.025;
    let phase = 0;
    let hp = 0;
    for (let i = 0; i < length; i++) {
      const t = i / sr;
      if (i % 32 === 0) {
        const blend = Math.min(1, t / 0.06);
        for (let k = 0; k < 3; k++) filters[k].tune(fromVowel[k] + (FORMANTS[s.vowel][k] - fromVowel[k]) * blend, FORMANT_WIDTHS[k], sr);
      }
      const glide = Math.min(1, t / 0.05);
      const vibrato = 1 + 0.005 * sinc(5.5 * t) * Math.min(1, Math.max(0, (t - 0.15) / 0.2));
      const f0 = (from + (target - from) * glide) * vibrato;
      const dt = f0 / sr;
      const source = saw(phase, dt) + 0.04 * noise();
      phase += dt;
      let y = 0;
      for (let k = 0; k < 3; k++) y += filters[k].step(source) * FORMANT_GAINS[k];
      const voiced = t < consonant * 0.6 ? 0 : Math.min(1, (t - consonant * 0.6) / attack);
      const off = t <= s.duration ? 1 : Math.exp(-((t - s.duration) / release) * 5);
      let x = y * 2.2 * voiced * off;
      if (t < consonant) {
        const n = noise();
        hp += 0.35 * (n - hp);
        x += (n - hp) * (s.onset === 'fricative' ? 0.18 : 0.35) * (1 - t / consonant);
      }
      x *= s.velocity * level;
      const k = start + i;
      left[k] += x * 0.72;
      right[k] += x * 0.72;
      send[k] += x * 0.3;
    }
    previous = s;
    await breathe();
  }
}

/** Freeverb-style reverb of the send bus, added to both sides (decorrelated by their comb lengths). */
async function addReverb(bus: Bus, wet: number, density: number, signal?: AbortSignal): Promise<void> {
  const scale = bus.sampleRate / 44_100;
  const combLengths = [1116, 1188, 1277, 1356, 1422, 1491].slice(0, 4 + Math.round(density * 2));
  const gain = (wet * 0.12) / combLengths.length;
  const feedback = 0.84;
  const damp = 0.3;
  const length = bus.send.length;
  const wetSide = new Float32Array(length);
  for (const [side, spread] of [
    [bus.left, 0],
    [bus.right, 23],
  ] as const) {
    wetSide.fill(0);
    // parallel combs with damped feedback, each over the whole song
    for (const combLength of combLengths) {
      const buffer = new Float32Array(Math.round((combLength + spread) * scale));
      let index = 0;
      let store = 0;
      const input = bus.send;
      for (let i = 0; i < length; i++) {
        const y = buffer[index];
        store = y * (1 - damp) + store * damp;
        buffer[index] = input[i] + store * feedback;
        if (++index === buffer.length) index = 0;
        wetSide[i] += y;
      }
      await yieldToEventLoop();
      signal?.throwIfAborted();
    }
    // then two allpasses in series
    for (const allpassLength of [556, 441]) {
      const buffer = new Float32Array(Math.round((allpassLength + spread) * scale));
      let index = 0;
      for (let i = 0; i < length; i++) {
        const buffered = buffer[index];
        const x = wetSide[i];
        buffer[index] = x + buffered * 0.5;
        if (++index === buffer.length) index = 0;
        wetSide[i] = buffered - x;
      }
    }
    for (let i = 0; i < length; i++) side[i] += wetSide[i] * gain;
  }
}

function addCrackle(bus: Bus): void {
  const { left, right, noise, sampleRate: sr } = bus;
  let lp = 0;
  for (let i = 0; i < left.length; i++) {
    const n = noise();
    lp += 0.05 * (n - lp);
    let x = lp * 0.012;
    // about eight clicks a second
    if (noise() > 1 - (2 * 8) / sr) x += noise() * 0.12;
    left[i] += x;
    right[i] += x;
  }
}

/** Loudness to about −16 dBFS RMS, peaks over 0.75 bent softly under 0.95, then the fades. */
function master(bus: Bus, fadeIn: boolean): void {
  const { left, right, sampleRate: sr } = bus;
  let sum = 0;
  for (let i = 0; i < left.length; i++) sum += left[i] * left[i] + right[i] * right[i];
  const rms = Math.sqrt(sum / Math.max(1, 2 * left.length));
  const gain = rms > 1e-6 ? 0.16 / rms : 1;
  const fadeOut = Math.min(left.length, Math.round(1.2 * sr));
  const fadeInLength = fadeIn ? Math.round(0.01 * sr) : 0;
  let dcL = 0;
  let dcR = 0;
  const dcA = (2 * Math.PI * 20) / sr;
  for (const [channel, isLeft] of [
    [left, true],
    [right, false],
  ] as const) {
    for (let i = 0; i < channel.length; i++) {
      let x = channel[i] * gain;
      // a 20 Hz high-pass against any DC the voices leave
      if (isLeft) {
        dcL += dcA * (x - dcL);
        x -= dcL;
      } else {
        dcR += dcA * (x - dcR);
        x -= dcR;
      }
      const a = Math.abs(x);
      if (a > 0.75) x = Math.sign(x) * (0.75 + 0.2 * Math.tanh((a - 0.75) / 0.2));
      if (i < fadeInLength) x *= i / fadeInLength;
      const fromEnd = channel.length - 1 - i;
      if (fromEnd < fadeOut) x *= fromEnd / fadeOut;
      channel[i] = x;
    }
  }
}

/** The score as stereo samples at `options.sampleRate`, exactly `score.duration` seconds long. */
export async function renderScore(score: Score, options: RenderOptions): Promise<Pcm> {
  const sr = options.sampleRate;
  const length = Math.round(score.duration * sr);
  const bus: Bus = {
    left: new Float32Array(length),
    right: new Float32Array(length),
    send: new Float32Array(length),
    sampleRate: sr,
    noise: noiseSource(options.seed),
  };
  const clarity = options.clarity ?? 0.5;
  const quality = options.quality ?? 0.75;
  const voice = { space: options.space * (1.3 - 0.6 * clarity), quality, brightness: clarity };
  const total = score.notes.length + score.drums.length + score.sung.length + 1;
  let done = 0;
  let last = performance.now();
  const breathe = async () => {
    done += 1;
    if (performance.now() - last > 15) {
      options.onProgress?.(0.85 * (done / total));
      await yieldToEventLoop();
      options.signal?.throwIfAborted();
      last = performance.now();
    }
  };
  for (const note of score.notes) {
    renderNote(bus, note, voice);
    await breathe();
  }
  for (const hit of score.drums) {
    renderDrum(bus, hit);
    await breathe();
  }
  await renderVoice(bus, score.sung, options.vocalLevel ?? 0.7, breathe);
  if (options.crackle) addCrackle(bus);
  await addReverb(bus, voice.space, quality, options.signal);
  master(bus, options.fadeIn ?? true);
  options.onProgress?.(1);
  return { sampleRate: sr, channels: [bus.left, bus.right] };
}
