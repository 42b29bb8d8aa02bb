import { existsSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  AGE_BANDS,
  FRAMINGS,
  planTemplates,
  promptWish,
  SKIN_TONES,
  type SubjectWish,
  skinToneOf,
  type TemplateChoice,
  templateCatalogue,
  templateFileUrl,
  templateScore,
} from '../src/engines/local-face/ai-photos/templates.ts';
import { gradeFor, lightFor, lightVariant } from '../src/engines/local-face/ai-photos/grades.ts';

const library = templateCatalogue();
const MAN: SubjectWish = { gender: 'male', age: 35, ethnicity: 'white', skinTone: 'light' };
const WOMAN: SubjectWish = { gender: 'female', age: 28, ethnicity: 'black', skinTone: 'dark' };
const BUSINESS = 'a business headshot in a bright office';

const band = (age: number) => AGE_BANDS.findIndex((_, i) => i === AGE_BANDS.length - 1 || age < [25, 35, 45, 55][i]);
const ids = (plan: TemplateChoice[], count: number) => plan.slice(0, count).map((choice) => choice.entry.id);

describe('AI photo templates: the catalogue', () => {
  it('has at least 40 templates, each an existing file with its source, licence and every tag', () => {
    expect(library.length).toBeGreaterThanOrEqual(40);
    expect(new Set(library.map((entry) => entry.id)).size).toBe(library.length);
    let bytes = 0;
    for (const entry of library) {
      const url = templateFileUrl(entry.file);
      expect(existsSync(url), entry.file).toBe(true);
      bytes += statSync(url).size;
      expect(Math.max(entry.width, entry.height)).toBeLessThanOrEqual(1024);
      expect(entry.source.licence).toMatch(/^(CC BY 4\.0|Public domain)/);
      expect(entry.source.author.length).toBeGreaterThan(0);
      expect(['female', 'male']).toContain(entry.gender);
      expect(AGE_BANDS).toContain(entry.age_band);
      expect(SKIN_TONES).toContain(entry.skin_tone);
      expect(FRAMINGS).toContain(entry.framing);
      expect(entry.crops).toContain(entry.framing);
      expect(entry.scene.length).toBeGreaterThan(0);
      expect(entry.style.length).toBeGreaterThan(0);
    }
    // the folder stays small
    expect(bytes).toBeLessThan(6.5 * 1024 * 1024);
    // both genders, every skin tone, several age bands and framings
    for (const gender of ['female', 'male'] as const) expect(library.filter((entry) => entry.gender === gender).length).toBeGreaterThanOrEqual(20);
    for (const tone of SKIN_TONES) expect(library.some((entry) => entry.skin_tone === tone)).toBe(true);
    expect(new Set(library.map((entry) => entry.age_band)).size).toBeGreaterThanOrEqual(4);
    expect(new Set(library.flatMap((entry) => entry.crops)).size).toBeGreaterThanOrEqual(3);
  });

  it('measures skin tone with the catalogue rule', () => {
    expect(skinToneOf([90, 70, 60])).toBe('dark');
    expect(skinToneOf([170, 130, 110])).toBe('medium');
    expect(skinToneOf([200, 160, 150])).toBe('light');
  });
});

