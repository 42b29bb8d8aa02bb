/**
 * @module From the words of a request to musical choices: the genre (tempo range, scales,
 * instruments, drum patterns, chord progressions), mood words that pull towards minor or
 * major and slower or faster, instrument words that pick the lead, and what the negative
 * prompt rules out. Everything left open is decided by the seed, so the same words and seed
 * always give the same choices. This is a rule table, not a model: it reads words, it does
 * not understand them.
 */
import type { HashStream } from '../local/random.ts';

export type Mode = 'major' | 'minor' | 'dorian' | 'mixolydian' | 'lydian' | 'phrygian';

export const SCALES: Readonly<Record<Mode, readonly number[]>> = {
  major: [0, 2, 4, 5, 7, 9, 11],
  minor: [0, 2, 3, 5, 7, 8, 10],
  dorian: [0, 2, 3, 5, 7, 9, 10],
  mixolydian: [0, 2, 4, 5, 7, 9, 10],
  lydian: [0, 2, 4, 6, 7, 9, 11],
  phrygian: [0, 1, 3, 5, 7, 8, 10],
};

const MINORISH: readonly Mode[] = ['minor', 'dorian', 'phrygian'];

export type Instrument = 'piano' | 'epiano' | 'guitar' | 'strings' | 'organ' | 'bell' | 'synth' | 'flute' | 'brass' | 'drive' | 'pad';
type BassKind = 'synth' | 'finger' | 'sub' | 'upright';
export type DrumKit = 'none' | 'pop' | 'rock' | 'four' | 'boombap' | 'trap' | 'jazz' | 'soft' | 'orchestral' | 'reggae';

interface Genre {
  name: string;
  words: readonly string[];
  bpm: readonly [number, number];
  modes: readonly Mode[];
  leads: readonly Instrument[];
  pads: readonly Instrument[];
  bass: BassKind;
  drums: DrumKit;
  /** 0 straight … 0.33 full triplet swing of the off-beat eighths. */
  swing: number;
  /** Chords as scale degrees (0 = the tonic), one per bar. */
  progressions: readonly (readonly number[])[];
  /** Reverb send, 0–1. */
  space: number;
  /** Chords with sevenths. */
  sevenths?: boolean;
  crackle?: boolean;
}

