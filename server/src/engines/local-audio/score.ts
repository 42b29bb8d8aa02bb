/**
 * @module The score of a song: from a style and a seed, a form (intro, verses and choruses,
 * outro) filling the asked length in whole bars, a chord per bar from the genre's
 * progressions, and on that a bass line, chords (held or strummed), a melody made of a
 * two-bar motif and its variation per section, drum patterns per kit, and, when there are
 * words to sing, the melody's notes handed out one syllable each. Times are in seconds.
 */
import type { HashStream } from '../local/random.ts';
import { type DrumKit, type Instrument, SCALES, type Style } from './style.ts';

type Voice = Instrument | 'bass-synth' | 'bass-finger' | 'bass-sub' | 'bass-upright';

export interface NoteEvent {
  voice: Voice;
  start: number;
  duration: number;
  midi: number;
  velocity: number;
  /** −1 left … 1 right. */
  pan: number;
}

type DrumKind = 'kick' | 'snare' | 'rim' | 'clap' | 'hat' | 'openhat' | 'ride' | 'crash' | 'shaker' | 'tom';

export interface DrumHit {
  kind: DrumKind;
  start: number;
  velocity: number;
}

export type Vowel = 'a' | 'e' | 'i' | 'o' | 'u';
type Onset = 'fricative' | 'plosive' | 'voiced' | 'none';

export interface SungSyllable {
  start: number;
  duration: number;
  midi: number;
  vowel: Vowel;
  onset: Onset;
  velocity: number;
}

export interface Syllable {
  vowel: Vowel;
  onset: Onset;
}

interface Section {
  name: 'intro' | 'verse' | 'chorus' | 'bridge' | 'outro';
  start: number;
  bars: number;
}

export interface Score {
  /** Seconds of music written (the render adds nothing; the last bar rings into the end). */
  duration: number;
  notes: NoteEvent[];
  drums: DrumHit[];
  sung: SungSyllable[];
  sections: Section[];
}

export interface ScoreRequest {
  style: Style;
  /** Length of the song in seconds (the form fills it with whole bars; the rest rings out). */
  seconds: number;
  /** Syllables to sing, in order (none: instrumental). */
  syllables: readonly Syllable[];
  /** Only sections starting inside this window (seconds) get words (Udio's lyrics placement). */
  lyricsWindow?: { start: number; end: number };
  /** Begin on a chorus (a continuation picks up mid-song). */
  continuation?: boolean;
}

const SECTION_ENERGY: Record<Section['name'], number> = { intro: 0.55, verse: 0.75, chorus: 1, bridge: 0.7, outro: 0.6 };

/** 16 steps per bar: velocity per step (0 = no hit). */
type Pattern = Partial<Record<DrumKind, readonly number[]>>;

const steps = (hits: Record<number, number>) => Array.from({ length: 16 }, (_, i) => hits[i] ?? 0);
const every = (step: number, velocity: number, offset = 0) => Array.from({ length: 16 }, (_, i) => (i % step === offset ? velocity : 0));

const PATTERNS: Readonly<Record<Exclude<DrumKit, 'none'>, Pattern>> = {
  pop: { kick: steps({ 0: 1, 8: 0.9, 10: 0.7 }), snare: steps({ 4: 0.9, 12: 0.95 }), hat: every(2, 0.45) },
  rock: { kick: steps({ 0: 1, 6: 0.8, 8: 1, 10: 0.8 }), snare: steps({ 4: 1, 12: 1 }), hat: every(2, 0.6) },
  four: { kick: every(4, 1), clap: steps({ 4: 0.8, 12: 0.8 }), openhat: every(4, 0.45, 2), hat: every(2, 0.25, 1) },
  boombap: { kick: steps({ 0: 1, 7: 0.7, 10: 0.85 }), snare: steps({ 4: 0.95, 12: 0.95 }), hat: every(2, 0.4) },
  trap: { kick: steps({ 0: 1, 10: 0.9 }), snare: steps({ 8: 1 }), hat: every(1, 0.3) },
  jazz: { ride: steps({ 0: 0.6, 4: 0.6, 7: 0.45, 8: 0.6, 12: 0.6, 15: 0.45 }), hat: steps({ 4: 0.3, 12: 0.3 }), kick: steps({ 0: 0.25 }) },
  soft: { kick: steps({ 0: 0.6, 8: 0.45 }), shaker: every(2, 0.25), rim: steps({ 12: 0.35 }) },
  orchestral: { tom: steps({ 0: 0.9, 8: 0.6 }), crash: steps({}) },
  reggae: { kick: steps({ 8: 1 }), rim: steps({ 8: 0.8 }), hat: every(2, 0.35) },
};

