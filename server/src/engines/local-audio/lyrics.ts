/**
 * @module Simulated lyrics: verses and a chorus filled in from line templates with the
 * request's own words and rhyming line ends, chosen by the seed, so the same request and seed
 * always give the same text. The first line says they are simulated. No language model is
 * involved; the words are the prompt's, the grammar is the templates'.
 */
import { HashStream } from '../local/random.ts';
import { wordsOf } from './style.ts';

export const SIMULATED_LYRICS_LABEL = '[Simulated lyrics: written by a template from the prompt, not by a language model]';

const STOP_WORDS = new Set(
  'a an the and or but of in on at to for with from by about into over under is are was were be been being it its this that these those my your our their his her me you we they i he she them us as so very really song music track tune beat style vibe about make made like feat featuring genre mood'.split(
    ' ',
  ),
);

const RHYMES: readonly (readonly string[])[] = [
  ['night', 'light', 'bright', 'tonight', 'sight', 'flight'],
  ['heart', 'start', 'apart', 'art', 'dark'],
  ['sky', 'high', 'fly', 'why', 'goodbye', 'by'],
  ['away', 'stay', 'day', 'say', 'play', 'gray'],
  ['fire', 'higher', 'desire', 'wire'],
  ['rain', 'again', 'pain', 'remain', 'lane', 'train'],
  ['sea', 'free', 'me', 'be', 'see'],
  ['home', 'alone', 'own', 'stone', 'known'],
];

/** Line templates: {A} and {B} are the request's words, the line ends on a rhyme. */
const VERSE_LINES = [
  'Walking through the {A} on my own, I',
  'Every {A} I ever knew is calling me to',
  'There is a {A} inside the {B} tonight and',
  'I hear the {A} and the {B} when you',
  'Underneath the {A} we were chasing the',
  'Tell me all about the {A}, tell me what you',
  'Counting every {B} until the',
  'Holding on to {A} and the {B} that we',
];
const CHORUS_LINES = [
  'Oh {A}, take me to the',
  'We are the {A}, we are the',
  '{A}, {A}, carry me',
  'Sing it loud for the {B} and the',
  'All of the {A} is burning',
];

const titleCase = (text: string) => text.replace(/\b\p{L}/gu, (c) => c.toUpperCase());

/** The content words of a text, in order, each once: what the templates sing about. */
function topicWords(text: string): string[] {
  const seen = new Set<string>();
  return wordsOf(text).filter((w) => w.length >= 3 && !STOP_WORDS.has(w) && !/^\d+$/.test(w) && !seen.has(w) && seen.add(w));
}

/** A title from the request's words ('Neon Rain'), or a fallback. */
export function titleFrom(text: string, stream: HashStream): string {
  const words = topicWords(text);
  if (words.length === 0) return stream.pick(['Untitled Song', 'Night Drive', 'Open Road', 'Paper Moon']);
  return titleCase(words.slice(0, Math.min(words.length, stream.int(1, 3))).join(' '));
}

function line(template: string, stream: HashStream, words: string[], rhyme: string): string {
  const a = words.length > 0 ? stream.pick(words) : 'dream';
  const b = words.length > 1 ? stream.pick(words.filter((w) => w !== a)) : 'night';
  const text = template.replaceAll('{A}', a).replaceAll('{B}', b);
  return `${text.charAt(0).toUpperCase()}${text.slice(1)} ${rhyme}`;
}

function stanza(templates: readonly string[], stream: HashStream, words: string[], count: number): string[] {
  const family = stream.pick(RHYMES);
  return Array.from({ length: count }, () => line(stream.pick(templates), stream, words, stream.pick(family)));
}

/** Labelled simulated lyrics (verse, chorus, verse, chorus) about the words of `text`. */
export function writeLyrics(text: string, seed: number): { title: string; lyrics: string } {
  const stream = new HashStream('local-audio-lyrics', text, seed);
  const words = topicWords(text);
  const title = titleFrom(text, stream);
  const chorus = stanza(CHORUS_LINES, stream, words, 4);
  const parts = [
    SIMULATED_LYRICS_LABEL,
    '',
    '[Verse 1]',
    ...stanza(VERSE_LINES, stream, words, 4),
    '',
    '[Chorus]',
    ...chorus,
    '',
    '[Verse 2]',
    ...stanza(VERSE_LINES, stream, words, 4),
    '',
    '[Chorus]',
    ...chorus,
  ];
  return { title, lyrics: parts.join('\n') };
}