const GENRES: readonly Genre[] = [
  {
    name: 'pop',
    words: ['pop', 'catchy', 'radio', 'dance-pop', 'kpop', 'k-pop', 'synthpop'],
    bpm: [100, 124],
    modes: ['major', 'major', 'minor'],
    leads: ['synth', 'epiano', 'piano', 'guitar'],
    pads: ['pad', 'strings'],
    bass: 'synth',
    drums: 'pop',
    swing: 0,
    progressions: [
      [0, 4, 5, 3],
      [5, 3, 0, 4],
      [0, 5, 3, 4],
    ],
    space: 0.35,
  },
  {
    name: 'rock',
    words: ['rock', 'punk', 'metal', 'grunge', 'guitar', 'band', 'indie', 'alternative'],
    bpm: [110, 150],
    modes: ['minor', 'major', 'mixolydian'],
    leads: ['drive', 'guitar', 'organ'],
    pads: ['drive', 'organ'],
    bass: 'finger',
    drums: 'rock',
    swing: 0,
    progressions: [
      [0, 6, 5, 6],
      [0, 3, 4, 3],
      [0, 5, 3, 4],
    ],
    space: 0.25,
  },
  {
    name: 'jazz',
    words: ['jazz', 'swing', 'bebop', 'blues', 'bluesy', 'smooth', 'lounge', 'saxophone', 'sax', 'noir'],
    bpm: [88, 132],
    modes: ['dorian', 'mixolydian', 'major'],
    leads: ['epiano', 'brass', 'piano', 'flute'],
    pads: ['epiano', 'organ'],
    bass: 'upright',
    drums: 'jazz',
    swing: 0.28,
    progressions: [
      [1, 4, 0, 5],
      [0, 5, 1, 4],
      [0, 3, 0, 4],
    ],
    space: 0.3,
    sevenths: true,
  },
  {
    name: 'electronic',
    words: ['edm', 'electronic', 'techno', 'house', 'trance', 'club', 'rave', 'synthwave', 'dance', 'disco', 'cyberpunk', 'neon', 'dubstep'],
    bpm: [118, 132],
    modes: ['minor', 'minor', 'phrygian', 'dorian'],
    leads: ['synth', 'bell', 'synth'],
    pads: ['pad', 'pad', 'strings'],
    bass: 'synth',
    drums: 'four',
    swing: 0,
    progressions: [
      [0, 5, 2, 6],
      [0, 3, 5, 4],
      [0, 0, 5, 6],
    ],
    space: 0.45,
  },
  {
    name: 'hip hop',
    words: ['hip', 'hop', 'hiphop', 'hip-hop', 'rap', 'lofi', 'lo-fi', 'boom', 'bap', 'beats', 'study', 'chillhop'],
    bpm: [72, 94],
    modes: ['minor', 'dorian'],
    leads: ['epiano', 'piano', 'bell'],
    pads: ['epiano', 'pad'],
    bass: 'sub',
    drums: 'boombap',
    swing: 0.18,
    progressions: [
      [0, 5, 3, 4],
      [1, 4, 0, 0],
      [0, 3, 6, 5],
    ],
    space: 0.3,
    sevenths: true,
    crackle: true,
  },
  {
    name: 'trap',
    words: ['trap', 'drill', '808', 'phonk'],
    bpm: [130, 150],
    modes: ['minor', 'phrygian'],
    leads: ['bell', 'synth', 'flute'],
    pads: ['pad'],
    bass: 'sub',
    drums: 'trap',
    swing: 0,
    progressions: [
      [0, 5, 6, 4],
      [0, 1, 0, 6],
    ],
    space: 0.35,
  },
  {
    name: 'ambient',
    words: ['ambient', 'chill', 'calm', 'relax', 'relaxing', 'meditation', 'sleep', 'dreamy', 'ethereal', 'space', 'drone', 'peaceful'],
    bpm: [60, 84],
    modes: ['lydian', 'major', 'dorian'],
    leads: ['bell', 'flute', 'piano'],
    pads: ['pad', 'strings'],
    bass: 'sub',
    drums: 'soft',
    swing: 0,
    progressions: [
      [0, 3, 0, 4],
      [0, 5, 3, 3],
      [0, 1, 3, 0],
    ],
    space: 0.7,
  },
  {
    name: 'orchestral',
    words: ['orchestral', 'orchestra', 'cinematic', 'epic', 'classical', 'symphony', 'soundtrack', 'film', 'trailer', 'violin', 'cello', 'strings'],
    bpm: [70, 104],
    modes: ['minor', 'major'],
    leads: ['strings', 'brass', 'flute', 'piano'],
    pads: ['strings'],
    bass: 'upright',
    drums: 'orchestral',
    swing: 0,
    progressions: [
      [0, 5, 3, 4],
      [0, 3, 5, 4],
      [0, 6, 5, 4],
    ],
    space: 0.6,
  },
  {
    name: 'folk',
    words: ['folk', 'acoustic', 'country', 'campfire', 'ballad', 'singer-songwriter', 'bluegrass', 'americana'],
    bpm: [84, 118],
    modes: ['major', 'mixolydian', 'minor'],
    leads: ['guitar', 'flute', 'piano'],
    pads: ['guitar', 'organ'],
    bass: 'finger',
    drums: 'soft',
    swing: 0.08,
    progressions: [
      [0, 3, 0, 4],
      [0, 4, 5, 3],
      [0, 3, 4, 4],
    ],
    space: 0.3,
  },
  {
    name: 'reggae',
    words: ['reggae', 'ska', 'dub', 'island', 'caribbean', 'dancehall'],
    bpm: [70, 96],
    modes: ['major', 'minor'],
    leads: ['organ', 'guitar', 'brass'],
    pads: ['organ'],
    bass: 'finger',
    drums: 'reggae',
    swing: 0.12,
    progressions: [
      [0, 3, 0, 4],
      [0, 5, 3, 4],
    ],
    space: 0.35,
  },
];

const INSTRUMENT_WORDS: Readonly<Record<string, Instrument>> = {
  piano: 'piano',
  keys: 'epiano',
  rhodes: 'epiano',
  guitar: 'guitar',
  acoustic: 'guitar',
  violin: 'strings',
  cello: 'strings',
  strings: 'strings',
  orchestra: 'strings',
  organ: 'organ',
  bell: 'bell',
  bells: 'bell',
  chime: 'bell',
  chimes: 'bell',
  synth: 'synth',
  synthesizer: 'synth',
  flute: 'flute',
  whistle: 'flute',
  trumpet: 'brass',
  brass: 'brass',
  horn: 'brass',
  horns: 'brass',
  saxophone: 'brass',
  sax: 'brass',
  distorted: 'drive',
  electric: 'drive',
};

const MINOR_WORDS = [
  'sad',
  'melancholy',
  'melancholic',
  'dark',
  'lonely',
  'rain',
  'rainy',
  'night',
  'midnight',
  'cold',
  'winter',
  'grief',
  'tears',
  'broken',
  'moody',
  'haunting',
  'noir',
  'storm',
  'heartbreak',
];
const MAJOR_WORDS = [
  'happy',
  'joy',
  'joyful',
  'bright',
  'summer',
  'sunny',
  'sun',
  'love',
  'uplifting',
  'hopeful',
  'party',
  'celebration',
  'fun',
  'sweet',
  'morning',
  'spring',
];
const FAST_WORDS = ['fast', 'energetic', 'upbeat', 'party', 'run', 'running', 'workout', 'hype', 'intense', 'driving', 'aggressive', 'power', 'powerful'];
const SLOW_WORDS = ['slow', 'calm', 'gentle', 'soft', 'lullaby', 'sleep', 'ballad', 'lazy', 'quiet', 'tender'];
const DRUM_WORDS = ['drum', 'drums', 'percussion', 'beat', 'beats', 'kick'];

/** The words of a text, lower case, split on anything that is not a letter, digit, `-` or `'`. */
export function wordsOf(text: string | undefined): string[] {
  return (text ?? '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}'-]+/u)
    .filter(Boolean);
}

