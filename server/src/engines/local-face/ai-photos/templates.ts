/**
 * @module The portrait templates of local AI photo generation: openly licensed portraits in
 * `server/assets/ai-photo-templates/`, listed with their tags, sources and licences in its
 * `catalogue.json` (and README). A request ranks them (pure, no face models) by the subject's
 * gender, age and skin tone and by the prompt's scene, clothing, expression and framing words;
 * a batch never repeats a template while other matching ones remain, and a repeat (a tiny
 * library) changes the cut and the light, never mirrors. A template's face is found once per
 * process (the files never change) and kept with its pixels.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { PhotoSubject } from '../../engine.ts';
import { HashStream } from '../../local/random.ts';
import { prepareImage } from '../images.ts';
import type { FaceAnalysis, RgbImage } from '../protocol.ts';
import { cropImage } from './pixels.ts';
import { analyseFaces } from './worker-calls.ts';

const TEMPLATE_DIR = new URL('../../../../assets/ai-photo-templates/', import.meta.url);

export const FRAMINGS = ['head', 'bust', 'half', 'full'] as const;
export type Framing = (typeof FRAMINGS)[number];
export const AGE_BANDS = ['18-24', '25-34', '35-44', '45-54', '55+'] as const;
export const SKIN_TONES = ['light', 'medium', 'dark'] as const;
export type SkinTone = (typeof SKIN_TONES)[number];

const entrySchema = z.object({
  id: z.string().regex(/^[a-z0-9_-]+$/),
  file: z.string().regex(/^[a-z0-9_-]+\.jpg$/),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  /** One id per person shown (a person may have several templates). */
  person: z.string(),
  gender: z.enum(['female', 'male']),
  /** Recorded by the source, or null when the band is estimated. */
  age: z.number().int().nullable(),
  age_band: z.enum(AGE_BANDS),
  age_source: z.enum(['recorded', 'estimated']),
  /** As recorded by the source (London Set: white, black, east_asian, west_asian, mixed), else null. */
  ethnicity: z.string().nullable(),
  /** Measured on the face (mean skin patches' luma: < 115 dark, < 150 medium). */
  skin_tone: z.enum(SKIN_TONES),
  skin_rgb: z.tuple([z.number(), z.number(), z.number()]),
  framing: z.enum(FRAMINGS),
  /** The framings this file can give: its own, and a closer cut where the face has the pixels for it. */
  crops: z.array(z.enum(FRAMINGS)).min(1),
  /** Width of the face in the file, in pixels. */
  face_width: z.number(),
  expression: z.enum(['neutral', 'smiling']),
  scene: z.string().min(1),
  clothing: z.string().min(1),
  style: z.array(z.string().min(1)).min(1),
  source: z.object({
    collection: z.string(),
    author: z.string(),
    licence: z.string(),
    licence_url: z.string(),
    file: z.string(),
    subject: z.string(),
    changes: z.string(),
  }),
});

export type TemplateEntry = z.infer<typeof entrySchema>;

let catalogue: readonly TemplateEntry[] | undefined;

/** The catalogue of shipped templates (read and checked once). */
export function templateCatalogue(): readonly TemplateEntry[] {
  catalogue ??= z.object({ templates: z.array(entrySchema).min(1) }).parse(JSON.parse(readFileSync(new URL('catalogue.json', TEMPLATE_DIR), 'utf8'))).templates;
  return catalogue;
}

/** Where a catalogue file lives. */
export const templateFileUrl = (file: string) => new URL(file, TEMPLATE_DIR);

/** The skin tone band of a mean skin colour (same rule as the catalogue's). */
export function skinToneOf([r, g, b]: readonly number[]): SkinTone {
  const luma = 0.299 * r + 0.587 * g + 0.114 * b;
  return luma < 115 ? 'dark' : luma < 150 ? 'medium' : 'light';
}

const bandIndex = (age: number) => (age < 25 ? 0 : age < 35 ? 1 : age < 45 ? 2 : age < 55 ? 3 : 4);

/** The London Set's recorded ethnicities that fit each of spec §5's. */
const ETHNICITY_MATCH: Record<string, readonly string[]> = {
  asian: ['east_asian', 'west_asian'],
  black: ['black'],
  'middle eastern': ['west_asian'],
  white: ['white'],
  mixed: ['mixed'],
};

/** What the prompt asks for, in catalogue terms. */
export interface PromptWish {
  scenes: string[];
  clothing: string[];
  styles: string[];
  expression?: 'neutral' | 'smiling';
  framings: Framing[];
  /** Places or things asked for that no template shows (reported in the result). */
  unmatched: string[];
}