/** Eighth-note rhythms of a two-bar phrase (16 eighths), 0 = a rest of one eighth. */
const RHYTHMS: readonly (readonly number[])[] = [
  [2, 2, 1, 1, 2, 2, 2, 0, 2, 2],
  [1, 1, 2, 2, 2, 0, 1, 1, 2, 4],
  [3, 1, 2, 2, 3, 1, 4],
  [2, 1, 1, 2, 2, 1, 1, 2, 0, 0, 4],
  [1, 1, 1, 1, 2, 2, 1, 1, 1, 1, 4],
  [4, 2, 2, 4, 2, 2],
];

export function midiToHz(midi: number): number {
  return 440 * 2 ** ((midi - 69) / 12);
}

/** The MIDI note of scale degree `degree` (0 = tonic, 7 = the octave above) above `tonic`. */
function degreeToMidi(style: Style, degree: number): number {
  const scale = SCALES[style.mode];
  const octave = Math.floor(degree / scale.length);
  const step = ((degree % scale.length) + scale.length) % scale.length;
  return style.tonic + 12 * octave + scale[step];
}

function chordDegrees(style: Style, root: number): number[] {
  return style.sevenths ? [root, root + 2, root + 4, root + 6] : [root, root + 2, root + 4];
}

function layOutSections(bars: number, bar: number, stream: HashStream, continuation: boolean): Section[] {
  const sections: Section[] = [];
  let at = 0;
  const add = (name: Section['name'], count: number) => {
    const n = Math.min(count, bars - at);
    if (n > 0) sections.push({ name, start: at * bar, bars: n });
    at += n;
  };
  const outro = bars >= 10 ? 2 : bars >= 6 ? 1 : 0;
  if (!continuation) add('intro', bars >= 12 ? 2 : 1);
  let next: Section['name'] = continuation ? 'chorus' : 'verse';
  let choruses = 0;
  while (at < bars - outro) {
    const room = bars - outro - at;
    const length = room >= 8 && next === 'verse' && stream.next() < 0.4 ? 8 : 4;
    if (next === 'chorus') choruses += 1;
    add(choruses === 2 && next === 'verse' && stream.next() < 0.5 ? 'bridge' : next, Math.min(length, room));
    next = next === 'chorus' ? 'verse' : 'chorus';
  }
  add('outro', outro);
  return sections;
}

/** A two-bar phrase: onsets (in eighths from its start), lengths and scale degrees. */
function motif(style: Style, stream: HashStream, chords: number[], lift: number): { at: number; length: number; degree: number }[] {
  const rhythm = stream.pick(RHYTHMS);
  const notes: { at: number; length: number; degree: number }[] = [];
  let at = 0;
  let degree = 7 + lift + stream.int(-2, 2);
  for (const length of rhythm) {
    if (length === 0) {
      at += 1;
      continue;
    }
    degree += stream.pick([-2, -1, -1, 0, 1, 1, 2, 3, -3]);
    degree = Math.min(13 + lift, Math.max(3 + lift, degree));
    // on a strong beat, the nearest tone of the bar's chord
    if (at % 4 === 0) {
      const chord = chordDegrees(style, chords[Math.floor(at / 8) % chords.length]).map((d) => d + 7 * Math.round((degree - d) / 7));
      degree = chord.reduce((best, d) => (Math.abs(d - degree) < Math.abs(best - degree) ? d : best), chord[0]);
    }
    notes.push({ at, length, degree });
    at += length;
  }
  return notes;
}

const BASS_VOICE: Record<Style['bass'], Voice> = { synth: 'bass-synth', finger: 'bass-finger', sub: 'bass-sub', upright: 'bass-upright' };
const STRUMMED: readonly Instrument[] = ['guitar', 'piano', 'epiano', 'organ', 'drive'];