export interface StyleRequest {
  /** Prompt, tags, title: what the song should be like. */
  text: string;
  /** Udio's negative prompt: what it should not have. */
  negative?: string;
  /** 0–1: how strongly the words decide over the seed (Udio's prompt_strength). Default 1. */
  promptStrength?: number;
}

export interface Style {
  genre: string;
  bpm: number;
  /** MIDI note of the tonic in the bass octave's neighbourhood (e.g. 57 = A3). */
  tonic: number;
  mode: Mode;
  lead: Instrument;
  pad: Instrument;
  bass: BassKind;
  drums: DrumKit;
  swing: number;
  progressions: readonly (readonly number[])[];
  space: number;
  sevenths: boolean;
  crackle: boolean;
  /** 0–1: quieter and sparser below 0.5. */
  energy: number;
  /** The request words that decided something, for the result's note. */
  matched: string[];
}

const NOTE_NAMES = ['C', 'C#', 'D', 'D#', 'E', 'F', 'F#', 'G', 'G#', 'A', 'A#', 'B'];

export function keyName(style: Pick<Style, 'tonic' | 'mode'>): string {
  return `${NOTE_NAMES[style.tonic % 12]} ${style.mode}`;
}

const hits = (words: readonly string[], list: readonly string[]) => words.filter((w) => list.includes(w));

/** The style of a request: the words decide where they say something (as strongly as promptStrength), the stream the rest. */
export function chooseStyle(request: StyleRequest, stream: HashStream): Style {
  const words = wordsOf(request.text);
  const banned = new Set(wordsOf(request.negative));
  const strength = Math.min(1, Math.max(0, request.promptStrength ?? 1));
  // whether the words get their say on one decision: always at strength 1, about a third of the time at 0
  const heed = () => stream.next() < 0.35 + 0.65 * strength;
  const matched = new Set<string>();

  const scored = GENRES.filter((g) => !g.words.some((w) => banned.has(w) || banned.has(g.name)))
    .map((genre) => ({ genre, score: hits(words, genre.words).length }))
    .sort((a, b) => b.score - a.score);
  const pool = scored.length > 0 ? scored : GENRES.map((genre) => ({ genre, score: 0 }));
  let genre = stream.pick(pool).genre;
  if (pool[0].score > 0 && heed()) {
    genre = pool[0].genre;
    for (const w of hits(words, genre.words)) matched.add(w);
  }

  let mode = stream.pick(genre.modes);
  const minor = hits(words, MINOR_WORDS);
  const major = hits(words, MAJOR_WORDS);
  if (minor.length !== major.length && heed()) {
    const wantMinor = minor.length > major.length;
    const fitting = genre.modes.filter((m) => MINORISH.includes(m) === wantMinor);
    mode = fitting.length > 0 ? stream.pick(fitting) : wantMinor ? 'minor' : 'major';
    for (const w of wantMinor ? minor : major) matched.add(w);
  }

  let bpm = Math.round(genre.bpm[0] + (genre.bpm[1] - genre.bpm[0]) * stream.next());
  const fast = hits(words, FAST_WORDS);
  const slow = hits(words, SLOW_WORDS);
  if (fast.length !== slow.length && heed()) {
    bpm = Math.round(fast.length > slow.length ? Math.min(genre.bpm[1] + 12, bpm * 1.12) : Math.max(genre.bpm[0] - 10, bpm * 0.88));
    for (const w of fast.length > slow.length ? fast : slow) matched.add(w);
  }

  const allowed = (instrument: Instrument) => !Object.entries(INSTRUMENT_WORDS).some(([word, i]) => i === instrument && banned.has(word));
  const leads = genre.leads.filter(allowed);
  let lead: Instrument = leads.length > 0 ? stream.pick(leads) : 'piano';
  const named = words.map((w) => INSTRUMENT_WORDS[w]).filter((i): i is Instrument => i !== undefined && allowed(i));
  if (named.length > 0 && heed()) {
    lead = named[0];
    for (const w of words) if (INSTRUMENT_WORDS[w] === lead) matched.add(w);
  }
  const pads = genre.pads.filter((p) => allowed(p) && p !== lead);
  const pad: Instrument = pads.length > 0 ? stream.pick(pads) : 'pad';

  const drumsBanned = DRUM_WORDS.some((w) => banned.has(w)) || words.includes('a-cappella') || words.includes('acapella');
  const energy = Math.min(1, Math.max(0.15, 0.55 + 0.12 * (fast.length - slow.length) + (stream.next() - 0.5) * 0.2));
  return {
    genre: genre.name,
    bpm,
    tonic: 52 + stream.int(0, 11),
    mode,
    lead,
    pad,
    bass: genre.bass,
    drums: drumsBanned ? 'none' : genre.drums,
    swing: genre.swing,
    progressions: genre.progressions,
    space: genre.space,
    sevenths: genre.sevenths ?? false,
    crackle: (genre.crackle ?? false) && !banned.has('crackle') && !banned.has('vinyl'),
    energy,
    matched: [...matched],
  };
}