describe('AI photo templates: the choice for a request', () => {
  it('a man of 35 asking for a business headshot in a bright office: men only, of a near age, no template or person twice, no mirror, studio portraits', () => {
    for (const seed of [1, 2, 3, 99]) {
      const plan = planTemplates(library, MAN, BUSINESS, seed, 8);
      for (const count of [4, 8]) {
        const picked = plan.slice(0, count);
        expect(new Set(ids(plan, count)).size).toBe(count);
        expect(new Set(picked.map((choice) => choice.entry.person)).size).toBe(count);
        for (const { entry, framing, variant } of picked) {
          expect(entry.gender).toBe('male');
          expect(Math.abs(AGE_BANDS.indexOf(entry.age_band) - band(35))).toBeLessThanOrEqual(1);
          expect(entry.scene).toBe('studio');
          expect(['bust', 'head']).toContain(framing);
          expect(variant).toBe(0);
          expect(entry.id).not.toMatch(/mirror/);
        }
      }
    }
    // the prompt's words, as the choice read them
    expect(promptWish(BUSINESS)).toMatchObject({ framings: ['bust', 'head'], unmatched: ['office'] });
    expect([gradeFor(BUSINESS), lightFor(BUSINESS)]).toEqual(['business', 'bright']);
  });

  it("a woman's request picks women, nearest in skin tone first", () => {
    const plan = planTemplates(library, WOMAN, 'a portrait', 5, 4);
    for (const { entry } of plan.slice(0, 4)) {
      expect(entry.gender).toBe('female');
      expect(entry.skin_tone).not.toBe('light');
    }
  });

  it('the prompt changes the choice: astronaut prompts get spacesuits, t-shirt prompts studio portraits, smiles smiling templates', () => {
    const astronaut = planTemplates(library, MAN, 'an astronaut portrait in a spacesuit', 3, 4).slice(0, 4);
    for (const { entry } of astronaut) expect(entry.scene).toBe('astronaut');
    const casual = planTemplates(library, MAN, 'a casual photo in a t-shirt', 3, 4).slice(0, 4);
    for (const { entry } of casual) expect(entry.clothing).toBe('white t-shirt');
    const smiling = planTemplates(library, { ...MAN, age: 25 }, 'a smiling studio portrait', 3, 4).slice(0, 4);
    for (const { entry } of smiling) expect(entry.expression).toBe('smiling');
    const uniform = planTemplates(library, { gender: 'female', age: 40, ethnicity: 'white', skinTone: 'light' }, 'a pilot in uniform', 3, 2).slice(0, 2);
    for (const { entry } of uniform) expect(entry.style).toContain('uniform');
    expect(ids(astronaut, 4)).not.toEqual(ids(planTemplates(library, MAN, BUSINESS, 3, 4), 4));
    // light and grade from the prompt
    expect([gradeFor('film noir portrait'), lightFor('film noir portrait')]).toEqual(['noir', 'even']);
    expect(lightFor('warm golden hour portrait')).toBe('warm');
    // a close-up asks for head cuts
    for (const { framing } of planTemplates(library, MAN, 'a close-up', 3, 4).slice(0, 4)) expect(framing).toBe('head');
  });

  it('is deterministic by seed, and a different seed varies the pick', () => {
    expect(planTemplates(library, MAN, BUSINESS, 42, 4)).toEqual(planTemplates(library, MAN, BUSINESS, 42, 4));
    const picks = new Set([1, 2, 3, 4, 5].map((seed) => ids(planTemplates(library, MAN, BUSINESS, seed, 4), 4).join()));
    expect(picks.size).toBeGreaterThan(1);
  });

  it('a tiny library repeats a template only after all others, with another cut and light, never mirrored', () => {
    const tiny = library.filter((entry) => entry.gender === 'male' && entry.crops.length > 1).slice(0, 2);
    const plan = planTemplates(tiny, MAN, 'a portrait', 1, 4);
    expect(plan.slice(0, 2).map((choice) => choice.variant)).toEqual([0, 0]);
    expect(new Set(ids(plan, 2)).size).toBe(2);
    const [first, repeat] = [plan[0], plan.find((choice) => choice.variant === 1 && choice.entry.id === plan[0].entry.id)];
    expect(repeat).toBeDefined();
    expect(repeat?.framing).not.toBe(first.framing);
    expect(lightVariant('even', 1)).not.toBe(lightVariant('even', 0));
    // the other gender only when too few of the subject's exist
    expect(planTemplates(tiny, { ...MAN, gender: 'female' }, 'a portrait', 1, 1).every((choice) => choice.entry.gender === 'male')).toBe(true);
  });

  it('scores age and skin tone distance', () => {
    const entry = library.find((candidate) => candidate.gender === 'male' && candidate.age_band === '35-44' && candidate.skin_tone === 'light');
    if (!entry) throw new Error('no such template');
    const wish = promptWish('a portrait');
    expect(templateScore(entry, MAN, wish)).toBeGreaterThan(templateScore(entry, { ...MAN, age: 70 }, wish));
    expect(templateScore(entry, MAN, wish)).toBeGreaterThan(templateScore(entry, { ...MAN, skinTone: 'dark' }, wish));
  });
});