export function writeScore(request: ScoreRequest, stream: HashStream): Score {
  const { style } = request;
  const beat = 60 / style.bpm;
  const bar = 4 * beat;
  // whole bars, leaving the last bar's chord about a bar to ring out before the end
  const bars = Math.max(2, Math.floor(request.seconds / bar) - 1);
  const sections = layOutSections(bars, bar, stream, request.continuation ?? false);
  const notes: NoteEvent[] = [];
  const drums: DrumHit[] = [];
  const sung: SungSyllable[] = [];
  const swingAt = (eighths: number) => (eighths % 2 === 1 ? style.swing * (beat / 2) : 0);
  const jitter = () => (stream.next() - 0.5) * 0.01;
  const vel = (v: number) => Math.min(1, Math.max(0.05, v * (0.92 + stream.next() * 0.16)));

  const verseChords = stream.pick(style.progressions);
  const chorusChords = stream.pick(style.progressions);
  const themes = { verse: motif(style, stream, [...verseChords], 0), chorus: motif(style, stream, [...chorusChords], 2) };
  let syllable = 0;

  for (const section of sections) {
    const chords = section.name === 'chorus' ? chorusChords : verseChords;
    const energy = SECTION_ENERGY[section.name] * (0.6 + 0.4 * style.energy);
    const window = request.lyricsWindow;
    const sings =
      (section.name === 'verse' || section.name === 'chorus' || section.name === 'bridge') &&
      syllable < request.syllables.length &&
      (!window || (section.start >= window.start - 0.01 && section.start < window.end));
    for (let b = 0; b < section.bars; b++) {
      const barStart = section.start + b * bar;
      const root = chords[b % chords.length];
      const chord = chordDegrees(style, root);
      // chords: held pads, or strummed/comped on the beats
      if (STRUMMED.includes(style.pad)) {
        const hits = style.drums === 'reggae' ? [1, 3, 5, 7] : style.pad === 'guitar' ? [0, 2, 3, 4, 6] : [0, 4];
        for (const h of hits) {
          chord.forEach((d, i) => {
            notes.push({
              voice: style.pad,
              start: barStart + h * (beat / 2) + swingAt(h) + i * (style.pad === 'guitar' ? 0.012 : 0.004),
              duration: beat * (style.drums === 'reggae' ? 0.4 : 1.8),
              midi: degreeToMidi(style, d + 7),
              velocity: vel(0.32 * energy),
              pan: style.pad === 'guitar' ? -0.35 : 0.25,
            });
          });
        }
      } else {
        chord.forEach((d, i) => {
          notes.push({
            voice: style.pad,
            start: barStart,
            duration: bar * 1.02,
            midi: degreeToMidi(style, d + 7),
            velocity: vel(0.22 * energy),
            pan: i % 2 ? 0.4 : -0.4,
          });
        });
      }
      // bass
      const rootMidi = degreeToMidi(style, root) - 12;
      const bassVoice = BASS_VOICE[style.bass];
      const bassLine: [number, number, number][] =
        style.bass === 'upright'
          ? [0, 1, 2, 3].map((q) => [q * 2, 2, q === 0 ? rootMidi : degreeToMidi(style, root + stream.pick([1, 2, 4, -1])) - 12])
          : style.drums === 'four'
            ? [1, 3, 5, 7].map((e) => [e, 1, rootMidi])
            : style.drums === 'rock' || style.drums === 'pop'
              ? [0, 1, 2, 3, 4, 5, 6, 7].map((e) => [e, 1, rootMidi])
              : style.drums === 'soft' || style.drums === 'none' || style.drums === 'orchestral'
                ? [[0, 8, rootMidi]]
                : [
                    [0, 3, rootMidi],
                    [3, 1, rootMidi],
                    [5, 3, degreeToMidi(style, root + 4) - 12],
                  ];
      for (const [e, len, midi] of bassLine) {
        if (section.name === 'intro' && e > 0) continue;
        notes.push({
          voice: bassVoice,
          start: barStart + e * (beat / 2) + swingAt(e),
          duration: len * (beat / 2) * 0.92,
          midi,
          velocity: vel(0.7 * energy),
          pan: 0,
        });
      }
      // drums
      if (style.drums !== 'none' && !(section.name === 'intro' && b === 0 && style.drums !== 'four')) {
        const pattern = PATTERNS[style.drums];
        const lastBar = b === section.bars - 1 && section.name !== 'outro';
        for (const [kind, row] of Object.entries(pattern) as [DrumKind, readonly number[]][]) {
          row.forEach((v, step) => {
            if (!v) return;
            if (section.name === 'intro' && (kind === 'kick' || kind === 'snare') && style.drums !== 'four') return;
            if (lastBar && step >= 12 && kind !== 'hat') return;
            drums.push({
              kind,
              start: barStart + step * (beat / 4) + swingAt(step / 2) * (step % 2 === 0 ? 1 : 0) + jitter() * 0.3,
              velocity: vel(v * energy),
            });
          });
        }
        if (lastBar) {
          // a fill into the next section
          for (let s = 12; s < 16; s++)
            drums.push({ kind: style.drums === 'orchestral' ? 'tom' : 'snare', start: barStart + s * (beat / 4), velocity: vel(0.4 + 0.12 * (s - 12)) });
        }
        if (b === 0 && section.name === 'chorus') drums.push({ kind: 'crash', start: barStart, velocity: vel(0.7) });
      }
    }
    // melody: the section's theme, repeated every two bars with a varied ending
    const theme = section.name === 'chorus' ? themes.chorus : themes.verse;
    const melodyVoice: Instrument = style.lead;
    for (let phrase = 0; phrase * 2 < section.bars; phrase++) {
      if (section.name === 'intro' || (section.name === 'outro' && phrase > 0)) break;
      const phraseStart = section.start + phrase * 2 * bar;
      theme.forEach((n, i) => {
        const varied = phrase % 2 === 1 && i >= theme.length - 2 ? n.degree + stream.pick([-2, -1, 1, 2]) : n.degree;
        const start = phraseStart + n.at * (beat / 2) + swingAt(n.at);
        if (start >= section.start + section.bars * bar - 0.01) return;
        const duration = Math.max(0.08, n.length * (beat / 2) * 0.95);
        const midi = degreeToMidi(style, varied) + (section.name === 'outro' ? -12 : 0);
        if (sings && syllable < request.syllables.length) {
          const s = request.syllables[syllable++];
          sung.push({ start: start + jitter(), duration, midi, vowel: s.vowel, onset: s.onset, velocity: vel(0.8 * (0.85 + 0.15 * energy)) });
        } else if (!sings) {
          notes.push({ voice: melodyVoice, start: start + jitter(), duration, midi, velocity: vel(0.55 * energy + 0.15), pan: 0.1 });
        }
      });
    }
    // the outro ends on the tonic chord, held
    if (section.name === 'outro') {
      const end = section.start + section.bars * bar;
      for (const d of chordDegrees(style, 0))
        notes.push({ voice: style.pad, start: end, duration: bar, midi: degreeToMidi(style, d + 7), velocity: vel(0.25), pan: 0 });
      notes.push({ voice: BASS_VOICE[style.bass], start: end, duration: bar, midi: style.tonic - 12, velocity: vel(0.6), pan: 0 });
    }
  }
  return { duration: request.seconds, notes, drums, sung, sections };
}