const SCENE_WORDS: readonly [RegExp, string][] = [
  [/\b(astronauts?|space ?suits?|spacewalk|nasa|cosmonauts?|outer space|in space|rocket|orbit)\b/i, 'astronaut'],
  [/\b(navy|naval|admiral)\b/i, 'navy'],
  [/\b(studio|plain background|backdrop|passport)\b/i, 'studio'],
];
const CLOTHING_WORDS: readonly [RegExp, string][] = [
  [/\b(t-?shirt|tee)\b/i, 'white t-shirt'],
  [/\b(polo)\b/i, 'polo shirt'],
  [/\b(flight suit|pilot|aviator)\b/i, 'blue flight suit'],
  [/\b(orange suit|launch suit|orange)\b/i, 'orange launch suit'],
];
const STYLE_WORDS: readonly [RegExp, string][] = [
  [/\b(uniform|military|officer|pilot)\b/i, 'uniform'],
  [/\b(casual|relaxed|everyday|t-?shirt)\b/i, 'casual'],
  [/\b(flag|patriotic)\b/i, 'flag background'],
  [/\b(official|formal)\b/i, 'official portrait'],
  [/\b(plain background|minimal|clean background|headshot|passport|studio)\b/i, 'plain background'],
];
/** Places no template shows: the choice falls back to plain studio portraits, and the result says so. */
const UNSHOWN_WORDS =
  /\b(office|beach|forest|city|street|park|garden|mountains?|cafe|café|restaurant|kitchen|library|desert|snow|night ?club|party|wedding|gym|car|boat|castle|suit and tie|business suit|tuxedo|dress)\b/gi;

export function promptWish(prompt: string): PromptWish {
  const pick = (table: readonly [RegExp, string][]) => [...new Set(table.filter(([words]) => words.test(prompt)).map(([, tag]) => tag))];
  const framings: Framing[] = /\b(full[- ]?(length|body)|whole body|head to toe)\b/i.test(prompt)
    ? ['full', 'half']
    : /\b(half[- ]?(length|body)|upper body|waist|wide)\b/i.test(prompt)
      ? ['half', 'bust']
      : /\b(close[- ]?up|face only|tight)\b/i.test(prompt)
        ? ['head', 'bust']
        : /\b(headshot|head and shoulders|profile picture|avatar|linkedin|passport)\b/i.test(prompt)
          ? ['bust', 'head']
          : [];
  const expression = /\b(smil\w*|happy|cheerful|friendly|laugh\w*|joyful|warm)\b/i.test(prompt)
    ? 'smiling'
    : /\b(serious|neutral|stern|passport|calm)\b/i.test(prompt)
      ? 'neutral'
      : undefined;
  const unmatched = [...new Set([...prompt.matchAll(UNSHOWN_WORDS)].map(([word]) => word.toLowerCase()))];
  return { scenes: pick(SCENE_WORDS), clothing: pick(CLOTHING_WORDS), styles: pick(STYLE_WORDS), expression, framings, unmatched };
}

/** Who the photos are of: the upload's declared subject, and the skin tone measured on the training's photos. */
export interface SubjectWish extends PhotoSubject {
  skinTone?: SkinTone;
}

/** One planned picture: a template, the framing cut from it, and which light variant of the grade. */
export interface TemplateChoice {
  entry: TemplateEntry;
  framing: Framing;
  /** 0 for the first use of a template; a repeat (tiny library only) gets the next cut and light. */
  variant: number;
  /** Rank score (higher fits better), for the result's record. */
  score: number;
}

/** How well a template fits (higher is better), without the seed's tie-break. */
export function templateScore(entry: TemplateEntry, subject: SubjectWish, wish: PromptWish): number {
  let score = 0;
  score -= 1.5 * Math.abs(AGE_BANDS.indexOf(entry.age_band) - bandIndex(subject.age));
  if (subject.skinTone) score -= 1.2 * Math.abs(SKIN_TONES.indexOf(entry.skin_tone) - SKIN_TONES.indexOf(subject.skinTone));
  const ethnicities = ETHNICITY_MATCH[subject.ethnicity.toLowerCase()];
  if (ethnicities && entry.ethnicity && ethnicities.includes(entry.ethnicity)) score += 1;
  if (wish.scenes.length > 0) score += wish.scenes.includes(entry.scene) ? 4 : -4;
  for (const clothing of wish.clothing) score += entry.clothing === clothing ? 2 : 0;
  for (const style of wish.styles) score += entry.style.includes(style) ? 1.5 : 0;
  // a place no template shows: a plain studio portrait is the honest stand-in
  if (wish.unmatched.length > 0 && wish.scenes.length === 0) score += entry.scene === 'studio' ? 1.5 : 0;
  if (wish.expression) score += entry.expression === wish.expression ? 2 : 0;
  if (wish.framings.length > 0) score += wish.framings.some((framing) => entry.crops.includes(framing)) ? 1 : -1.5;
  return score;
}

