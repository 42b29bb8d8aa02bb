import { describe, expect, it, vi } from 'vitest';
import { ApiError, DEFAULT_API_ERROR } from '@aim/shared-kit/api';
import {
  apiKeysPath,
  DEFAULT_GOAL,
  DEFAULT_LANGUAGE,
  DEFAULT_STYLE,
  DEFAULT_TEMPLATE,
  failureText,
  finalPrompt,
  finishOnboarding,
  GOALS,
  isOutOfCredits,
  LANGUAGES,
  ONBOARDING_FAILED,
  PROMPT_TEMPLATES,
  SAMPLE_TYPES,
  STYLES,
  type PromptTemplate,
  type Setup,
  type StyleId,
} from '../src/features/onboarding/onboarding-model.ts';

describe('the wizard choices (spec §2)', () => {
  it('lists the goals, templates, styles, sample types and languages with their defaults', () => {
    expect(GOALS.map((g) => [g.value, g.label])).toEqual([
      ['dashboard', 'Generate in Dashboard'],
      ['api', 'Run an API test'],
      ['ai-photo', 'Try AI Photo API'],
    ]);
    expect(DEFAULT_GOAL).toBe('dashboard');
    expect(PROMPT_TEMPLATES).toEqual(['Modern luxury villa', 'A beautiful sunset over a serene lake', 'Minimal gradient logo', 'Cyberpunk city at sunset']);
    expect(DEFAULT_TEMPLATE).toBe('A beautiful sunset over a serene lake');
    expect(STYLES.map((s) => s.label)).toEqual(['Realistic', 'Anime', 'Drawing']);
    expect(DEFAULT_STYLE).toBe('realistic');
    expect(SAMPLE_TYPES.map((s) => s.label)).toEqual(['Generate 4 images using /Imagine', 'Fetch the Result using /Fetch']);
    expect(LANGUAGES.map((l) => l.label)).toEqual(['Node.js', 'Python', 'Php', 'Curl']);
    expect(DEFAULT_LANGUAGE).toBe('curl');
  });
});

describe('finalPrompt: template label + style suffix (spec §3)', () => {
  it.each<[PromptTemplate, StyleId, string]>([
    ['A beautiful sunset over a serene lake', 'realistic', 'A beautiful sunset over a serene lake, realistic image, real details'],
    ['Modern luxury villa', 'anime', 'Modern luxury villa, anime image, anime style, cartoon style'],
    ['Minimal gradient logo', 'drawing', 'Minimal gradient logo, drawing image, drawing style, drawing art'],
    ['Cyberpunk city at sunset', 'realistic', 'Cyberpunk city at sunset, realistic image, real details'],
    ['Cyberpunk city at sunset', 'anime', 'Cyberpunk city at sunset, anime image, anime style, cartoon style'],
  ])('%s + %s', (template, style, expected) => {
    expect(finalPrompt(template, style)).toBe(expected);
  });

  it('refuses an unknown style instead of sending a bare template', () => {
    expect(() => finalPrompt('Modern luxury villa', 'oil' as StyleId)).toThrow(/unknown style/);
  });
});

function fakeCalls(taskId = 'task-7') {
  const order: string[] = [];
  return {
    order,
    calls: {
      imagine: vi.fn(async (prompt: string) => {
        order.push(`imagine:${prompt}`);
        return taskId;
      }),
      completeOnboarding: vi.fn(async () => void order.push('complete')),
    },
  };
}

describe('finishOnboarding: the calls per goal and where the wizard goes (spec §4)', () => {
  it.each<[string, Setup, string[], string]>([
    [
      'dashboard',
      { goal: 'dashboard', template: 'Modern luxury villa', style: 'drawing' },
      ['imagine:Modern luxury villa, drawing image, drawing style, drawing art', 'complete'],
      '/dashboard/tools/midjourney?taskId=task-7',
    ],
    ['api python fetch', { goal: 'api', language: 'python', requestType: 'fetch' }, ['complete'], '/dashboard/api-keys?language=python&requestType=fetch'],
    [
      'api nodejs generate',
      { goal: 'api', language: 'nodejs', requestType: 'generate' },
      ['complete'],
      '/dashboard/api-keys?language=nodejs&requestType=generate',
    ],
    ['api curl generate', { goal: 'api', language: 'curl', requestType: 'generate' }, ['complete'], '/dashboard/api-keys?language=curl&requestType=generate'],
    ['ai-photo', { goal: 'ai-photo' }, ['complete'], '/dashboard/tools/ai-photos'],
  ])('%s', async (_name, setup, calls, target) => {
    const fake = fakeCalls();
    await expect(finishOnboarding(setup, fake.calls)).resolves.toBe(target);
    expect(fake.order).toEqual(calls);
  });

  it('does not mark onboarding done when the generation fails', async () => {
    const fake = fakeCalls();
    fake.calls.imagine.mockRejectedValueOnce(new ApiError('Not enough credits', 402));
    await expect(finishOnboarding({ goal: 'dashboard', template: DEFAULT_TEMPLATE, style: 'realistic' }, fake.calls)).rejects.toThrow('Not enough credits');
    expect(fake.calls.completeOnboarding).not.toHaveBeenCalled();
  });

  it('a retry after a failed second call reuses the task of the same prompt, not one of another', async () => {
    const fake = fakeCalls('task-new');
    const setup: Setup = { goal: 'dashboard', template: 'Modern luxury villa', style: 'anime' };
    const samePrompt = { prompt: finalPrompt('Modern luxury villa', 'anime'), taskId: 'task-old' };
    await expect(finishOnboarding(setup, fake.calls, samePrompt)).resolves.toBe('/dashboard/tools/midjourney?taskId=task-old');
    expect(fake.calls.imagine).not.toHaveBeenCalled();
    await expect(finishOnboarding(setup, fake.calls, { ...samePrompt, prompt: 'Modern luxury villa, realistic image, real details' })).resolves.toBe(
      '/dashboard/tools/midjourney?taskId=task-new',
    );
  });

  it('apiKeysPath encodes the two query parameters the API Keys page reads', () => {
    expect(new URL(apiKeysPath('php', 'fetch'), 'http://x').searchParams.toString()).toBe('language=php&requestType=fetch');
  });
});

describe('failure text (spec §8)', () => {
  it.each<[string, unknown, string]>([
    ['the server message', new ApiError('Invalid API key', 401), 'Invalid API key'],
    ['no server message: the wizard default', new ApiError(DEFAULT_API_ERROR, 500), ONBOARDING_FAILED],
    ['network failure', new ApiError(DEFAULT_API_ERROR, 0), ONBOARDING_FAILED],
    ['a non-API error', new TypeError('x is undefined'), ONBOARDING_FAILED],
    ['a thrown string', 'boom', ONBOARDING_FAILED],
  ])('%s', (_name, error, text) => {
    expect(failureText(error)).toBe(text);
  });

  it('only a 402 from the API counts as out of credits', () => {
    expect(isOutOfCredits(new ApiError('Not enough credits', 402))).toBe(true);
    expect(isOutOfCredits(new ApiError('Not enough credits', 400))).toBe(false);
    expect(isOutOfCredits(new Error('Not enough credits'))).toBe(false);
  });
});