/** Syllables of sung text: each group of vowels with the consonants before it; bracketed tags and blank lines skipped. */
export function syllablesOf(lyrics: string): Syllable[] {
  const out: Syllable[] = [];
  for (const line of lyrics.split('\n')) {
    if (/^\s*[[(]/.test(line)) continue;
    for (const word of line.toLowerCase().match(/\p{L}+/gu) ?? []) {
      for (const part of word.match(/[^aeiouyàáâäèéêëìíîïòóôöùúûü]*[aeiouyàáâäèéêëìíîïòóôöùúûü]+/g) ?? []) {
        const consonant = /^[^aeiouyàáâäèéêëìíîïòóôöùúûü]*/.exec(part)?.[0] ?? '';
        const vowelLetter = part.slice(consonant.length, consonant.length + 1).normalize('NFD')[0];
        const vowel: Vowel = vowelLetter === 'y' ? 'i' : ((['a', 'e', 'i', 'o', 'u'].includes(vowelLetter) ? vowelLetter : 'a') as Vowel);
        const c = consonant[0];
        const onset: Onset = !c ? 'none' : 'sfzxch'.includes(c) ? 'fricative' : 'ptkbdgq'.includes(c) ? 'plosive' : 'voiced';
        out.push({ vowel, onset });
      }
    }
  }
  return out;
}