/** The framing to cut from `entry`: the first asked one it can give, else its own. */
function framingFor(entry: TemplateEntry, wish: PromptWish, variant: number): Framing {
  const possible = wish.framings.filter((framing) => entry.crops.includes(framing));
  const choices = possible.length > 0 ? possible : [entry.framing, ...entry.crops.filter((framing) => framing !== entry.framing)];
  return choices[variant % choices.length];
}

/**
 * The templates for a request, best first: only the subject's gender while there are enough
 * of it (`count`, plus spares for templates skipped as the same person), ranked by fit with a
 * seeded tie-break, one template per person until every person is used. The list is as long
 * as the library (each template once), then repeats with the next variant (cut and light), so
 * picture i depends only on the request, the seed and i, not on how many are asked.
 */
export function planTemplates(
  library: readonly TemplateEntry[],
  subject: SubjectWish,
  prompt: string,
  seed: number,
  count: number,
  laps = 2,
): TemplateChoice[] {
  const wish = promptWish(prompt);
  const stream = new HashStream('ai-photo-templates', seed);
  const jitter = new Map(library.map((entry) => [entry.id, stream.next()]));
  const sameGender = library.filter((entry) => entry.gender === subject.gender);
  const pool = sameGender.length >= count + 2 ? sameGender : library;
  const ranked = pool
    .map((entry) => ({ entry, score: templateScore(entry, subject, wish) + (entry.gender === subject.gender ? 0 : -10) }))
    .sort((a, b) => b.score + (jitter.get(b.entry.id) ?? 0) - (a.score + (jitter.get(a.entry.id) ?? 0)) || a.entry.id.localeCompare(b.entry.id));
  // one template per person first: the best of each person, then the people's other templates
  const seen = new Set<string>();
  const first = ranked.filter(({ entry }) => !seen.has(entry.person) && seen.add(entry.person));
  const ordered = [...first, ...ranked.filter((item) => !first.includes(item))];
  const plan: TemplateChoice[] = [];
  for (let variant = 0; variant < laps; variant += 1) {
    for (const { entry, score } of ordered) plan.push({ entry, framing: framingFor(entry, wish, variant), variant, score: Math.round(score * 100) / 100 });
  }
  return plan;
}

export interface AnalysedTemplate {
  entry: TemplateEntry;
  framing: Framing;
  image: RgbImage;
  /** The template's face (the largest). */
  face: FaceAnalysis;
}

const cache = new Map<string, Promise<AnalysedTemplate>>();

/** A closer cut around the face: a square of 2.6 face widths for a head, a 3:4 of 3.6 for a bust. */
function cutRegion(image: RgbImage, box: FaceAnalysis['box'], framing: Framing) {
  const [across, down] = framing === 'head' ? [2.6, 2.6] : [3.6, 4.8];
  const width = Math.min(image.width, Math.round(box[2] * across * 0.62));
  const height = Math.min(image.height, Math.round(box[3] * down * 0.62));
  const centreX = box[0] + box[2] / 2;
  const centreY = box[1] + box[3] * (framing === 'head' ? 0.58 : 0.75);
  const x = Math.round(Math.min(Math.max(centreX - width / 2, 0), image.width - width));
  const y = Math.round(Math.min(Math.max(centreY - height / 2, 0), image.height - height));
  return { x, y, width, height };
}

async function loadTemplate(entry: TemplateEntry, framing: Framing, signal: AbortSignal): Promise<AnalysedTemplate> {
  let image: RgbImage;
  if (framing !== entry.framing) {
    const whole = await analysedTemplate(entry, entry.framing, signal);
    image = cropImage(whole.image, cutRegion(whole.image, whole.face.box, framing));
  } else {
    ({ pixels: image } = await prepareImage(await readFile(templateFileUrl(entry.file)), 'target', { maxPixels: 4_000_000, detectionSize: 1024 }));
  }
  const [face] = (await analyseFaces({ pixels: image }, undefined, signal)).faces;
  if (!face) throw new Error(`no face found in the template ${entry.id} (${framing})`);
  return { entry, framing, image, face };
}

/** A template cut to `framing` with its face measured (cached per process; a failure is not cached). */
export function analysedTemplate(entry: TemplateEntry, framing: Framing, signal: AbortSignal): Promise<AnalysedTemplate> {
  const key = `${entry.id}:${framing}`;
  let loading = cache.get(key);
  if (!loading) {
    loading = loadTemplate(entry, framing, signal);
    cache.set(key, loading);
    loading.catch(() => cache.delete(key));
  }
  return loading;
}
