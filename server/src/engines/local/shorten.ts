/**
 * @module Shorten on the local engine: a real, deterministic reduction of a prompt (no model,
 * not Midjourney's token-weight analysis). Midjourney parameters (`--ar 16:9`) are kept aside
 * and put back on every candidate; the text is split into comma phrases; filler words
 * ("beautiful", "very", "8k", "masterpiece" …) and stop words are dropped, repeated words and
 * phrases that say nothing new are removed; the remaining words are ranked by repetition and
 * position. The candidates run from the cleaned prompt down to its three strongest words,
 * each strictly shorter than the one before and than the input.
 */

/** Words that add little to an image prompt (the usual quality and intensity boilerplate). */
const FILLER = new Set([
  'beautiful',
  'stunning',
  'gorgeous',
  'amazing',
  'incredible',
  'awesome',
  'breathtaking',
  'magnificent',
  'wonderful',
  'fantastic',
  'epic',
  'masterpiece',
  'best',
  'quality',
  'highly',
  'ultra',
  'super',
  'extremely',
  'very',
  'really',
  'insanely',
  'hyper',
  'hd',
  'uhd',
  '4k',
  '8k',
  '16k',
  'trending',
  'artstation',
  'award',
  'winning',
  'professional',
  'perfect',
  'nice',
  'pretty',
  'lovely',
]);

const STOP_WORDS = new Set([
  'a',
  'an',
  'the',
  'and',
  'or',
  'of',
  'in',
  'on',
  'at',
  'to',
  'with',
  'for',
  'from',
  'by',
  'into',
  'over',
  'under',
  'is',
  'are',
  'that',
  'this',
  'its',
  'it',
  'as',
  'some',
  'very',
]);

const PARAMETER = /(^|\s)--[a-z][\w-]*(\s+(?!--)[^\s,]+)?/gi;

export interface Shortened {
  prompts: string[];
  /** The analysis, in the shape Midjourney's /shorten shows it. */
  fullContent: string;
}

const wordsOf = (phrase: string) => phrase.toLowerCase().match(/[\p{L}\p{N}'-]+/gu) ?? [];

/** Shorter versions of `prompt`, longest first (see the module comment). Deterministic. */
export function shortenPrompt(prompt: string): Shortened {
  const parameters = (prompt.match(PARAMETER) ?? []).map((p) => p.trim());
  const text = prompt.replace(PARAMETER, ' ');
  const suffix = parameters.length ? ` ${parameters.join(' ')}` : '';

  // phrases with their filler and repeated words taken out, and phrases saying nothing new dropped
  const seenWords = new Set<string>();
  const removed = new Set<string>();
  const phrases: string[][] = [];
  for (const raw of text.split(/[,;.\n|]+/)) {
    const kept: string[] = [];
    for (const word of wordsOf(raw)) {
      if (FILLER.has(word)) removed.add(word);
      else if (seenWords.has(word) && !STOP_WORDS.has(word)) removed.add(word);
      else kept.push(word);
    }
    while (kept.length && STOP_WORDS.has(kept[kept.length - 1])) kept.pop();
    while (kept.length && STOP_WORDS.has(kept[0])) kept.shift();
    if (kept.some((w) => !STOP_WORDS.has(w))) {
      for (const w of kept) seenWords.add(w);
      phrases.push(kept);
    }
  }

  // content words ranked: how often the prompt says them, then how early
  const counts = new Map<string, { count: number; first: number }>();
  wordsOf(text).forEach((word, position) => {
    if (STOP_WORDS.has(word) || FILLER.has(word)) return;
    const entry = counts.get(word) ?? { count: 0, first: position };
    entry.count += 1;
    counts.set(word, entry);
  });
  const ranked = [...counts.entries()].sort((a, b) => b[1].count - a[1].count || a[1].first - b[1].first).map(([word]) => word);
  const inOrder = (words: readonly string[]) => ranked.filter((w) => words.includes(w)).sort((a, b) => counts.get(a)!.first - counts.get(b)!.first);

  const cleaned = phrases.map((p) => p.join(' ')).join(', ');
  const firstPhrases = phrases
    .slice(0, Math.max(1, Math.ceil(phrases.length / 2)))
    .map((p) => p.join(' '))
    .join(', ');
  const candidates = [
    cleaned,
    firstPhrases,
    inOrder(ranked.slice(0, 8)).join(', '),
    inOrder(ranked.slice(0, 5)).join(', '),
    inOrder(ranked.slice(0, 3)).join(', '),
  ];

  const input = prompt.trim();
  const prompts: string[] = [];
  for (const candidate of candidates) {
    const full = `${candidate}${suffix}`.trim();
    const previous = prompts[prompts.length - 1] ?? input;
    if (candidate && full.length < previous.length) prompts.push(full);
  }
  // a prompt with nothing to take out: the input itself is its shortest form
  if (prompts.length === 0) prompts.push(input);

  const fullContent = [
    '## Important tokens',
    ranked.slice(0, 8).join(', ') || '(none)',
    '## Removed',
    [...removed].join(', ') || '(nothing)',
    '## Shortened prompts',
    ...prompts.map((p, i) => `${i + 1}. ${p}`),
  ].join('\n');
  return { prompts, fullContent };
}
